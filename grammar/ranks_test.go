package grammar_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

const maxRank = 100_000_000

// part is a compact expected Part: resource and process ranges with
// offsets; res/proc nil means absent.
type rng struct {
	all         bool
	start, end  int
	off, endOff int
}

type part struct {
	res, proc   *rng
	colon       bool
	off, endOff int
}

func toRng(r *grammar.Range) *rng {
	if r == nil {
		return nil
	}
	return &rng{r.All, r.Start, r.End, r.Off, r.EndOff}
}

// Accepted placement strings (semantics §2.3) with every part's ranges and
// byte offsets. Empty parts are skipped, as in RLinf.
func TestParsePlacementAccepted(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []part
	}{
		{"0-3", []part{{res: &rng{false, 0, 3, 0, 3}, off: 0, endOff: 3}}},
		{"all", []part{{res: &rng{true, 0, 0, 0, 3}, off: 0, endOff: 3}}},
		{"ALL:0-15", []part{{res: &rng{true, 0, 0, 0, 3}, proc: &rng{false, 0, 15, 4, 8}, colon: true, off: 0, endOff: 8}}},
		{" 0-3 , ", []part{{res: &rng{false, 0, 3, 1, 4}, off: 1, endOff: 4}}},
		{"0-1:0-3,3-5,7:7-9", []part{
			{res: &rng{false, 0, 1, 0, 3}, proc: &rng{false, 0, 3, 4, 7}, colon: true, off: 0, endOff: 7},
			{res: &rng{false, 3, 5, 8, 11}, off: 8, endOff: 11},
			{res: &rng{false, 7, 7, 12, 13}, proc: &rng{false, 7, 9, 14, 17}, colon: true, off: 12, endOff: 17},
		}},
		{"0:0-4, 1:5-9", []part{
			{res: &rng{false, 0, 0, 0, 1}, proc: &rng{false, 0, 4, 2, 5}, colon: true, off: 0, endOff: 5},
			{res: &rng{false, 1, 1, 7, 8}, proc: &rng{false, 5, 9, 9, 12}, colon: true, off: 7, endOff: 12},
		}},
		{"0,2,3", []part{
			{res: &rng{false, 0, 0, 0, 1}, off: 0, endOff: 1},
			{res: &rng{false, 2, 2, 2, 3}, off: 2, endOff: 3},
			{res: &rng{false, 3, 3, 4, 5}, off: 4, endOff: 5},
		}},
		// Reversed ranges parse; the caller reports them (RLinf asserts).
		{"3-1", []part{{res: &rng{false, 3, 1, 0, 3}, off: 0, endOff: 3}}},
		// Missing sides parse; the caller reports "no valid ranks".
		{"0-3:", []part{{res: &rng{false, 0, 3, 0, 3}, colon: true, off: 0, endOff: 4}}},
		{":0-3", []part{{proc: &rng{false, 0, 3, 1, 4}, colon: true, off: 0, endOff: 4}}},
		{"", nil},
		{",,", nil},
	} {
		t.Run(tc.in, func(t *testing.T) {
			ps, err := grammar.ParsePlacement(tc.in, maxRank)
			if err != nil {
				t.Fatalf("error at %d: %s", err.Offset, err.Msg)
			}
			var got []part
			for _, p := range ps {
				got = append(got, part{res: toRng(p.Res), proc: toRng(p.Proc), colon: p.HasColon, off: p.Off, endOff: p.EndOff})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %s\nwant %s", fmtParts(got), fmtParts(tc.want))
			}
		})
	}
}

func fmtParts(ps []part) string {
	s := ""
	for _, p := range ps {
		s += "{"
		if p.res != nil {
			s += "res:" + fmtRng(*p.res)
		}
		if p.proc != nil {
			s += " proc:" + fmtRng(*p.proc)
		}
		s += " }"
	}
	return s
}

