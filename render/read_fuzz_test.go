package render_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
)

// FuzzReadPlanDocument: any bytes give a document or a located
// *DocumentError, never a panic; a document read writes back as a
// document that reads the same again; and the reader's fast path reads
// only what the strict reader reads, the same (agree).
func FuzzReadPlanDocument(f *testing.F) {
	f.Add([]byte(smallDoc))
	f.Add([]byte(`{"format_version": "1", "components": {"a": {"world_size": 1, "placements": [{"rank": 1}]}}, "component_order": ["a"]}`))
	f.Add([]byte(`{"format_version": "2"}`))
	f.Add([]byte("[1, {\"x\": \"\\u00e9\"}]"))
	// What encoding/json lets through and the reader refuses: a key twice,
	// NUL, a record without its node or with a null one.
	f.Add([]byte(`{"format_version": "1", "components": {"a": {}, "a": {}}, "component_order": ["a"]}`))
	f.Add([]byte(`{"format_version": "1", "placement_mode": "\u0000", "components": {}, "component_order": []}`))
	f.Add([]byte(`{"format_version": "1", "components": {"a": {"world_size": 1, "placements": [{"rank": 0, "cluster_node_rank": null}]}}, "component_order": ["a"]}`))
	in := pipeline.CheckBytes("train.yaml", []byte("cluster:\n  num_nodes: 2\n  component_placement:\n    actor: 0-7\n    rollout: 8-15:0-3\n"),
		pipeline.Options{GPUsPerNode: 8}).RenderInput()
	if in == nil {
		f.Fatal("the seed config does not plan")
	}
	f.Add(writeDoc(f, in))
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, "fuzz input", data)
		doc, err := render.ReadPlanDocument(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			var de *render.DocumentError
			if !errors.As(err, &de) || de.Span.File != "fuzz.json" {
				t.Fatalf("err = %#v, want a *DocumentError in fuzz.json", err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; de.Span.Line > lines {
				t.Fatalf("error at line %d of a %d-line file", de.Span.Line, lines)
			}
			return
		}
		var once bytes.Buffer
		if err := doc.WriteJSON(&once, true); err != nil {
			t.Fatalf("a document read cannot be written: %v", err)
		}
		again, err := render.ReadPlanDocument(bytes.NewReader(once.Bytes()), "again.json")
		if err != nil {
			t.Fatalf("the document written back does not read: %v", err)
		}
		if !reflect.DeepEqual(again.Records(), doc.Records()) {
			t.Fatal("the records differ after writing back")
		}
		var twice bytes.Buffer
		if err := again.WriteJSON(&twice, true); err != nil || !bytes.Equal(twice.Bytes(), once.Bytes()) {
			t.Fatalf("writing back is not stable (err %v)", err)
		}
	})
}
