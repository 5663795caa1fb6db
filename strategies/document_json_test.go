package strategies_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// encodingJSON is what WriteJSON must reproduce: `rlsolve plan --output
// json` before WriteJSON (an indenting json.Encoder) or json.Marshal + "\n".
func encodingJSON(t testing.TB, doc *strategies.Document, indent bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	if !indent {
		m, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(append(m, '\n'), b.Bytes()) {
			t.Fatal("json.Marshal and json.Encoder disagree")
		}
	}
	return b.Bytes()
}

// sameJSON checks WriteJSON against encoding/json in both modes.
func sameJSON(t *testing.T, name string, doc *strategies.Document) {
	t.Helper()
	for _, indent := range []bool{true, false} {
		want := encodingJSON(t, doc, indent)
		var got bytes.Buffer
		if err := doc.WriteJSON(&got, indent); err != nil {
			t.Fatalf("%s (indent %v): %v", name, indent, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			i := 0
			for i < got.Len() && i < len(want) && got.Bytes()[i] == want[i] {
				i++
			}
			lo := max(0, i-80)
			t.Fatalf("%s (indent %v): differs at byte %d of %d (want %d)\n got: %q\nwant: %q", name, indent, i, got.Len(), len(want),
				got.Bytes()[lo:min(got.Len(), i+80)], want[lo:min(len(want), i+80)])
		}
	}
}

// TestWriteJSONExamples: every example config, with its inventory and with
// the assumed one, writes the same bytes as encoding/json.
func TestWriteJSONExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/train.yaml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	docs := 0
	for _, file := range files {
		inv, bad := pipeline.LoadInventory(filepath.Join(filepath.Dir(file), "inventory.yaml"), grammar.DefaultLimits)
		if bad != nil {
			t.Fatalf("%s: inventory: %v", file, bad.Diagnostics)
		}
		for _, opt := range []pipeline.Options{{GPUsPerNode: -1}, {Inventory: inv, GPUsPerNode: -1}, {GPUsPerNode: 4}} {
			o := pipeline.CheckFile(file, opt)
			if o.Result == nil || o.Result.Plan == nil {
				continue
			}
			docs++
			sameJSON(t, file, o.Result.NewDocument(o.Inventory, diag.JSON(o.Diagnostics)))
		}
	}
	if docs < 10 {
		t.Errorf("only %d example documents", docs)
	}
}

// scaleConfig is proptest's scaling layout (proptest/scale_bench_test.go)
// on g GPUs, 8 per node.
func scaleConfig(g int) []byte {
	nodes := g / 8
	return fmt.Appendf(nil, "cluster:\n  num_nodes: %d\n  component_placement:\n    actor: \"0-%d\"\n    rollout: \"%d-%d:0-%d\"\n"+
		"    inference: \"%d-%d\"\n    reward: \"0-%d\"\n    env: \"%d-%d:0-%d\"\n    agent: {node_group: node, placement: \"0-%d:0-%d\"}\n",
		nodes, g/2-1, g/2, g*3/4-1, g/8-1, g*3/4, g*7/8-1, g/2-1, g*7/8, g-1, g/4-1, nodes-1, nodes*10-1)
}

func scaleDocument(t testing.TB, g int) *strategies.Document {
	t.Helper()
	cfg, ds := grammar.LoadConfig("bench.yaml", scaleConfig(g), grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatal(ds[0].Summary)
	}
	inv := topology.Uniform(g/8, 8, "bench")
	res, err := strategies.Expand(cfg, inv, strategies.Options{Class: model.ClassHybrid})
	if err != nil {
		t.Fatal(err)
	}
	return res.NewDocument(inv, diag.JSON(nil))
}

// TestWriteJSONScale: the 1,024-node benchmark layout (8,192 GPUs, 22,528
// workers, a 35 MB indented document).
func TestWriteJSONScale(t *testing.T) {
	g := 8192
	if testing.Short() {
		g = 1024
	}
	sameJSON(t, "scale", scaleDocument(t, g))
}

// TestWriteJSONAllocs: the writer's allocations do not grow with the
// number of workers (it reuses one buffer and one key slice).
func TestWriteJSONAllocs(t *testing.T) {
	doc := scaleDocument(t, 1024)
	for _, indent := range []bool{true, false} {
		n := testing.AllocsPerRun(5, func() {
			if err := doc.WriteJSON(io.Discard, indent); err != nil {
				t.Fatal(err)
			}
		})
		if n > 40 { // 2,816 workers
			t.Errorf("indent %v: %.0f allocations per document", indent, n)
		}
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestWriteJSONError: a failing writer's error comes back, and a
// Diagnostics value encoding/json refuses is an error too.
func TestWriteJSONError(t *testing.T) {
	doc := scaleDocument(t, 64)
	for _, after := range []int{0, 100, 70 << 10, 200 << 10} {
		if err := doc.WriteJSON(&failWriter{after: after}, true); err == nil || err.Error() != "disk full" {
			t.Errorf("after %d bytes: got %v", after, err)
		}
	}
	doc.Diagnostics = func() {}
	var b bytes.Buffer
	if err := doc.WriteJSON(&b, true); err == nil || b.Len() > 0 {
		t.Errorf("a func as diagnostics: error %v, %d bytes written", err, b.Len())
	}
}

// TestWriteJSONStrings: every string encoding/json escapes specially, each
// byte alone and inside text, and random byte strings.
func TestWriteJSONStrings(t *testing.T) {
	var cases []string
	for b := range 256 {
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"é")
	}
	cases = append(cases, "", `"quoted" \back\slash/`, "<script>&amp;</script>", "\u2028\u2029\u2027\u202a", "\ufffd",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "日本語\xe6\x97", "\x7f", "tab\there\r\n", "🚀 \U0010ffff")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		cases = append(cases, randString(rng))
	}
	for _, s := range cases {
		doc := &strategies.Document{FormatVersion: s, PlacementMode: s, Components: map[string]strategies.DocComponent{
			s: {Placements: []strategies.DocPlacement{{Env: map[string]string{s: s, s + "x": ""}}}}}}
		want := encodingJSON(t, doc, false)
		var got bytes.Buffer
		if err := doc.WriteJSON(&got, false); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got.Bytes(), want)
		}
	}
}