func fmtRng(r rng) string {
	return "[" + itoa(r.start) + "-" + itoa(r.end) + "@" + itoa(r.off) + ":" + itoa(r.endOff) + map[bool]string{true: " all", false: ""}[r.all] + "]"
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Rejected placement strings: code and the byte offset of the culprit.
// rlsolve reads decimal digits only (D3), so Python int() forms are refused.
func TestParsePlacementRejected(t *testing.T) {
	for _, tc := range []struct {
		in   string
		code string
		off  int
	}{
		{"-1", model.CodeRankSyntax, 0},
		{"0--1", model.CodeRankSyntax, 2},
		{"0:1:2", model.CodeRankSyntax, 3},
		{"0-3:all", model.CodeProcessAll, 4},
		{"0-3:ALL", model.CodeProcessAll, 4},
		{"x", model.CodeRankSyntax, 0},
		{"1_0", model.CodeRankSyntax, 1},
		{"0x10", model.CodeRankSyntax, 1},
		{"+3", model.CodeRankSyntax, 0},
		{"[0, 1]", model.CodeRankSyntax, 0},
		{"0 1", model.CodeRankSyntax, 2},
		{"0-", model.CodeRankSyntax, 2},
		{"0:-1", model.CodeRankSyntax, 2},
		{"\uff10", model.CodeRankSyntax, 0}, // a full-width digit: Python's int() takes it, rlsolve does not
	} {
		t.Run(tc.in, func(t *testing.T) {
			ps, err := grammar.ParsePlacement(tc.in, maxRank)
			if err == nil {
				t.Fatalf("accepted: %+v", ps)
			}
			if err.DiagCode() != tc.code || err.Offset != tc.off {
				t.Errorf("code %s at %d (%s), want %s at %d", err.DiagCode(), err.Offset, err.Msg, tc.code, tc.off)
			}
		})
	}
}

// A word where a number belongs should be reported at the word, not at
// the '-' after it (RLinf: Invalid rank format a-b).
func TestParsePlacementWordBeforeDash(t *testing.T) {
	for _, in := range []string{"a-b", "all-3"} {
		t.Run(in, func(t *testing.T) {
			_, err := grammar.ParsePlacement(in, maxRank)
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Offset != 0 {
				t.Errorf("%q is reported at offset %d (%q), not at the non-number at offset 0", in, err.Offset, err.Msg)
			}
		})
	}
}

// A rank past the limit is refused before anything is allocated; the
// error is a limit (RLS-E0107) or range error, pointing at the number.
func TestParsePlacementRankLimit(t *testing.T) {
	for _, tc := range []struct {
		in  string
		off int
	}{{"0-999999999", 2}, {"1234567890123", 0}, {"99999999999999999999999", 0}} {
		t.Run(tc.in, func(t *testing.T) {
			start := time.Now()
			_, err := grammar.ParsePlacement(tc.in, maxRank)
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if err.Offset != tc.off {
				t.Errorf("offset %d, want %d", err.Offset, tc.off)
			}
			if c := err.DiagCode(); c != model.CodeLimit && c != model.CodeNodeRanksRange {
				t.Errorf("rank over the limit has code %s, want %s or %s: %s", c, model.CodeLimit, model.CodeNodeRanksRange, err.Msg)
			}
		})
	}
}

// ParseRankList: node_ranks specs (semantics §2.1).
func TestParseRankList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		all  bool
		want [][2]int
	}{
		{"0-3,5", false, [][2]int{{0, 3}, {5, 5}}},
		{"all", true, nil},
		{"All", true, nil},
		{"ALL", true, nil},
		{"", false, nil},
		{"2-3,0-2", false, [][2]int{{2, 3}, {0, 2}}},
		{" 0 - 1 , 3", false, [][2]int{{0, 1}, {3, 3}}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			rs, all, err := grammar.ParseRankList(tc.in, maxRank)
			if err != nil {
				t.Fatalf("error: %s", err.Msg)
			}
			var got [][2]int
			for _, r := range rs {
				got = append(got, [2]int{r.Start, r.End})
			}
			if all != tc.all || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("all=%v %v, want all=%v %v", all, got, tc.all, tc.want)
			}
		})
	}
	// " all" is not stripped before the all check, as in RLinf.
	for _, in := range []string{" all", "bad-format", "-1", "1_0"} {
		if _, _, err := grammar.ParseRankList(in, maxRank); err == nil || err.DiagCode() != model.CodeRankSyntax {
			t.Errorf("%q: error %v, want %s", in, err, model.CodeRankSyntax)
		}
	}
}

// Placement strings in a config: a part without resource or process ranks
// and reversed ranges are reported at their characters.
func TestPlacementSemanticSyntaxInConfig(t *testing.T) {
	for _, tc := range []struct {
		value, code, at string
	}{
		{`":0-3"`, model.CodeEmptyRanks, ":0-3"},
		{`"0-3:"`, model.CodeEmptyRanks, "0-3:"},
		{"3-1", model.CodeRankReversed, "3-1"},
		{"0-3:3-0", model.CodeRankReversed, "3-0"},
		{`""`, model.CodeEmptyRanks, `"`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: " + tc.value + "\n"
			_, ds := load(src)
			d := wantDiag(t, ds, tc.code, model.SeverityError)
			line, col := posOf(t, src, tc.at, 0)
			if tc.value == `""` {
				col++ // inside the quotes
			}
			if d.Primary.Line != line || d.Primary.Col != col {
				t.Errorf("at %s, want %d:%d", d.Primary, line, col)
			}
		})
	}
}
