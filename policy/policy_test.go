package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func diags() model.Diagnostics {
	return model.Diagnostics{
		{Code: model.CodeRankOutOfRange, Severity: model.SeverityError, Summary: "e"},
		{Code: model.WarnEnvNotApplied, Severity: model.SeverityWarning, Summary: "w105"},
		{Code: model.WarnProcessOffset, Severity: model.SeverityWarning, Summary: "w104"},
		{Code: model.NoteAssumedInventory, Severity: model.SeverityNote, Summary: "n1"},
	}
}

func flags(t *testing.T, allow, deny []string, strict *bool) Settings {
	t.Helper()
	s, err := FromFlags(allow, deny, strict)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func comments(t *testing.T, text string) Settings {
	t.Helper()
	s, ds := Comments("c.yaml", []byte(text))
	if len(ds) > 0 {
		t.Fatalf("comments %q: %v", text, ds)
	}
	return s
}

func file(t *testing.T, text string) Settings {
	t.Helper()
	s, ds := ReadFile(".rlsolve.yaml", []byte(text))
	if len(ds) > 0 {
		t.Fatalf("file %q: %v", text, ds)
	}
	return s
}

var on, off = true, false

// TestApply: what each combination of sources keeps, as "severity code
// (denied by)" lines, and how many it allows away.
func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       func(t *testing.T) *Policy
		want    []string
		allowed []string
	}{
		{"nothing changes nothing", func(t *testing.T) *Policy { return New(Settings{}, false) },
			[]string{"error RLS-E0203", "warning RLS-W0105", "warning RLS-W0104", "note RLS-N0001"}, nil},
		{"nil policy", func(t *testing.T) *Policy { return nil },
			[]string{"error RLS-E0203", "warning RLS-W0105", "warning RLS-W0104", "note RLS-N0001"}, nil},
		{"--allow drops a warning", func(t *testing.T) *Policy { return New(flags(t, []string{"w0105"}, nil, nil), false) },
			[]string{"error RLS-E0203", "warning RLS-W0104", "note RLS-N0001"}, []string{"RLS-W0105"}},
		{"--deny makes a warning and a note errors", func(t *testing.T) *Policy {
			return New(flags(t, nil, []string{"RLS-W0104,N0001"}, nil), false)
		}, []string{"error RLS-E0203", "warning RLS-W0105", "error RLS-W0104 (--deny RLS-W0104)", "error RLS-N0001 (--deny RLS-N0001)"}, nil},
		{"--strict denies warnings, not notes", func(t *testing.T) *Policy { return New(flags(t, nil, nil, &on), false) },
			[]string{"error RLS-E0203", "error RLS-W0105 (--strict)", "error RLS-W0104 (--strict)", "note RLS-N0001"}, nil},
		{"--quiet keeps errors only", func(t *testing.T) *Policy { return New(flags(t, nil, []string{"W0104"}, nil), true) },
			[]string{"error RLS-E0203", "error RLS-W0104 (--deny RLS-W0104)"}, nil},
		{"a comment's allow beats --strict", func(t *testing.T) *Policy {
			return New(flags(t, nil, nil, &on), false).Below(comments(t, "# rlsolve: allow RLS-W0105 -- the agent needs none\n"))
		}, []string{"error RLS-E0203", "error RLS-W0104 (--strict)", "note RLS-N0001"}, []string{"RLS-W0105"}},
		{"--deny beats the file's allow", func(t *testing.T) *Policy {
			return New(flags(t, nil, []string{"W0105"}, nil), false).Below(file(t, "allow: [RLS-W0105]\n"))
		}, []string{"error RLS-E0203", "error RLS-W0105 (--deny RLS-W0105)", "warning RLS-W0104", "note RLS-N0001"}, nil},
		{"the file's deny beats a comment's allow", func(t *testing.T) *Policy {
			return New(Settings{}, false).Below(file(t, "deny: W0105\n"), comments(t, "a: 1 # rlsolve: allow W0105\n"))
		}, []string{"error RLS-E0203", "error RLS-W0105 (deny RLS-W0105 in .rlsolve.yaml:1:7)", "warning RLS-W0104", "note RLS-N0001"}, nil},
		{"--strict=false beats the file's strict", func(t *testing.T) *Policy {
			return New(flags(t, nil, nil, &off), false).Below(file(t, "strict: true\n"))
		}, []string{"error RLS-E0203", "warning RLS-W0105", "warning RLS-W0104", "note RLS-N0001"}, nil},
		{"the file's strict", func(t *testing.T) *Policy {
			return New(Settings{}, false).Below(file(t, "strict: true\nallow: [W0104]\n"))
		},
			[]string{"error RLS-E0203", "error RLS-W0105 (strict: true in .rlsolve.yaml:1:9)", "note RLS-N0001"}, []string{"RLS-W0104"}},
		{"a comment's strict", func(t *testing.T) *Policy { return New(Settings{}, false).Below(comments(t, "#rlsolve: strict\n")) },
			[]string{"error RLS-E0203", "error RLS-W0105 (`# rlsolve: strict` (c.yaml:1:2))", "error RLS-W0104 (`# rlsolve: strict` (c.yaml:1:2))", "note RLS-N0001"}, nil},
		{"denying an error changes nothing", func(t *testing.T) *Policy { return New(flags(t, nil, []string{"E0203"}, nil), false) },
			[]string{"error RLS-E0203", "warning RLS-W0105", "warning RLS-W0104", "note RLS-N0001"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, allowed := tc.p(t).Apply(diags())
			var lines []string
			for _, d := range got {
				l := d.Severity.String() + " " + d.Code
				if d.Denied != "" {
					l += " (" + d.Denied + ")"
				}
				lines = append(lines, l)
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") || strings.Join(allowed, ",") != strings.Join(tc.allowed, ",") {
				t.Errorf("got (allowed %v)\n%s\nwant (allowed %v)\n%s", allowed, strings.Join(lines, "\n"), tc.allowed, strings.Join(tc.want, "\n"))
			}
		})
	}
}

