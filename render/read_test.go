package render_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
)

// writeDoc is what `rlsolve plan --output json` prints for in.
func writeDoc(t testing.TB, in *render.Input) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteJSON(&b, in, true); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withoutHardwareType clears what a document does not hold (the group
// hardware type behind each record).
func withoutHardwareType(pr *model.PlanRecords) *model.PlanRecords {
	for i := range pr.Components {
		for j := range pr.Components[i].Workers {
			pr.Components[i].Workers[j].HardwareType = ""
		}
	}
	return pr
}

// TestReadPlanDocumentRoundTrip: every example's document (RLinf and
// slime, each inventory), read back, writes the same bytes again and has
// the workers of the plan it was written from.
func TestReadPlanDocumentRoundTrip(t *testing.T) {
	for name, in := range exampleInputs(t) {
		data := writeDoc(t, in)
		doc, err := render.ReadPlanDocument(bytes.NewReader(data), "plan.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var again bytes.Buffer
		if err := doc.WriteJSON(&again, true); err != nil {
			t.Fatal(err)
		}
		sameBytes(t, name+" (read back)", again.Bytes(), data)
		built, err := render.NewDocument(in)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := doc.Records(), withoutHardwareType(built.Records()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the records read back differ from the plan's", name)
		}
		if n := len(doc.Records().Components); n != len(in.Plan.Components) {
			t.Errorf("%s: %d components read back, the plan has %d", name, n, len(in.Plan.Components))
		}
	}
}

// TestReadPlanDocumentScale reads back the 1,024-GPU benchmark layout.
func TestReadPlanDocumentScale(t *testing.T) {
	data := writeDoc(t, scaleInput(t, 1024))
	doc, err := render.ReadPlanDocument(bytes.NewReader(data), "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	workers := 0
	for _, c := range doc.Records().Components {
		workers += len(c.Workers)
	}
	if workers != 2816 {
		t.Errorf("%d workers read back, want 2816", workers)
	}
}

// smallDoc is a valid plan document to break in the tests below.
const smallDoc = `{
  "format_version": "1",
  "placement_mode": "HYBRID",
  "inventory": {"source": "inv.yaml", "assumed": false, "nodes": 1},
  "components": {
    "actor": {
      "world_size": 2,
      "rlinf_world_size": 2,
      "node_groups": ["cluster"],
      "strategy": {"kind": "flexible"},
      "placements": [
        {"rank": 0, "cluster_node_rank": 0, "local_hardware_ranks": [0], "visible_accelerators": ["0"], "env": {"RANK": "0"}},
        {"rank": 1, "cluster_node_rank": 0, "local_hardware_ranks": [1], "visible_accelerators": ["1"], "env": {"RANK": "1"}}
      ]
    }
  },
  "component_order": ["actor"],
  "diagnostics": []
}
`

func TestReadPlanDocumentSmall(t *testing.T) {
	doc, err := render.ReadPlanDocument(strings.NewReader("\xef\xbb\xbf"+smallDoc), "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	want := &model.PlanRecords{Components: []model.ComponentRecords{{Name: "actor", Workers: []model.WorkerRecord{
		{Placement: model.Placement{Rank: 0, LocalHardwareRanks: []int{0}, VisibleAccelerators: []string{"0"}}, Env: map[string]string{"RANK": "0"}},
		{Placement: model.Placement{Rank: 1, LocalHardwareRanks: []int{1}, VisibleAccelerators: []string{"1"}}, Env: map[string]string{"RANK": "1"}},
	}}}}
	if got := doc.Records(); !reflect.DeepEqual(got, want) {
		t.Errorf("records\n got %+v\nwant %+v", got, want)
	}
}

