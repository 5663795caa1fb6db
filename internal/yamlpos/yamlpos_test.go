package yamlpos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

var testLimits = Limits{MaxFileBytes: 1 << 20, MaxDepth: 32, MaxNodes: 10000, MaxStringBytes: 256}

func parse(t *testing.T, src string) *Doc {
	t.Helper()
	d := Parse("t.yaml", []byte(src), testLimits)
	if d.Root == nil {
		t.Fatalf("does not parse: %v", d.Diags)
	}
	return d
}

// value reads the scalar at a dotted path.
func value(t *testing.T, d *Doc, path string) (Value, bool) {
	t.Helper()
	n := d.Path(path)
	if n == nil {
		t.Fatalf("no key %s", path)
	}
	return d.Scalar(n, path)
}

func codes(ds model.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// YAML 1.1 as PyYAML reads plain scalars, and OmegaConf's (and Hydra's)
// own typing of resolver arguments and overrides: they disagree on 0x10,
// 010, 1:0 and yes, which is why both exist.
func TestResolvePlainAndOmega(t *testing.T) {
	for _, tc := range []struct {
		text             string
		yaml, omega      Kind
		yamlStr, omegaSt string
	}{
		{"10", Int, Int, "10", "10"},
		{"1_0", Int, Int, "10", "10"},
		{"0x10", Int, Str, "16", "0x10"},
		{"010", Int, Str, "8", "010"},
		{"1:0", Int, Str, "60", "1:0"},
		{"yes", Bool, Str, "True", "yes"},
		{"TrUe", Str, Bool, "TrUe", "True"},
		{"null", Null, Null, "None", "None"},
		{"NuLL", Str, Null, "NuLL", "None"},
		{"1e5", Str, Float, "1e5", "100000.0"},
		{"1.5", Float, Float, "1.5", "1.5"},
		{"0-7", Str, Str, "0-7", "0-7"},
	} {
		y, o := ResolvePlain(tc.text), ResolveOmega(tc.text)
		if y.Kind != tc.yaml || y.Str != tc.yamlStr {
			t.Errorf("ResolvePlain(%q) = %v %q, want %v %q", tc.text, y.Kind, y.Str, tc.yaml, tc.yamlStr)
		}
		if o.Kind != tc.omega || o.Str != tc.omegaSt {
			t.Errorf("ResolveOmega(%q) = %v %q, want %v %q", tc.text, o.Kind, o.Str, tc.omega, tc.omegaSt)
		}
	}
}

// OmegaConf interpolations: a lone reference keeps its target's type,
// text around one makes a string, and RLinf's resolvers compute as Python.
func TestInterpolationValues(t *testing.T) {
	d := parse(t, `
a: {tp: 4, seq: 1024, prompt: 256, flag: false, name: actor, neg: -7, f: 1.5}
env: {home: "${oc.env:HOME_X}", other: "${oc.env:UNSET_X,/tmp}", none: "${oc.env:UNSET_X,null}"}
r:
  whole: ${a.tp}
  text: "${a.name}-${a.tp}"
  sub: ${subtract:${a.seq}, ${a.prompt}}
  mul: ${multiply:${a.tp},3}
  div: ${int_div:${multiply:${a.tp}, ${a.seq}}, 3}
  floor: ${int_div:${a.neg}, 2}
  fdiv: ${int_div:${a.f}, 1}
  not: ${not:${a.flag}}
  notstr: ${not:"False"}
  sel: ${oc.select:a.tp,9}
  seldef: ${oc.select:a.nope,9}
  dec: ${oc.decode:"12"}
  esc: \${a.tp}
`)
	d.Getenv = func(k string) (string, bool) {
		if k == "HOME_X" {
			return "/home/x", true
		}
		return "", false
	}
	for _, tc := range []struct {
		path string
		kind Kind
		str  string
	}{
		{"r.whole", Int, "4"},
		{"r.text", Str, "actor-4"},
		{"r.sub", Int, "768"},
		{"r.mul", Int, "12"},
		{"r.div", Int, "1365"},
		{"r.floor", Int, "-4"},
		{"r.fdiv", Float, "1.0"},
		{"r.not", Bool, "True"},
		{"r.notstr", Bool, "False"},
		{"r.sel", Int, "4"},
		{"r.seldef", Int, "9"},
		{"r.dec", Int, "12"},
		{"r.esc", Str, "${a.tp}"},
		{"env.home", Str, "/home/x"},
		{"env.other", Str, "/tmp"},
		{"env.none", Null, "None"},
	} {
		v, ok := value(t, d, tc.path)
		if !ok || v.Py.Kind != tc.kind || v.Py.Str != tc.str {
			t.Errorf("%s = %v %q (ok %v), want %v %q; %v", tc.path, v.Py.Kind, v.Py.Str, ok, tc.kind, tc.str, d.Diags)
		}
	}
	if len(d.Diags) != 0 {
		t.Errorf("diagnostics: %v", d.Diags)
	}
}

// What cannot be resolved is reported at the scalar, with the whole
// interpolation quoted (commas and nested references included).
func TestInterpolationErrors(t *testing.T) {
	for _, tc := range []struct{ src, code, says string }{
		{"x: ${nope.key}\n", model.CodeUnresolvedInterp, "`${nope.key}`, which is not in this config"},
		{"a: 1\nx: ${torch.dtype:${a}, bfloat16}\n", model.CodeUnresolvedInterp, "`${torch.dtype:${a}, bfloat16}`"},
		{"a: 1\nx: ${subtract:${a}, foo}\n", model.CodeUnresolvedInterp, "`${subtract:${a}, foo}` applies subtract to the string \"foo\""},
		{"a: 1\nx: ${int_div:${a}, 0}\n", model.CodeUnresolvedInterp, "divides by zero"},
		{"x: ${oc.env:SURELY_UNSET_VAR_X}\n", model.CodeUnresolvedInterp, "SURELY_UNSET_VAR_X, which is not set"},
		{"x: ${.sibling}\n", model.CodeUnresolvedInterp, "cannot resolve"},
		{"x: ${x}\n", model.CodeUnresolvedInterp, "cycle"},
		{"x: ${a\n", model.CodeUnresolvedInterp, "not closed"},
		{"a: ???\nx: ${a}\n", model.CodeMandatoryMissing, "`???`"},
	} {
		d := parse(t, tc.src)
		if _, ok := value(t, d, "x"); ok {
			t.Errorf("%q resolved", tc.src)
			continue
		}
		if len(d.Diags) != 1 || d.Diags[0].Code != tc.code || !strings.Contains(d.Diags[0].Summary, tc.says) {
			t.Errorf("%q: %v, want one %s saying %q", tc.src, d.Diags, tc.code, tc.says)
		}
	}
}

// An interpolation that points at a position inside the scalar underlines
// the interpolation itself.
func TestInterpolationSpan(t *testing.T) {
	d := parse(t, "x: \"pre-${nope}\"\n")
	value(t, d, "x")
	if len(d.Diags) != 1 || d.Diags[0].Primary.Col != 9 || d.Diags[0].Primary.EndCol != 16 {
		t.Errorf("%+v, want 1:9-16", d.Diags)
	}
}

// References to references cannot multiply a small file past the string
// limit.
func TestInterpolationBounded(t *testing.T) {
	src := "a: " + strings.Repeat("x", 100) + "\nb: ${a}${a}\nc: ${b}${b}\nd: ${c}${c}\n"
	d := parse(t, src)
	if _, ok := value(t, d, "d"); ok {
		t.Fatal("expanded past the limit")
	}
	if got := codes(d.Diags); len(got) == 0 || got[len(got)-1] != model.CodeLimit {
		t.Errorf("codes %v, want a limit", got)
	}
}

// `???` is OmegaConf's mandatory value: an error where it is read, once.
func TestMissingValue(t *testing.T) {
	d := parse(t, "a: ???\nb: '???'\n")
	for i := 0; i < 2; i++ {
		if _, ok := value(t, d, "a"); ok {
			t.Fatal("??? read as a value")
		}
	}
	value(t, d, "b")
	if got := codes(d.Diags); len(got) != 2 || got[0] != model.CodeMandatoryMissing || d.Diags[0].Primary.Line != 1 || d.Diags[0].Primary.Col != 4 {
		t.Errorf("%v", d.Diags)
	}
}

// Nodes read from another file point into that file; the document's
// first file stays the default.
func TestSpansAcrossSources(t *testing.T) {
	d := parse(t, "a: 1\n")
	root := d.Add("other.yaml", []byte("# comment\nb:   \"x\"\n"))
	if root == nil {
		t.Fatalf("%v", d.Diags)
	}
	b := Deref(root.Content[1])
	if sp := d.Span(b); sp.File != "other.yaml" || sp.Line != 2 || sp.Col != 7 || sp.EndCol != 8 {
		t.Errorf("span %+v, want other.yaml:2:7-8 (inside the quotes)", sp)
	}
	if sp := d.Span(d.Path("a")); sp.File != "t.yaml" || sp.Line != 1 || sp.Col != 4 {
		t.Errorf("span %+v", sp)
	}
	src := d.AddSource("<command line>", []byte("a=2 b=3"))
	n := Deref(root.Content[0])
	d.Place(n, src)
	if sp := d.Span(n); sp.File != "<command line>" {
		t.Errorf("placed node span %+v", sp)
	}
}

// The node budget covers every file a document reads.
func TestNodeBudgetShared(t *testing.T) {
	lim := testLimits
	lim.MaxNodes = 30
	d := Parse("t.yaml", []byte("a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"), lim)
	if d.Root == nil {
		t.Fatal(d.Diags)
	}
	if d.Add("b.yaml", []byte("b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]\n")) != nil {
		t.Fatal("second file read past the shared budget")
	}
	if got := codes(d.Diags); len(got) != 1 || got[0] != model.CodeLimit {
		t.Errorf("codes %v", got)
	}
}

// TestItemLine: the line a block list item holds alone, and the forms
// where deleting a line would not delete just the item.
func TestItemLine(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // line:col-endLine:endCol, "" for none
	}{
		{"block item", "l:\n  - A: 1\n  - B: \"2\"  # why\n", "3:1-4:1"},
		{"last line without newline", "l:\n  - A: 1\n  - B: 2", "3:1-3:9"},
		{"CRLF", "l:\r\n  - A: 1\r\n  - B: 2\r\n", "3:1-4:1"},
		{"flow list", "l: [{A: 1}, {B: 2}]\n", ""},
		{"dash alone on its line", "l:\n  - A: 1\n  -\n    B: 2\n", ""},
		{"value over two lines", "l:\n  - A: 1\n  - B: \"two\n      words\"\n", ""},
		{"something after the value", "l:\n  - A: 1\n  - B: 2 # ok\n", "3:1-4:1"},
		{"two keys", "l:\n  - A: 1\n  - B: 2\n    C: 3\n", ""},
		{"block scalar", "l:\n  - A: 1\n  - B: |\n      x\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := parse(t, tc.src)
			items := d.Mapping(d.Root)[0].V.Content
			sp, ok := d.ItemLine(items[len(items)-1])
			got := ""
			if ok {
				got = fmt.Sprintf("%d:%d-%d:%d", sp.Line, sp.Col, sp.EndLine, sp.EndCol)
			}
			if got != tc.want {
				t.Errorf("ItemLine = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestOneDocument: PyYAML's loader refuses a stream of several documents,
// even an empty second one; a leading `---` or a closing `...` is one
// document.
func TestOneDocument(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // the error's line and text, "" when it parses
	}{
		{"a: 1\n", ""},
		{"---\na: 1\n", ""},
		{"a: 1\n...\n", ""},
		{"a: 1\n---\nb: 2\n", "2: t.yaml holds more than one YAML document"},
		{"a: 1\n---\n", "2: t.yaml holds more than one YAML document"},
		{"a: 1\n---\n[\n", "3: YAML syntax error"},
		{"# only a comment\n", "0: t.yaml holds no YAML document"},
	} {
		d := Parse("t.yaml", []byte(tc.src), testLimits)
		got := ""
		if len(d.Diags) > 0 {
			got = fmt.Sprintf("%d: %s", d.Diags[0].Primary.Line, d.Diags[0].Summary)
		}
		if tc.want == "" && (got != "" || d.Root == nil) || tc.want != "" && (!strings.HasPrefix(got, tc.want) || d.Root != nil) {
			t.Errorf("%q: %q, root %v; want %q", tc.src, got, d.Root != nil, tc.want)
		}
	}
}

// TestMergeIntoItself: a mapping that merges itself (directly or through
// a mapping it merges) is read once and reported, not recursed into
// forever; a mapping merged twice side by side is no cycle.
func TestMergeIntoItself(t *testing.T) {
	for src, want := range map[string]int{
		"a: &a {<<: *a, x: 1}\n":                     1,
		"b: &b {y: 2}\na: &a {<<: [*b, *a], x: 1}\n": 1,
		"b: &b {y: 2}\na: {<<: [*b, *b], x: 1}\n":    0,
	} {
		d := parse(t, src)
		es := d.Mapping(d.Path("a"))
		if got := strings.Count(fmt.Sprint(codes(d.Diags)), "RLS-E0101"); got != want || len(es) == 0 || es[0].Key != "x" {
			t.Errorf("%q: %d errors %v, entries %v; want %d errors and x first", src, got, d.Diags, es, want)
		}
	}
}