// An error is never allowed away, whatever a source says.
func TestErrorsStay(t *testing.T) {
	p := New(Settings{Codes: []Setting{{Code: model.CodeRankOutOfRange, Level: Allow, By: "test"}}}, true)
	got, n := p.Apply(diags())
	if len(got) != 1 || got[0].Code != model.CodeRankOutOfRange || len(n) != 0 {
		t.Errorf("got %v, allowed %v", got, n)
	}
}

func TestFromFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		allow, deny []string
		want        string
	}{
		{[]string{"E0203"}, nil, "errors cannot be allowed"},
		{[]string{"W0150"}, nil, `unknown diagnostic code "W0150": did you mean`},
		{[]string{"nonsense-code-that-is-long"}, nil, "'rlsolve explain' lists them"},
		{[]string{"W0105"}, []string{"rls-w0105"}, "both allowed and denied"},
	} {
		if _, err := FromFlags(tc.allow, tc.deny, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FromFlags(%v, %v) = %v, want %q", tc.allow, tc.deny, err, tc.want)
		}
	}
	s, err := FromFlags([]string{"w0105", "RLS-W0105", " rls-w0105 "}, nil, nil)
	if err != nil || len(s.Codes) != 1 || s.Codes[0].By != "--allow RLS-W0105" {
		t.Errorf("a code repeated: %+v, %v", s, err)
	}
}

