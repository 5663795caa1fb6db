package diag

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// span builds a single-line span, the common case in these tests.
func span(file string, line, col, endCol int) model.Span {
	return model.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: endCol}
}

// envConflict is the design.md example: primary + 2 labels + why + help.
func envConflict() model.Diagnostic {
	return model.Diagnostic{
		Code:         model.CodeEnvVarDuplicated,
		Severity:     model.SeverityError,
		Summary:      "env var NCCL_SOCKET_IFNAME gets two values on node 3",
		Primary:      span("cluster.yaml", 12, 35, 40),
		PrimaryLabel: `...and this sets it to "ib0"`,
		Labels: []model.Label{
			{Span: span("cluster.yaml", 10, 23, 26), Message: "env_configs[1] covers node 3"},
			{Span: span("cluster.yaml", 7, 23, 26), Message: "env_configs[0] covers node 3"},
		},
		Why: "RLinf allows each env var key once per node group, whatever nodes the env_configs cover",
		Help: []model.Fix{
			{Message: "make the ranges disjoint", Edits: []model.Edit{{Span: span("cluster.yaml", 10, 23, 26), NewText: "4-7"}}},
			{Message: "or move node 3 to its own node group"},
		},
	}
}

func testSources(t *testing.T) Sources {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return MapSources(map[string][]byte{
		"cluster.yaml":   b,
		"inventory.yaml": []byte("inventory:\n  nodes:\n    - ranks: 0-1\n\taccelerators: {count: 4}\n"),
	})
}