// TestReadPlanDocumentErrors: each bad document is an error at the line
// and column of its problem, with a message that says what is wrong.
func TestReadPlanDocumentErrors(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(smallDoc, old) {
			t.Fatalf("smallDoc has no %q", old)
		}
		return strings.Replace(smallDoc, old, new, 1)
	}
	tests := []struct {
		name, doc string
		line, col int
		msg       string
	}{
		{"empty", " \n", 1, 1, "empty"},
		{"not JSON", "cluster:\n  num_nodes: 1\n", 1, 1, "invalid JSON: invalid character 'c'"},
		{"missing comma", edit(`"HYBRID",`, `"HYBRID"`), 4, 3, "invalid JSON: invalid character '\"' after object key:value pair"},
		{"cut short", smallDoc[:200], 8, 18, "invalid JSON: unexpected end of JSON input"},
		{"trailing text", smallDoc + "x", 20, 1, "invalid JSON: invalid character 'x' after top-level value"},
		{"a list", "[1, 2]", 1, 1, "expected a plan document"},
		{"no version", "{\"components\": {}}", 1, 1, "no format_version"},
		{"another version", edit(`"format_version": "1"`, `"format_version": "2"`), 2, 21, `format_version "2": this rlsolve reads plan documents of format_version "1"`},
		{"version a number", edit(`"format_version": "1"`, `"format_version": 1`), 2, 21, `format_version must be the string "1", not 1`},
		{"check's report", `{"format_version": "1", "valid": true, "diagnostics": []}`, 1, 1, "no components"},
		{"rank a string", edit(`{"rank": 1,`, `{"rank": "1",`), 13, 18, "components.placements.rank must be a whole number, not a JSON string"},
		{"rank a fraction", edit(`{"rank": 1,`, `{"rank": 1.5,`), 13, 18, "must be a whole number, not a JSON number 1.5"},
		{"env a list", edit(`"env": {"RANK": "1"}`, `"env": ["RANK"]`), 13, 112, "components.placements.env must be an object, not a JSON array"},
		{"components a list", edit(`"components": {`, `"components": [], "x": {`), 5, 17, "components must be an object, not a JSON array"},
		{"order names another", edit(`"component_order": ["actor"]`, `"component_order": ["actor", "rollout"]`), 17, 32, `component_order names "rollout", which components lacks`},
		{"order twice", edit(`"component_order": ["actor"]`, `"component_order": ["actor", "actor"]`), 17, 32, `component_order names "actor" twice`},
		{"order missing", edit(`"component_order": ["actor"],`, ``), 6, 14, `component "actor" is missing from component_order`},
		{"no placements", edit(`"placements": [`, `"placements": null, "x": [`), 11, 21, "actor has no placements list"},
		{"world size", edit(`"world_size": 2,`, `"world_size": 3,`), 7, 21, "actor's world_size is 3, but it lists 2 placements"},
		{"ranks out of order", edit(`{"rank": 1,`, `{"rank": 2,`), 13, 18, "actor's placement 1 has rank 2"},
		{"negative node", edit(`"rank": 1, "cluster_node_rank": 0`, `"rank": 1, "cluster_node_rank": -1`), 13, 42, "actor/1: cluster_node_rank -1 is negative"},
		{"node missing", edit(`"rank": 1, "cluster_node_rank": 0, `, `"rank": 1, `), 13, 9, "actor/1: the placement has no cluster_node_rank"},
		{"node null", edit(`"rank": 1, "cluster_node_rank": 0`, `"rank": 1, "cluster_node_rank": null`), 13, 42, "actor/1: cluster_node_rank is null: it must be a whole number"},
		{"rank null", edit(`{"rank": 1,`, `{"rank": null,`), 13, 18, "actor/1: rank is null"},
		{"NUL escaped", edit(`"RANK": "1"`, `"RANK": "1\u0000"`), 13, 123, "a NUL character"},
		{"NUL in a key", edit(`"RANK": "1"`, `"RA\u0000NK": "1"`), 13, 116, "a NUL character"},
		{"invalid UTF-8", edit(`"HYBRID"`, "\"HYB\xffRID\""), 3, 25, "invalid UTF-8 (byte 0xff)"},
		{"component twice", edit("    }\n  },", "    },\n    \"actor\": {}\n  },"), 16, 5, `component "actor" is listed twice`},
		{"field twice", edit(`{"rank": 1,`, `{"rank": 1, "rank": 1,`), 13, 21, `key "rank" is listed twice`},
		{"field twice, another case", edit(`{"rank": 1,`, `{"rank": 1, "RANK": 1,`), 13, 21, `key "RANK" is listed twice`},
		{"env var twice", edit(`"env": {"RANK": "1"}`, `"env": {"RANK": "1", "RANK": "2"}`), 13, 126, `key "RANK" is listed twice`},
		{"escaped key twice", edit(`{"rank": 1,`, `{"rank": 1, "r\u0061nk": 1,`), 13, 21, `key "rank" is listed twice`},
		{"negative device", edit(`"local_hardware_ranks": [1]`, `"local_hardware_ranks": [-1]`), 13, 70, "actor/1: local hardware rank -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render.ReadPlanDocument(strings.NewReader(tt.doc), "plan.json")
			var de *render.DocumentError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *DocumentError", err)
			}
			if de.Span.File != "plan.json" || de.Span.Line != tt.line || de.Span.Col != tt.col {
				t.Errorf("at %s, want plan.json:%d:%d (%s)", de.Span, tt.line, tt.col, de.Msg)
			}
			if !strings.Contains(de.Msg, tt.msg) {
				t.Errorf("message %q, want it to contain %q", de.Msg, tt.msg)
			}
			if d := de.Diagnostic(); d.Code != model.CodePlanDocument || d.Severity != model.SeverityError || d.Primary != de.Span {
				t.Errorf("diagnostic %+v", d)
			}
		})
	}
}

