package diag

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

type sarifRegionT struct{ StartLine, StartColumn, EndLine, EndColumn int }

type sarifLocT struct {
	PhysicalLocation *struct {
		ArtifactLocation struct{ URI string }
		Region           *sarifRegionT
	}
	Message *struct{ Text string }
}

func TestSARIF(t *testing.T) {
	warn := model.Diagnostic{Code: model.WarnUnknownKey, Severity: model.SeverityWarning, Summary: "unknown key nodes", Primary: span("dir with space/c.yaml", 2, 3, 8)}
	var buf bytes.Buffer
	if err := SARIF(&buf, []model.Diagnostic{envConflict(), warn, envConflict()}, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version, InformationURI string
					Rules                         []struct {
						ID               string
						ShortDescription struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID           string
				RuleIndex        int
				Level            string
				Message          struct{ Text string }
				Locations        []sarifLocT
				RelatedLocations []sarifLocT
				Fixes            []struct {
					Description     struct{ Text string }
					ArtifactChanges []struct {
						ArtifactLocation struct{ URI string }
						Replacements     []struct {
							DeletedRegion   sarifRegionT
							InsertedContent struct{ Text string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if log.Version != "2.1.0" || log.Schema == "" || len(log.Runs) != 1 {
		t.Fatalf("log header: %s", buf.Bytes())
	}
	run := log.Runs[0]
	drv := run.Tool.Driver
	if drv.Name != "rlsolve" || drv.Version != "1.2.3" || drv.InformationURI == "" {
		t.Errorf("driver = %+v", drv)
	}
	if len(drv.Rules) != 2 || drv.Rules[0].ID != "RLS-E0306" || drv.Rules[1].ID != "RLS-W0101" || drv.Rules[0].ShortDescription.Text == "" {
		t.Errorf("rules = %+v, want one per code used", drv.Rules)
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results", len(run.Results))
	}
	r := run.Results[0]
	if r.RuleID != "RLS-E0306" || r.RuleIndex != 0 || r.Level != "error" || r.Message.Text != envConflict().Summary {
		t.Errorf("result = %+v", r)
	}
	if len(r.Locations) != 1 || r.Locations[0].PhysicalLocation == nil {
		t.Fatalf("locations = %+v", r.Locations)
	}
	pl := r.Locations[0].PhysicalLocation
	if pl.ArtifactLocation.URI != "cluster.yaml" || pl.Region == nil || *pl.Region != (sarifRegionT{12, 35, 12, 40}) {
		t.Errorf("primary location = %+v %+v", pl.ArtifactLocation, pl.Region)
	}
	if len(r.RelatedLocations) != 2 {
		t.Fatalf("relatedLocations = %+v", r.RelatedLocations)
	}
	rl := r.RelatedLocations[1]
	if rl.Message == nil || rl.Message.Text != "env_configs[0] covers node 3" || rl.PhysicalLocation == nil || *rl.PhysicalLocation.Region != (sarifRegionT{7, 23, 7, 26}) {
		t.Errorf("relatedLocations[1] = %+v", rl)
	}
	if len(r.Fixes) != 1 {
		t.Fatalf("fixes = %+v (the fix without edits cannot be a SARIF fix)", r.Fixes)
	}
	fx := r.Fixes[0]
	if fx.Description.Text != "make the ranges disjoint" || len(fx.ArtifactChanges) != 1 || len(fx.ArtifactChanges[0].Replacements) != 1 {
		t.Fatalf("fix = %+v", fx)
	}
	rep := fx.ArtifactChanges[0].Replacements[0]
	if rep.DeletedRegion != (sarifRegionT{10, 23, 10, 26}) || rep.InsertedContent.Text != "4-7" {
		t.Errorf("replacement = %+v", rep)
	}
	w := run.Results[1]
	if w.Level != "warning" || w.RuleIndex != 1 || w.Locations[0].PhysicalLocation.ArtifactLocation.URI != "dir%20with%20space/c.yaml" {
		t.Errorf("warning result = %+v", w)
	}
	if run.Results[2].RuleIndex != 0 {
		t.Errorf("a repeated code got a new rule")
	}
}

func TestSARIFEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := SARIF(&buf, nil, ""); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	runs := log["runs"].([]any)
	run := runs[0].(map[string]any)
	if res, ok := run["results"].([]any); !ok || len(res) != 0 {
		t.Errorf("results = %v, want []", run["results"])
	}
}

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"cluster.yaml":     "cluster.yaml",
		"conf/train.yaml":  "conf/train.yaml",
		"/abs/path/c.yaml": "file:///abs/path/c.yaml",
		"a b.yaml":         "a%20b.yaml",
		"weird:name.yaml":  "./weird:name.yaml",
		"/tmp/x#y?.yaml":   "file:///tmp/x%23y%3F.yaml",
	} {
		if got := fileURI(in); got != want {
			t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
		}
	}
}