func TestTextGolden(t *testing.T) {
	tests := []struct {
		name  string
		ds    []model.Diagnostic
		color bool
	}{
		{name: "env_conflict", ds: []model.Diagnostic{envConflict()}},
		{name: "env_conflict_color", ds: []model.Diagnostic{envConflict()}, color: true},
		{name: "other_file_and_note", ds: []model.Diagnostic{{
			Code:         model.CodeRankOutOfRange,
			Severity:     model.SeverityError,
			Summary:      "rank 8 is past the 8 GPUs of the cluster",
			Primary:      span("cluster.yaml", 14, 12, 15),
			PrimaryLabel: "asks for every GPU",
			Labels: []model.Label{
				{Span: span("inventory.yaml", 4, 16, 26), Message: "node 0 has 4 GPUs"},
				{Span: span("", 2, 14, 15), Message: "8 nodes"},
				{Message: "no inventory given for nodes 2-7"},
			},
		}}},
		{name: "same_line_and_warning", ds: []model.Diagnostic{
			{
				Code:         model.WarnProcessOffset,
				Severity:     model.SeverityWarning,
				Summary:      "process ranks start at 4",
				Primary:      span("cluster.yaml", 7, 25, 26),
				PrimaryLabel: "renumbered to 0",
				Labels:       []model.Label{{Span: span("cluster.yaml", 7, 23, 24), Message: "resource 0"}},
			},
			{
				Code:     model.NoteAssumedInventory,
				Severity: model.SeverityNote,
				Summary:  "no inventory: 8 GPUs per node assumed",
			},
		}},
		{name: "no_source", ds: []model.Diagnostic{{
			Code:         model.CodeSpansNodes,
			Severity:     model.SeverityError,
			Summary:      "process 0 spans nodes 0 and 1",
			Primary:      span("missing.yaml", 3, 5, 9),
			PrimaryLabel: "GPUs 6-9",
			Labels:       []model.Label{{Span: span("missing.yaml", 1, 1, 2), Message: "2 nodes"}},
			Help:         []model.Fix{{Message: "stay on node 0", Edits: []model.Edit{{Span: span("missing.yaml", 3, 5, 9), NewText: "4-7"}}}},
		}}},
		{name: "file_only", ds: []model.Diagnostic{{
			Code:     model.CodeFileRead,
			Severity: model.SeverityError,
			Summary:  "cannot read gone.yaml: no such file",
			Primary:  model.Span{File: "gone.yaml"},
		}}},
		{name: "tabs", ds: []model.Diagnostic{{
			Code:     model.CodeWrongType,
			Severity: model.SeverityError,
			Summary:  "tab in indentation",
			Primary:  span("inventory.yaml", 4, 2, 14),
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			Text(&buf, tt.ds, testSources(t), tt.color)
			golden(t, tt.name, buf.Bytes())
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./diag -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./diag -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestTextFrame pins the frame layout itself, so that a golden file rewritten
// by -update cannot drift from design.md unnoticed.
func TestTextFrame(t *testing.T) {
	var buf bytes.Buffer
	Text(&buf, []model.Diagnostic{envConflict()}, testSources(t), false)
	want := []string{
		"error[RLS-E0306]: env var NCCL_SOCKET_IFNAME gets two values on node 3",
		"  --> cluster.yaml:12:35",
		"   |",
		" 7 |         - node_ranks: 0-3",
		"   |                       --- env_configs[0] covers node 3",
		"10 |         - node_ranks: 3-7",
		"   |                       --- env_configs[1] covers node 3",
		`12 |             - NCCL_SOCKET_IFNAME: "ib0"`,
		`   |                                   ^^^^^ ...and this sets it to "ib0"`,
		"   = why: RLinf allows each env var key once per node group, whatever nodes the env_configs cover",
		`   = help: make the ranges disjoint (line 10: replace ` + "`3-7` with `4-7`" + `)`,
		"   = help: or move node 3 to its own node group",
		"",
		"",
	}
	if got := buf.String(); got != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if strings.Contains(buf.String(), "\x1b[") {
		t.Error("colour codes without color")
	}
	buf.Reset()
	Text(&buf, []model.Diagnostic{envConflict()}, testSources(t), true)
	if !strings.Contains(buf.String(), "\x1b[1;31merror[RLS-E0306]\x1b[0m") {
		t.Errorf("no red header in %q", buf.String())
	}
}

func TestSummary(t *testing.T) {
	warn := model.Diagnostic{Severity: model.SeverityWarning}
	note := model.Diagnostic{Severity: model.SeverityNote}
	errd := model.Diagnostic{Severity: model.SeverityError}
	tests := []struct {
		ds      []model.Diagnostic
		file    string
		allowed []string
		want    string
	}{
		{nil, "cluster.yaml", nil, "cluster.yaml: ok\n"},
		{nil, "cluster.yaml", []string{"RLS-W0105", "RLS-W0104", "RLS-W0104"}, "cluster.yaml: ok (3 allowed: RLS-W0104 x2, RLS-W0105)\n"},
		{[]model.Diagnostic{note}, "c.yaml", []string{"RLS-N0001"}, "c.yaml: ok (1 note, 1 allowed: RLS-N0001)\n"},
		{[]model.Diagnostic{errd}, "c.yaml", []string{"RLS-W0104", "RLS-W0104"}, "c.yaml: 1 error, 2 allowed: RLS-W0104 x2\n"},
		{[]model.Diagnostic{note}, "cluster.yaml", nil, "cluster.yaml: ok (1 note)\n"},
		{[]model.Diagnostic{errd, errd, warn}, "cluster.yaml", nil, "cluster.yaml: 2 errors, 1 warning\n"},
		{[]model.Diagnostic{warn, warn, note, note}, "c.yaml", nil, "c.yaml: ok (2 warnings, 2 notes)\n"},
		{[]model.Diagnostic{errd}, "", nil, "<input>: 1 error\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		SummaryAllowed(&buf, tt.ds, tt.file, tt.allowed)
		if buf.String() != tt.want {
			t.Errorf("Summary(%d diagnostics, %q) = %q, want %q", len(tt.ds), tt.file, buf.String(), tt.want)
		}
	}
}

// TestBadSpans feeds every renderer spans that point nowhere sensible: line
// 0, past the end of the file, past the end of a line, backwards, negative.
func TestBadSpans(t *testing.T) {
	bad := []model.Span{
		{},
		{File: "cluster.yaml"},
		{File: "cluster.yaml", Line: 0, Col: 5, EndLine: 0, EndCol: 9},
		{File: "cluster.yaml", Line: 999, Col: 1, EndLine: 999, EndCol: 2},
		{File: "cluster.yaml", Line: 15, Col: 1, EndLine: 15, EndCol: 1}, // the empty line after the last newline
		{File: "cluster.yaml", Line: 2, Col: 200, EndLine: 2, EndCol: 300},
		{File: "cluster.yaml", Line: 2, Col: 5, EndLine: 1, EndCol: 1},
		{File: "cluster.yaml", Line: 2, Col: -4, EndLine: 2, EndCol: -1},
		{File: "cluster.yaml", Line: 2, Col: 5},
		{File: "cluster.yaml", Line: 3, Col: 5, EndLine: 900, EndCol: 2},
		{File: "empty.yaml", Line: 1, Col: 1, EndLine: 1, EndCol: 5},
		{File: "nowhere.yaml", Line: 4, Col: 1, EndLine: 4, EndCol: 3},
		{Line: 3, Col: 1, EndLine: 3, EndCol: 3},
	}
	src := testSources(t)
	src.Files["empty.yaml"] = nil
	var ds []model.Diagnostic
	for _, sp := range bad {
		ds = append(ds, model.Diagnostic{
			Code: model.CodeInvalidValue, Severity: model.SeverityError, Summary: "bad span",
			Primary: sp, PrimaryLabel: "here",
			Labels: []model.Label{{Span: sp, Message: "and here"}},
			Help:   []model.Fix{{Message: "edit", Edits: []model.Edit{{Span: sp, NewText: "x"}}}},
		})
	}
	for _, s := range []Sources{src, {}, DiskSources()} {
		var buf bytes.Buffer
		Text(&buf, ds, s, true)
		Text(&buf, ds, s, false)
		Short(&buf, ds)
		if err := SARIF(&buf, ds, "test"); err != nil {
			t.Fatal(err)
		}
		if js := JSON(ds); js == nil || len(js) != len(ds) {
			t.Fatalf("JSON returned %d diagnostics for %d", len(js), len(ds))
		}
		for _, sp := range bad {
			s.Text(sp)
			s.Line(sp.File, sp.Line)
		}
	}
}

func TestSourcesLazy(t *testing.T) {
	loads := 0
	s := Sources{Files: map[string][]byte{}, Load: func(name string) ([]byte, error) {
		loads++
		return os.ReadFile(filepath.Join("testdata", name))
	}}
	for range 3 {
		line, ok := s.Line("cluster.yaml", 2)
		if !ok || line != "  num_nodes: 8" {
			t.Fatalf("Line = %q, %v", line, ok)
		}
	}
	if loads != 1 {
		t.Errorf("loaded %d times, want 1", loads)
	}
	if _, ok := s.Line("no-such-file.yaml", 1); ok {
		t.Error("line of a missing file")
	}
	if got, ok := s.Text(model.Span{File: "cluster.yaml", Line: 9, Col: 35, EndLine: 10, EndCol: 11}); !ok || got != "\"eth0\"\n        - " {
		t.Errorf("Text across lines = %q, %v", got, ok)
	}
}

func TestShort(t *testing.T) {
	tests := []struct {
		d    model.Diagnostic
		want string
	}{
		{envConflict(), "cluster.yaml:12:35: error[RLS-E0306]: env var NCCL_SOCKET_IFNAME gets two values on node 3\n"},
		{model.Diagnostic{Code: model.CodeFileRead, Severity: model.SeverityError, Summary: "cannot read", Primary: model.Span{File: "x.yaml"}},
			"x.yaml: error[RLS-E0110]: cannot read\n"},
		{model.Diagnostic{Code: model.WarnUnknownKey, Severity: model.SeverityWarning, Summary: "unknown key", Primary: span("c.yaml", 3, 3, 8)},
			"c.yaml:3:3: warning[RLS-W0101]: unknown key\n"},
		{model.Diagnostic{Code: model.NoteAssumedInventory, Severity: model.SeverityNote, Summary: "assumed"},
			"<input>: note[RLS-N0001]: assumed\n"},
		{model.Diagnostic{Code: model.WarnUnknownKey, Severity: model.SeverityError, Summary: "unknown key", Primary: span("c.yaml", 3, 3, 8), Denied: "--strict"},
			"c.yaml:3:3: error[RLS-W0101]: unknown key (denied by --strict)\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		Short(&buf, []model.Diagnostic{tt.d})
		if buf.String() != tt.want {
			t.Errorf("Short = %q, want %q", buf.String(), tt.want)
		}
	}
}

// TestEditLine: how a help line describes an edit.
func TestEditLine(t *testing.T) {
	src := MapSources(map[string][]byte{"c.yaml": []byte("a: 1\n  - X: 2\nb: 3\n")})
	for _, tc := range []struct {
		e    model.Edit
		want string
	}{
		{model.Edit{Span: span("c.yaml", 1, 4, 5), NewText: "7"}, "line 1: replace `1` with `7`"},
		{model.Edit{Span: span("c.yaml", 1, 5, 5), NewText: " # x"}, "line 1: insert ` # x`"},
		{model.Edit{Span: model.Span{File: "c.yaml", Line: 2, Col: 1, EndLine: 3, EndCol: 1}}, "delete line 2"},
		{model.Edit{Span: span("other.yaml", 2, 1, 2), NewText: "y"}, "other.yaml line 2: replace with `y`"},
	} {
		if got := editLine(tc.e, "c.yaml", src); got != tc.want {
			t.Errorf("editLine(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TextWithoutNotes writes what Text writes of the errors and warnings and
// counts the notes it leaves out.
func TestTextWithoutNotes(t *testing.T) {
	src := testSources(t)
	warn := envConflict()
	warn.Severity = model.SeverityWarning
	note := envConflict()
	note.Severity = model.SeverityNote
	var want, got strings.Builder
	Text(&want, []model.Diagnostic{envConflict(), warn}, src, false)
	n := TextWithoutNotes(&got, []model.Diagnostic{note, envConflict(), note, warn}, src, false)
	if n != 2 || got.String() != want.String() {
		t.Errorf("%d notes left out, want 2; wrote\n%s\nwant\n%s", n, got.String(), want.String())
	}
}