// TestComments: where settings are read, and the located errors of
// malformed ones.
func TestComments(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		codes      []string // CODE=level
		strict     bool
		err        string // the error's summary, with its column
	}{
		{"a line of its own", "# rlsolve: allow RLS-W0105\n", []string{"RLS-W0105=allow"}, false, ""},
		{"after a value, with a reason", "a: 1  # rlsolve: deny w0104, n0001 -- CI needs an inventory\n", []string{"RLS-W0104=deny", "RLS-N0001=deny"}, false, ""},
		{"CRLF", "a: 1 #rlsolve: strict\r\n", nil, true, ""},
		{"inside double quotes is no comment", "a: \"x # rlsolve: allow W0105\"\n", nil, false, ""},
		{"inside single quotes is no comment", "a: 'it''s # rlsolve: bogus'\n", nil, false, ""},
		{"a # without a space before is no comment", "a: x#rlsolve: bogus\n", nil, false, ""},
		{"another comment", "# rlsolve is great\n# nothing: here\n", nil, false, ""},
		{"unknown setting", "\n  # rlsolve: alow W0105\n", nil, false, "2:5: `# rlsolve: alow W0105`: unknown setting \"alow\""},
		{"unknown code", "# rlsolve: deny W0150\n", nil, false, "1:3: unknown diagnostic code \"W0150\""},
		{"an error allowed", "# rlsolve: allow E0203\n", nil, false, "1:3: RLS-E0203 is an error"},
		{"no code", "# rlsolve: deny\n", nil, false, "1:3: `# rlsolve: deny` names no code"},
		{"strict with codes", "# rlsolve: strict W0105\n", nil, false, "1:3: `# rlsolve: strict` takes no codes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ds := Comments("c.yaml", []byte(tc.text))
			if tc.err != "" {
				if len(ds) != 1 || ds[0].Code != model.CodePolicy || !strings.Contains(ds[0].Primary.String()+": "+ds[0].Summary, tc.err) {
					t.Fatalf("got %v, want an error %q", ds, tc.err)
				}
				return
			}
			if len(ds) > 0 {
				t.Fatalf("unexpected %v", ds)
			}
			if got := levels(s); got != strings.Join(tc.codes, " ") || (s.Strict != nil) != tc.strict {
				t.Errorf("got %v strict=%v, want %v strict=%v", got, s.Strict != nil, tc.codes, tc.strict)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		codes      []string
		err        string
		fix        string
	}{
		{"lists", "allow: [RLS-W0105, w0104]\ndeny:\n  - N0001\nstrict: false\n", []string{"RLS-W0105=allow", "RLS-W0104=allow", "RLS-N0001=deny"}, "", ""},
		{"one code", "deny: RLS-W0105\n", []string{"RLS-W0105=deny"}, "", ""},
		{"only comments", "# nothing yet\n", nil, "", ""},
		{"unknown key", "alow: [W0105]\n", nil, "1:1: unknown setting \"alow\"; .rlsolve.yaml takes", "allow"},
		{"not a mapping", "- W0105\n", nil, "must be a mapping", ""},
		{"bad code", "allow: [W0105, Q1]\n", nil, "1:16: unknown diagnostic code \"Q1\"", ""},
		{"an error allowed", "allow: E0301\n", nil, "1:8: RLS-E0301 is an error", ""},
		{"strict not a boolean", "strict: maybe\n", nil, "strict", ""},
		{"duplicate key", "allow: W0105\nallow: W0104\n", nil, "duplicate key", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ds := ReadFile(".rlsolve.yaml", []byte(tc.text))
			if tc.err != "" {
				if len(ds) == 0 || !strings.Contains(ds[0].Primary.String()+": "+ds[0].Summary, tc.err) {
					t.Fatalf("got %v, want an error %q", ds, tc.err)
				}
				if tc.fix != "" && (len(ds[0].Help) == 0 || len(ds[0].Help[0].Edits) == 0 || ds[0].Help[0].Edits[0].NewText != tc.fix) {
					t.Errorf("no fix %q: %+v", tc.fix, ds[0].Help)
				}
				return
			}
			if len(ds) > 0 {
				t.Fatalf("unexpected %v", ds)
			}
			if got := levels(s); got != strings.Join(tc.codes, " ") {
				t.Errorf("got %v, want %v", got, tc.codes)
			}
		})
	}
}

// FuzzComments: any text gives settings or located errors, never a
// panic, and every error points into the text.
func FuzzComments(f *testing.F) {
	f.Add("# rlsolve: allow RLS-W0105 -- why\na: 'x # y' # rlsolve: deny W0104\n")
	f.Add("a: \"\\\" # rlsolve: strict\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		_, ds := Comments("f.yaml", []byte(text))
		lines := strings.Count(text, "\n") + 1
		for _, d := range ds {
			if d.Primary.Line < 1 || d.Primary.Line > lines || d.Primary.Col < 1 {
				t.Fatalf("%q: error outside the text: %v", text, d.Primary)
			}
		}
	})
}

// FuzzReadFile: any .rlsolve.yaml gives settings or located errors.
func FuzzReadFile(f *testing.F) {
	f.Add("allow: [RLS-W0105]\ndeny: W0104\nstrict: true\n")
	f.Add("strict: [1, {a: b}]\nallow: &x [*x]\n")
	f.Add("inventory: ../cluster.yaml\n")
	f.Add("inventory: [a]\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, _ := ReadFile(".rlsolve.yaml", []byte(text))
		for _, c := range s.Codes {
			if c.Level == Allow && IsError(c.Code) {
				t.Fatalf("%q: allows error %s", text, c.Code)
			}
		}
	})
}

