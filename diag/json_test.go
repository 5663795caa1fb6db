package diag

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func TestCheckEnvelopeEmpty(t *testing.T) {
	for _, ds := range [][]model.Diagnostic{nil, {}} {
		b, err := json.Marshal(CheckEnvelope(true, ds))
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"format_version":"1","valid":true,"diagnostics":[]}`; string(b) != want {
			t.Errorf("got %s, want %s", b, want)
		}
		b, _ = json.Marshal(JSON(ds))
		if string(b) != "[]" {
			t.Errorf("JSON(empty) = %s, want []", b)
		}
	}
}

func TestCheckEnvelope(t *testing.T) {
	d := envConflict()
	d.Labels = append(d.Labels, model.Label{Message: "RLinf's rule is per group"})
	noFix := model.Diagnostic{Code: model.CodeFileRead, Severity: model.SeverityError, Summary: "cannot read", Primary: model.Span{File: "x.yaml"}}
	b, err := json.Marshal(CheckEnvelope(false, []model.Diagnostic{d, noFix}))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		FormatVersion string `json:"format_version"`
		Valid         *bool  `json:"valid"`
		Diagnostics   []struct {
			Code, Severity, Summary, Why string
			Range                        *struct {
				Filename   string
				Start, End *struct{ Line, Column int }
			}
			Core []struct {
				Message string
				Range   *struct {
					Filename   string
					Start, End struct{ Line, Column int }
				}
			}
			Fixes []struct {
				Message string
				Edits   []struct {
					Range   struct{ Start, End struct{ Line, Column int } }
					NewText string `json:"new_text"`
				}
			}
		}
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	if env.FormatVersion != "1" || env.Valid == nil || *env.Valid || len(env.Diagnostics) != 2 {
		t.Fatalf("envelope = %s", b)
	}
	got := env.Diagnostics[0]
	if got.Code != "RLS-E0306" || got.Severity != "error" || got.Summary != d.Summary || got.Why != d.Why {
		t.Errorf("header fields: %+v", got)
	}
	if r := got.Range; r == nil || r.Filename != "cluster.yaml" || r.Start == nil || r.Start.Line != 12 || r.Start.Column != 35 || r.End.Line != 12 || r.End.Column != 40 {
		t.Errorf("range: %s", b)
	}
	if len(got.Core) != 4 {
		t.Fatalf("core has %d facts, want 4 (primary + 3 labels)", len(got.Core))
	}
	if got.Core[0].Message != d.PrimaryLabel || got.Core[0].Range == nil || got.Core[0].Range.Start.Line != 12 {
		t.Errorf("core[0] = %+v", got.Core[0])
	}
	if c := got.Core[2]; c.Message != "env_configs[0] covers node 3" || c.Range == nil || c.Range.Start.Line != 7 || c.Range.Start.Column != 23 || c.Range.End.Column != 26 {
		t.Errorf("core[2] = %+v", c)
	}
	if got.Core[3].Range != nil {
		t.Errorf("a fact without position has a range")
	}
	if len(got.Fixes) != 2 || len(got.Fixes[0].Edits) != 1 || got.Fixes[0].Edits[0].NewText != "4-7" || got.Fixes[0].Edits[0].Range.Start.Line != 10 {
		t.Errorf("fixes = %+v", got.Fixes)
	}
	if got.Fixes[1].Edits == nil {
		t.Errorf("edits of a fix without edits is null, want []")
	}
	second := env.Diagnostics[1]
	if second.Range == nil || second.Range.Filename != "x.yaml" || second.Range.Start != nil {
		t.Errorf("file-only range = %+v", second.Range)
	}
	if second.Fixes == nil || second.Core == nil {
		t.Errorf("fixes or core null: %s", b)
	}
	if strings.Contains(string(b), `"why":""`) {
		t.Errorf("empty why not omitted: %s", b)
	}
}

// WriteCheckEnvelope writes the envelope indented, one document a line
// at the end, as check and solve print it.
func TestWriteCheckEnvelope(t *testing.T) {
	var b strings.Builder
	if err := WriteCheckEnvelope(&b, false, nil); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"format_version\": \"1\",\n  \"valid\": false,\n  \"diagnostics\": []\n}\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
