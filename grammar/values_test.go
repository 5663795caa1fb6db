package grammar_test

import (
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

func TestValues(t *testing.T) {
	type read func(y *yamlpos.Doc) (any, bool)
	at := func(f func(y *yamlpos.Doc) (any, bool)) read { return f }
	positive := at(func(y *yamlpos.Doc) (any, bool) { return grammar.PositiveInt(y, y.Path("v"), "v", 100) })
	number := at(func(y *yamlpos.Doc) (any, bool) { return grammar.Number(y, y.Path("v"), "v") })
	boolean := at(func(y *yamlpos.Doc) (any, bool) { return grammar.Bool(y, y.Path("v"), "v") })
	str := at(func(y *yamlpos.Doc) (any, bool) {
		v, ok := grammar.String(y, y.Path("v"), "v")
		return v.Py.Str, ok
	})
	for _, c := range []struct {
		name, yaml string
		read       read
		want       any
		code       string // the one diagnostic, "" for none
	}{
		{"int", "v: 8", positive, 8, ""},
		{"int interpolated", "a: 4\nv: ${a}", positive, 4, ""},
		{"int null", "v: null", positive, 0, model.CodeMissingField},
		{"int zero", "v: 0", positive, 0, model.CodeInvalidValue},
		{"int string", "v: eight", positive, 0, model.CodeWrongType},
		{"int past max", "v: 101", positive, 0, model.CodeLimit},
		{"int YAML 1.1", "v: 1_0", positive, 0, model.CodeYAML11},
		{"number int", "v: 3", number, 3.0, ""},
		{"number float", "v: 2.5", number, 2.5, ""},
		{"number bool", "v: true", number, 0.0, model.CodeWrongType},
		{"number inf", "v: .inf", number, 0.0, model.CodeWrongType},
		{"number ???", "v: ???", number, 0.0, model.CodeMandatoryMissing},
		{"bool", "v: false", boolean, false, ""},
		{"bool number", "v: 1", boolean, false, model.CodeWrongType},
		{"bool null", "v: ~", boolean, false, model.CodeMissingField},
		{"string", "v: reasoning", str, "reasoning", ""},
		{"string quoted null", "v: 'null'", str, "null", ""},
		{"string list", "v: [a]", str, "", model.CodeWrongType},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := yamlpos.Parse("t.yaml", []byte(c.yaml), yamlpos.Limits{MaxFileBytes: 1 << 20, MaxDepth: 10, MaxNodes: 100, MaxStringBytes: 100})
			got, ok := c.read(y)
			if ok != (c.code == "") || ok && got != c.want {
				t.Errorf("got %v, %v; want %v (%v)", got, ok, c.want, y.Diags)
			}
			switch {
			case c.code == "" && len(y.Diags) > 0:
				t.Errorf("unexpected %v", y.Diags)
			case c.code != "" && (len(y.Diags) != 1 || y.Diags[0].Code != c.code || !y.Diags[0].Primary.Known()):
				t.Errorf("diagnostics %v, want one located %s", y.Diags, c.code)
			}
		})
	}
}