// TestCommentFixes: a mistyped word or code gets the nearest as an edit at
// its exact place; an error code allowed gets none.
func TestCommentFixes(t *testing.T) {
	for _, tc := range []struct{ text, fix string }{
		{"a: 1 # rlsolve: alow W0105 -- why\n", "1:17-1:21 allow"},
		{"#rlsolve:  deny  W0104, W0150\n", "1:25-1:30 RLS-W0120"},
		{"# rlsolve: allow E0203\n", ""},
	} {
		_, ds := Comments("c.yaml", []byte(tc.text))
		if len(ds) != 1 {
			t.Fatalf("%q: %v", tc.text, ds)
		}
		got := ""
		if f := ds[0].Help[0]; len(f.Edits) == 1 {
			e := f.Edits[0]
			got = fmt.Sprintf("%d:%d-%d:%d %s", e.Span.Line, e.Span.Col, e.Span.EndLine, e.Span.EndCol, e.NewText)
		}
		if got != tc.fix {
			t.Errorf("%q: fix %q, want %q", tc.text, got, tc.fix)
		}
	}
}

// levels lists settings as "CODE=level", in order.
func levels(s Settings) string {
	var out []string
	for _, c := range s.Codes {
		out = append(out, c.Code+"="+c.Level.String())
	}
	return strings.Join(out, " ")
}

func TestBeside(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(dir string) error
		code  string // "" : no diagnostic
		read  bool
	}{
		{"absent", func(string) error { return nil }, "", false},
		{"read", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, FileName), []byte("deny: [W0105]\n"), 0o644)
		}, "", true},
		{"a directory", func(dir string) error { return os.Mkdir(filepath.Join(dir, FileName), 0o755) }, model.CodeFileRead, false},
		{"too large", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, FileName), []byte("# "+strings.Repeat("x", maxFileBytes)+"\n"), 0o644)
		}, model.CodeLimit, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.setup(dir); err != nil {
				t.Fatal(err)
			}
			s, _, _, ds := Beside(filepath.Join(dir, "config.yaml"))
			switch {
			case c.code == "" && len(ds) > 0:
				t.Fatalf("unexpected %v", ds)
			case c.code != "" && (len(ds) != 1 || ds[0].Code != c.code):
				t.Fatalf("got %v, want one %s", ds, c.code)
			}
			if got := len(s.Codes) > 0; got != c.read {
				t.Errorf("settings read: %v, want %v (%+v)", got, c.read, s)
			}
		})
	}
}

// TestFind: the nearest .rlsolve.yaml upward, stopping at the folder that
// holds .git; inventory: is resolved against the settings file's folder.
func TestFind(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		name := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(FileName, "inventory: outside.yaml\n")
	write("repo/.git/HEAD", "ref: refs/heads/main\n")
	write("repo/"+FileName, "inventory: inv/cluster.yaml\n")
	write("repo/a/b/c.yaml", "")
	write("other/d/e.yaml", "")
	for _, c := range []struct{ config, want string }{
		{"repo/a/b/c.yaml", filepath.Join(root, "repo", "inv", "cluster.yaml")},
		{"other/d/e.yaml", filepath.Join(root, "outside.yaml")},
	} {
		s, _, _, ds := Beside(filepath.Join(root, c.config))
		if len(ds) > 0 || s.Inventory != c.want {
			t.Errorf("%s: inventory %q (%v), want %q", c.config, s.Inventory, ds, c.want)
		}
	}
	write("repo/a/"+FileName, "allow: [W0104]\n")
	if s, _, _, _ := Beside(filepath.Join(root, "repo/a/b/c.yaml")); s.Inventory != "" || len(s.Codes) != 1 {
		t.Errorf("the nearest file wins whole: %+v", s)
	}
}

// $RLSOLVE_INVENTORY wins over the .rlsolve.yaml beside the config.
func TestDefaultInventory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("inventory: cluster.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "train.yaml")
	none := func(string) string { return "" }
	if got := DefaultInventory(config, none); got != filepath.Join(dir, "cluster.yaml") && got != "cluster.yaml" {
		t.Errorf("beside: %q", got)
	}
	env := func(k string) string {
		if k == "RLSOLVE_INVENTORY" {
			return "env.yaml"
		}
		return ""
	}
	if got := DefaultInventory(config, env); got != "env.yaml" {
		t.Errorf("with $RLSOLVE_INVENTORY: %q", got)
	}
	if got := DefaultInventory(filepath.Join(t.TempDir(), "x.yaml"), none); got != "" {
		t.Errorf("no settings file: %q", got)
	}
}
