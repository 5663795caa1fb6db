package render_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
)

// agree checks the reader's fast path against the strict reader on data:
// where the fast path reads a document, the strict reader reads the same
// one; and the reader as a whole gives what the strict one gives, error
// included (a byte order mark at the start is the reader's to drop). It
// reports whether the fast path read data.
func agree(t *testing.T, name string, data []byte) bool {
	t.Helper()
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	want, wantErr := render.ReadPlanDocumentStrict(body, "plan.json")
	fast, ok := render.FastPlanDocument(body, "plan.json")
	switch {
	case ok && wantErr != nil:
		t.Errorf("%s: the fast path read a document the strict reader refuses (%v)", name, wantErr)
	case ok && !reflect.DeepEqual(fast, want):
		t.Errorf("%s: the fast path read another document than the strict reader", name)
	}
	got, err := render.ReadPlanDocument(bytes.NewReader(data), "plan.json")
	if !reflect.DeepEqual(got, want) || errText(err) != errText(wantErr) {
		t.Errorf("%s: the reader gives %v, the strict reader %v", name, err, wantErr)
	}
	return ok
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFastReaderAgrees: every document `rlsolve plan --output json`
// writes for the examples, the 1,024-GPU layout and the replan example's
// plan read alike on both paths, and the RLinf ones (not slime's, whose
// records the fast path leaves to the strict reader) on the fast one.
func TestFastReaderAgrees(t *testing.T) {
	docs := map[string][]byte{"small": []byte(smallDoc), "scale": writeDoc(t, scaleInput(t, 1024))}
	rlinf := map[string]bool{"small": true, "scale": true}
	for name, in := range exampleInputs(t) {
		docs[name], rlinf[name] = writeDoc(t, in), in.Slime == nil
	}
	replan, err := os.ReadFile("../examples/solve-replan/plan.json")
	if err != nil {
		t.Fatal(err)
	}
	docs["solve-replan"], rlinf["solve-replan"] = replan, true
	for name, data := range docs {
		if fast := agree(t, name, data); rlinf[name] && !fast {
			t.Errorf("%s: the fast path did not read an RLinf plan document", name)
		}
	}
}

// TestFastReaderEdits: documents that the writer does not write, valid or
// not (each of the strict reader's errors, and what encoding/json reads
// that the fast path does not expect), read alike on both paths.
func TestFastReaderEdits(t *testing.T) {
	edits := [][2]string{
		{`{"rank": 1,`, `{"Rank": 1,`}, {`{"rank": 1,`, `{"rank": -0,`}, {`{"rank": 1,`, `{"rank": 1e0,`},
		{`{"rank": 1,`, `{"rank": 01,`}, {`{"rank": 1,`, `{"rank": 1 ,`}, {`{"rank": 1,`, `{"rank": 1, "extra": [1, {"a": null}],`},
		{`"env": {"RANK": "1"}`, `"env": null`}, {`"env": {"RANK": "1"}`, `"env": {}`},
		{`"env": {"RANK": "1"}`, `"env": {"RANK": "a\"b\\c\u00e9\ud800"}`}, {`"env": {"RANK": "1"}`, `"env": {"R\u0041NK": "1"}`},
		{`"env": {"RANK": "1"}`, `"env": {"RANK": "1", "RANK": "1"}`}, {`"env": {"RANK": "1"}`, `"env": {"RANK": "1\u0000"}`},
		{`"env": {"RANK": "1"}`, "\"env\": {\"RANK\": \"1\t\"}"}, {`"env": {"RANK": "1"}`, `"env": {"RANK": 1}`},
		{`"local_hardware_ranks": [1]`, `"local_hardware_ranks": []`}, {`"local_hardware_ranks": [1]`, `"local_hardware_ranks": null`},
		{`"local_hardware_ranks": [1]`, `"local_hardware_ranks": [1,]`}, {`"local_hardware_ranks": [1]`, `"local_hardware_ranks": [99999999999999999999]`},
		{`"visible_accelerators": ["1"]`, `"visible_accelerators": [1]`}, {`"env": {"RANK": "1"}`, `"env": {"RANK": "1"}, "isolate_accelerator": true`},
		{`"env": {"RANK": "1"}`, `"env": {"RANK": "1"}, "isolate_accelerator": tru`}, {`"env": {"RANK": "1"}`, `"env": {"RANK": "1"}, "bundles": [0]`},
		{`"placements": [`, `"Placements": [`}, {`"placements": [`, `"placements": [], "placements": [`}, {`"components": {`, `"Components": {`},
		{`"components": {`, `"components": {"a\u0062": {}, `}, {`"component_order": ["actor"]`, `"component_order": ["actor"], "components": {}`},
		{"\n}\n", "\n}\n}"}, {"\n}\n", "\n} x"}, {`"HYBRID"`, "\"HYB\xffRID\""}, {`"HYBRID"`, `"HYB\u0000RID"`},
		{`"world_size": 2,`, `"world_size": 2.0,`}, {`"diagnostics": []`, `"diagnostics": {}`},
	}
	for _, e := range edits {
		if !strings.Contains(smallDoc, e[0]) {
			t.Fatalf("smallDoc has no %q", e[0])
		}
		if agree(t, e[1], []byte(strings.Replace(smallDoc, e[0], e[1], -1))) {
			t.Logf("the fast path reads %s", e[1])
		}
	}
}

// TestFastReaderMutations: random edits of a small plan's document, which
// the writer wrote, read alike on both paths.
func TestFastReaderMutations(t *testing.T) {
	docs := [][]byte{[]byte(smallDoc), twoNodeDoc(t)}
	tokens := []string{"null", `"`, `\`, ",", "}", "]", "{", "[", "1e3", "-0", "0", `"rank": 1,`, `\u0000`, " ", `"a"`, "\xff", "\t", ":"}
	rng := rand.New(rand.NewPCG(21, 24))
	n, fast := 3000, 0
	if testing.Short() {
		n = 300
	}
	for i := range n {
		data := bytes.Clone(docs[i%len(docs)])
		for range 1 + rng.IntN(3) {
			at := rng.IntN(len(data))
			switch rng.IntN(3) {
			case 0:
				data = append(data[:at], data[at+1:]...)
			case 1:
				data = append(data[:at], append([]byte(tokens[rng.IntN(len(tokens))]), data[at:]...)...)
			default:
				data[at] = tokens[rng.IntN(len(tokens))][0]
			}
		}
		if agree(t, "mutation", data) {
			fast++
		}
	}
	// Some edits keep a document (a space, a digit): the fast path must
	// have read some, or the test compared nothing.
	if fast == 0 {
		t.Error("the fast path read none of the edited documents")
	}
	t.Logf("the fast path read %d of %d edited documents", fast, n)
}

// twoNodeDoc is the document of a small plan as the writer writes it:
// every field of a record, a hostname-less inventory, two components.
func twoNodeDoc(t *testing.T) []byte {
	in := pipeline.CheckBytes("train.yaml", []byte("cluster:\n  num_nodes: 2\n  component_placement:\n    actor: 0-3\n    rollout: 4-7:0-1\n"),
		pipeline.Options{GPUsPerNode: 4}).RenderInput()
	if in == nil {
		t.Fatal("the config does not plan")
	}
	return writeDoc(t, in)
}

// TestPlanRecords: the records built straight from a plan are those of
// its document, for every example (slime's included) and the 1,024-GPU
// layout.
func TestPlanRecords(t *testing.T) {
	ins := exampleInputs(t)
	ins["scale"] = scaleInput(t, 1024)
	for name, in := range ins {
		got, err := render.PlanRecords(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, err := render.NewDocument(in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, doc.Records()) {
			t.Errorf("%s: the records differ from the document's", name)
		}
	}
	if _, err := render.PlanRecords(&render.Input{}); err == nil {
		t.Error("records of no plan")
	}
}
