package grammar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// The rank grammars follow RLinf's parse_rank_config and _parse_rank_map
// (semantics §2): a comma always starts a new part, a part is
// `resources[:processes]`, and each side is one number or one range.
// rlsolve's numbers are ASCII decimal digits only (D3).

var rankLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Int", Pattern: `[0-9]+`},
	{Name: "Word", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Punct", Pattern: `[-,:]`},
	{Name: "Space", Pattern: `[ \t\r\n]+`},
	{Name: "Other", Pattern: `.`},
})

// RangeAST is `a`, `a-b` or a word (`all` where allowed).
type RangeAST struct {
	Pos    lexer.Position
	Word   string  `parser:"(  @Word"`
	Start  *string `parser:" | @Int"`
	End    *string `parser:"   ( \"-\" @Int )? )"`
	EndPos lexer.Position
}

// PartAST is one comma-separated part of a placement string.
type PartAST struct {
	Pos    lexer.Position
	Res    *RangeAST `parser:"@@?"`
	Colon  bool      `parser:"( @\":\""`
	Proc   *RangeAST `parser:"  @@? )?"`
	EndPos lexer.Position
}

// PlacementAST is a whole placement string.
type PlacementAST struct {
	Parts []*PartAST `parser:"@@? ( \",\" @@? )*"`
}

// RankListAST is a rank spec such as `0-3,5` (node_ranks).
type RankListAST struct {
	Items []*RangeAST `parser:"@@? ( \",\" @@? )*"`
}

var (
	placementParser = participle.MustBuild[PlacementAST](participle.Lexer(rankLexer), participle.Elide("Space"))
	rankListParser  = participle.MustBuild[RankListAST](participle.Lexer(rankLexer), participle.Elide("Space"))
)