func TestReadPlanDocumentLimits(t *testing.T) {
	over := &repeatReader{b: ' ', n: 1001}
	_, err := render.ReadPlanDocumentLimit(over, "big.json", 1000)
	var de *render.DocumentError
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "over 1000 bytes") || de.Span.File != "big.json" {
		t.Errorf("err = %v, want the size limit", err)
	}
	if over.read > 1001 {
		t.Errorf("read %d bytes, the limit is 1000", over.read)
	}
	if _, err := render.ReadPlanDocumentLimit(strings.NewReader(smallDoc), "plan.json", len(smallDoc)); err != nil {
		t.Errorf("a document of exactly the limit: %v", err)
	}
	_, err = render.ReadPlanDocument(iotest.ErrReader(errors.New("disk on fire")), "bad.json")
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "disk on fire") {
		t.Errorf("err = %v, want the read error", err)
	}
}

// repeatReader yields n copies of b and counts what was read.
type repeatReader struct {
	b       byte
	n, read int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.read)
	for i := range k {
		p[i] = r.b
	}
	r.read += k
	return k, nil
}

// BenchmarkReadAndDiff reads the 1,024-GPU benchmark layout's document
// back (4 MB, 2,816 workers) and diffs it against itself.
func BenchmarkReadAndDiff(b *testing.B) {
	data := writeDoc(b, scaleInput(b, 1024))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		doc, err := render.ReadPlanDocument(bytes.NewReader(data), "plan.json")
		if err != nil {
			b.Fatal(err)
		}
		r := doc.Records()
		if d := model.DiffPlans(r, r); d.Moved != 0 {
			b.Fatal("a plan moved against itself")
		}
	}
}

// TestReadPlanDocumentMapKeys: an environment's variables are names, told
// apart by case (PATH and Path are two), unlike a record's fields.
func TestReadPlanDocumentMapKeys(t *testing.T) {
	doc := strings.Replace(smallDoc, `"env": {"RANK": "1"}`, `"env": {"RANK": "1", "rank": "2"}`, 1)
	d, err := render.ReadPlanDocument(strings.NewReader(doc), "plan.json")
	if err != nil {
		t.Fatal(err)
	}
	if env := d.Records().Components[0].Workers[1].Env; env["RANK"] != "1" || env["rank"] != "2" {
		t.Errorf("env %v", env)
	}
}