// randString mixes ASCII, JSON and HTML specials, control characters,
// non-ASCII, line and paragraph separators and invalid UTF-8.
func randString(rng *rand.Rand) string {
	pieces := []string{"a", "Z", "0", "_", " ", `"`, `\`, "/", "<", ">", "&", "'", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f",
		"\x7f", "é", "ß", "日", "🚀", "\u2028", "\u2029", "\ufeff", "\xff", "\xc3", "\xe2\x80", "\x80", "\xed\xa0\x80", "=", "$PATH"}
	var b strings.Builder
	for range rng.IntN(12) {
		if rng.IntN(4) == 0 {
			b.WriteByte(byte(rng.IntN(256)))
		} else {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
	}
	return b.String()
}

// TestWriteJSONRandom fills every field of the document types by
// reflection (so a field added later is covered too) with random values:
// nil, empty and full slices and maps, nil and set pointers, odd strings,
// and random diagnostics.
func TestWriteJSONRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		var doc strategies.Document
		fill(rng, reflect.ValueOf(&doc).Elem())
		// Neighbouring workers with the same keys as the one before, or
		// as many keys but one different (WriteJSON reuses the order of
		// the previous environment's keys when it can).
		for _, c := range doc.Components {
			for j := 1; j < len(c.Placements); j++ {
				prev, env := c.Placements[j-1].Env, map[string]string{}
				for k := range prev {
					env[k] = randString(rng)
				}
				if rng.IntN(3) == 0 && len(prev) > 0 {
					for k := range prev {
						delete(env, k)
						env[k+randString(rng)+"~"] = ""
						break
					}
				}
				if rng.IntN(4) > 0 {
					c.Placements[j].Env = env
				}
			}
		}
		sameJSON(t, fmt.Sprintf("random document %d", i), &doc)
	}
}

func fill(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if rng.IntN(4) > 0 {
			v.SetString(randString(rng))
		}
	case reflect.Int:
		v.SetInt(int64(rng.IntN(2_000_000) - 1000))
		if rng.IntN(8) == 0 {
			v.SetInt(int64(rng.Uint64()))
		}
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			p := reflect.New(v.Type().Elem())
			fill(rng, p.Elem())
			v.Set(p)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(rng, v.Field(i))
			}
		}
	case reflect.Slice:
		switch k := rng.IntN(5); {
		case k == 0: // nil
		case k == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := rng.IntN(4) + 1
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				fill(rng, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		switch k := rng.IntN(5); {
		case k == 0: // nil
		case k == 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range rng.IntN(6) + 1 {
				key := reflect.New(v.Type().Key()).Elem()
				fill(rng, key)
				val := reflect.New(v.Type().Elem()).Elem()
				fill(rng, val)
				m.SetMapIndex(key, val)
			}
			v.Set(m)
		}
	case reflect.Interface:
		if a := randAny(rng, 0); a != nil {
			v.Set(reflect.ValueOf(a))
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// randAny is a random JSON value (the Diagnostics field), nil included.
func randAny(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(8); {
	case k == 0 && depth == 0:
		return nil
	case k == 1 && depth == 0:
		return diag.JSON(nil)
	case k < 3 || depth > 3:
		return randString(rng)
	case k == 3:
		return rng.Float64() * 1e6
	case k == 4:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randAny(rng, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[randString(rng)] = randAny(rng, depth+1)
		}
		return m
	}
}

// BenchmarkWriteJSON compares WriteJSON with encoding/json on the 8,192-GPU
// document (22,528 workers), compact and indented.
func BenchmarkWriteJSON(b *testing.B) {
	doc := scaleDocument(b, 8192)
	for _, indent := range []bool{false, true} {
		b.Run(fmt.Sprintf("WriteJSON/indent=%v", indent), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := doc.WriteJSON(io.Discard, indent); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("encoding-json/indent=%v", indent), func(b *testing.B) {
			b.ReportAllocs()
			enc := json.NewEncoder(io.Discard)
			if indent {
				enc.SetIndent("", "  ")
			}
			for b.Loop() {
				if err := enc.Encode(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