// SyntaxError is a grammar error at a byte offset of the parsed string.
type SyntaxError struct {
	// Code is the diagnostic code (model.CodeRankSyntax unless more specific).
	Code string
	// Over is set for a number past the bound on ranks.
	Over   *yamlpos.Limit
	Offset int
	Len    int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Diagnostic is the error reported at at, the span of the offending
// characters; context, if any, starts the message (whose ranks they are).
func (e *SyntaxError) Diagnostic(at model.Span, context string) model.Diagnostic {
	if e.Over != nil {
		lim := *e.Over
		lim.What = context + lim.What
		return lim.Diagnostic(at, "")
	}
	code := e.Code
	if code == "" {
		code = model.CodeRankSyntax
	}
	return model.Diagnostic{Code: code, Severity: model.SeverityError, Summary: context + e.Msg, Primary: at}
}

// DiagCode returns the error's diagnostic code.
func (e *SyntaxError) DiagCode() string { return e.Diagnostic(model.Span{}, "").Code }

// Range is a parsed `a` or `a-b` with its byte offsets in the string.
type Range struct {
	All         bool
	Start, End  int
	Off, EndOff int
}

// Part is one parsed placement part.
type Part struct {
	Res, Proc   *Range
	HasColon    bool
	Off, EndOff int
}

func syntaxErr(s string, err error, what string) *SyntaxError {
	var perr participle.Error
	off := len(s)
	if errors.As(err, &perr) {
		off = perr.Position().Offset
	}
	tok := ""
	if off < len(s) {
		_, size := utf8.DecodeRuneInString(s[off:])
		tok = s[off : off+size]
	}
	switch {
	case tok == "":
		return &SyntaxError{Offset: off, Len: 1, Msg: fmt.Sprintf("%s %q ends early: a range needs a number after '-'", what, s)}
	case tok == "-" && wordBefore(s, off) >= 0:
		w := wordBefore(s, off)
		word := strings.TrimSpace(s[w:off])
		return &SyntaxError{Offset: w, Len: len(word), Msg: fmt.Sprintf("invalid %s %q: %q is not a number; expected \"a,b,c-d\" or \"all\"", what, s, word)}
	case tok == "-":
		return &SyntaxError{Offset: off, Len: 1, Msg: fmt.Sprintf("invalid %s %q: unexpected '-' (ranks are non-negative; a range is `a-b`)", what, s)}
	case tok == "_":
		return &SyntaxError{Offset: off, Len: 1, Msg: fmt.Sprintf("invalid %s %q: rlsolve reads decimal digits only (Python's int() would read 1_0 as 10); write the number without '_'", what, s)}
	case tok == ":":
		return &SyntaxError{Offset: off, Len: 1, Msg: fmt.Sprintf("invalid %s %q: a part has at most one ':' (expected resource_ranks:process_ranks)", what, s)}
	}
	return &SyntaxError{Offset: off, Len: 1, Msg: fmt.Sprintf("invalid %s %q: unexpected %q; expected \"a,b,c-d\" or \"all\"", what, s, tok)}
}

// toRange converts a RangeAST, checking number size against maxValue
// before anything is allocated from it.
func toRange(s string, r *RangeAST, what string, allowAll bool, maxValue int) (*Range, *SyntaxError) {
	out := &Range{Off: r.Pos.Offset, EndOff: r.EndPos.Offset}
	if r.Word != "" {
		if allowAll && strings.EqualFold(r.Word, "all") {
			out.All = true
			return out, nil
		}
		return nil, &SyntaxError{Offset: r.Pos.Offset, Len: len(r.Word), Msg: fmt.Sprintf("invalid %s %q: %q is not a number; expected \"a,b,c-d\" or \"all\"", what, s, r.Word)}
	}
	num := func(t string, off int) (int, *SyntaxError) {
		n, err := strconv.Atoi(t)
		if err != nil || n > maxValue || len(t) > 12 {
			over := yamlpos.Limit{What: fmt.Sprintf("a rank in %s %q", what, s), Size: t, Max: maxValue}
			return 0, &SyntaxError{Over: &over, Offset: off, Len: len(t), Msg: over.Error()}
		}
		return n, nil
	}
	var e *SyntaxError
	if out.Start, e = num(*r.Start, r.Pos.Offset); e != nil {
		return nil, e
	}
	out.End = out.Start
	if r.End != nil {
		endOff := r.EndPos.Offset - len(*r.End)
		if out.End, e = num(*r.End, endOff); e != nil {
			return nil, e
		}
	}
	return out, nil
}

// ParsePlacement parses a placement string into parts. Empty parts are
// skipped, as in RLinf. Semantic checks (ranges, order, divisibility) are
// the strategies' job, since they need the node groups.
func ParsePlacement(s string, maxValue int) ([]Part, *SyntaxError) {
	ast, err := placementParser.ParseString("", s)
	if err != nil {
		return nil, syntaxErr(s, err, "placement")
	}
	var parts []Part
	for _, p := range ast.Parts {
		if p == nil || (p.Res == nil && !p.Colon) {
			continue
		}
		part := Part{HasColon: p.Colon, Off: p.Pos.Offset, EndOff: p.EndPos.Offset}
		if p.Res != nil {
			r, e := toRange(s, p.Res, "placement", true, maxValue)
			if e != nil {
				return nil, e
			}
			part.Res = r
		}
		if p.Proc != nil {
			r, e := toRange(s, p.Proc, "placement", false, maxValue)
			if e != nil {
				if strings.EqualFold(p.Proc.Word, "all") {
					e.Msg = fmt.Sprintf("the process ranks (after ':') cannot be 'all' in placement %q; give a range such as 0-7", s)
					e.Code = model.CodeProcessAll
				}
				return nil, e
			}
			part.Proc = r
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// ParseRankList parses a rank spec such as node_ranks. `all` (any case, the
// whole string, unstripped) returns all=true.
func ParseRankList(s string, maxValue int) (ranges []Range, all bool, err *SyntaxError) {
	if strings.EqualFold(s, "all") {
		return nil, true, nil
	}
	ast, perr := rankListParser.ParseString("", s)
	if perr != nil {
		return nil, false, syntaxErr(s, perr, "rank spec")
	}
	for _, it := range ast.Items {
		if it == nil {
			continue
		}
		r, e := toRange(s, it, "rank spec", false, maxValue)
		if e != nil {
			return nil, false, e
		}
		ranges = append(ranges, *r)
	}
	return ranges, false, nil
}

// wordBefore returns the offset of the word that ends just before off
// (spaces allowed between), or -1.
func wordBefore(s string, off int) int {
	i := off
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	j := i
	for j > 0 && (s[j-1] == '_' || s[j-1] >= 'a' && s[j-1] <= 'z' || s[j-1] >= 'A' && s[j-1] <= 'Z' || s[j-1] >= '0' && s[j-1] <= '9') {
		j--
	}
	if j == i || s[j] >= '0' && s[j] <= '9' {
		return -1
	}
	return j
}
