package render_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/longtest"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// encodingJSON is what WriteJSON must reproduce: `rlsolve plan --output
// json` before WriteJSON (an indenting json.Encoder) or json.Marshal + "\n".
func encodingJSON(t testing.TB, doc *render.Document, indent bool) []byte {
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

// sameJSON checks Document.WriteJSON against encoding/json in both modes.
func sameJSON(t *testing.T, name string, doc *render.Document) {
	t.Helper()
	for _, indent := range []bool{true, false} {
		var got bytes.Buffer
		if err := doc.WriteJSON(&got, indent); err != nil {
			t.Fatalf("%s (indent %v): %v", name, indent, err)
		}
		sameBytes(t, fmt.Sprintf("%s (indent %v)", name, indent), got.Bytes(), encodingJSON(t, doc, indent))
	}
}

// sameStream checks the streamed document of a plan (what `plan --output
// json` prints) against encoding/json of the document built whole.
func sameStream(t *testing.T, name string, in *render.Input) {
	t.Helper()
	doc, err := render.NewDocument(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, indent := range []bool{true, false} {
		var got bytes.Buffer
		if err := render.WriteJSON(&got, in, indent); err != nil {
			t.Fatalf("%s (indent %v): %v", name, indent, err)
		}
		sameBytes(t, fmt.Sprintf("%s (streamed, indent %v)", name, indent), got.Bytes(), encodingJSON(t, doc, indent))
	}
}

func sameBytes(t *testing.T, name string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-80)
	t.Fatalf("%s: differs at byte %d of %d (want %d)\n got: %q\nwant: %q", name, i, len(got), len(want),
		got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
}

// exampleInputs are the plans of every example (RLinf configs and slime
// layouts), each with its inventory, with the assumed one and with
// --gpus-per-node 4.
func exampleInputs(t *testing.T) map[string]*render.Input {
	t.Helper()
	files, _ := filepath.Glob("../examples/*/train.yaml")
	slimes, _ := filepath.Glob("../examples/*/slime.yaml")
	if len(files) == 0 || len(slimes) == 0 {
		t.Fatal("no examples")
	}
	out := map[string]*render.Input{}
	for _, file := range append(files, slimes...) {
		opts := []pipeline.Options{{GPUsPerNode: -1}, {GPUsPerNode: 4}}
		if invFile := filepath.Join(filepath.Dir(file), "inventory.yaml"); fileExists(invFile) {
			inv, bad := pipeline.LoadInventory(invFile, grammar.DefaultLimits)
			if bad != nil {
				t.Fatalf("%s: inventory: %v", file, bad.Diagnostics)
			}
			opts = append(opts, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
		}
		for i, opt := range opts {
			var in *render.Input
			if filepath.Base(file) == "slime.yaml" {
				in = pipeline.CheckSlime("", file, opt).RenderInput()
			} else {
				in = pipeline.CheckFile(file, opt).RenderInput()
			}
			if in != nil {
				out[fmt.Sprintf("%s#%d", file, i)] = in
			}
		}
	}
	return out
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// TestWriteJSONExamples: every example's plan, streamed, writes the same
// bytes as encoding/json of its document.
func TestWriteJSONExamples(t *testing.T) {
	ins := exampleInputs(t)
	slime := 0
	for name, in := range ins {
		sameStream(t, name, in)
		if in.Slime != nil {
			slime++
		}
	}
	if len(ins) < 12 || slime < 3 {
		t.Errorf("only %d example documents (%d slime)", len(ins), slime)
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

func scaleInput(t testing.TB, g int) *render.Input {
	t.Helper()
	cfg, ds := grammar.LoadConfig("bench.yaml", scaleConfig(g), grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatal(ds[0].Summary)
	}
	inv := topology.Uniform(g/8, 8, "bench")
	for i := range inv.Nodes {
		inv.Nodes[i].Hostname = fmt.Sprintf("gpu-%d", i)
	}
	res, err := strategies.Expand(cfg, inv, strategies.Options{Class: model.ClassHybrid})
	if err != nil {
		t.Fatal(err)
	}
	in := resultInput(res)
	in.InventorySource = inv.Source
	return in
}

func scaleDocument(t testing.TB, g int) *render.Document {
	t.Helper()
	doc, err := render.NewDocument(scaleInput(t, g))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestWriteJSONScale: the 1,024-node benchmark layout (8,192 GPUs, 22,528
// workers, a 35 MB indented document).
func TestWriteJSONScale(t *testing.T) {
	g := 8192
	if testing.Short() {
		g = 1024
	}
	sameStream(t, "scale", scaleInput(t, g))
}

// TestWriteJSONAllocs: writing a document held in memory allocates the
// same whatever the number of workers (one buffer, one key slice).
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

// heapProbe records the live heap (after a collection) when the output
// passes half of its expected size.
type heapProbe struct {
	n, at int
	live  uint64
}

func (h *heapProbe) Write(p []byte) (int, error) {
	if h.n < h.at && h.n+len(p) >= h.at {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.live = ms.HeapAlloc
	}
	h.n += len(p)
	return len(p), nil
}

// TestWriteStreams: while the 8,192-GPU plan's document is written (22,528
// workers, 35 MB of JSON, the environments 38 MB as maps), the live heap
// is what it was before plus a few buffers: no worker's record or
// environment stays behind it. YAML alike.
func TestWriteStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("a large plan")
	}
	in := scaleInput(t, 8192)
	for _, f := range []struct {
		name  string
		size  int
		write func(io.Writer) error
	}{
		{"json", 35 << 20, func(w io.Writer) error { return render.WriteJSON(w, in, true) }},
		{"yaml", 25 << 20, func(w io.Writer) error { return render.WriteYAML(w, in) }},
	} {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		probe := &heapProbe{at: f.size / 2}
		if err := f.write(probe); err != nil {
			t.Fatal(err)
		}
		if probe.n < f.size/2 {
			t.Fatalf("%s: only %d bytes written", f.name, probe.n)
		}
		if grew := int64(probe.live) - int64(ms.HeapAlloc); grew > 4<<20 {
			t.Errorf("%s: the live heap grew by %d KB half-way through the document", f.name, grew>>10)
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

// TestWriteJSONError: a failing writer's error comes back, streamed or
// not, and the writing stops there.
func TestWriteJSONError(t *testing.T) {
	in := scaleInput(t, 64)
	doc, err := render.NewDocument(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, after := range []int{0, 100, 70 << 10, 200 << 10} {
		if err := doc.WriteJSON(&failWriter{after: after}, true); err == nil || err.Error() != "disk full" {
			t.Errorf("after %d bytes: got %v", after, err)
		}
		if err := render.WriteJSON(&failWriter{after: after}, in, true); err == nil || err.Error() != "disk full" {
			t.Errorf("streamed, after %d bytes: got %v", after, err)
		}
	}
	// A number JSON cannot write is an error too.
	doc.Slime = &render.SlimeLayout{GPUFraction: map[string]float64{"actor": math.NaN()}}
	if err := doc.WriteJSON(io.Discard, true); err == nil {
		t.Error("NaN: no error")
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
		doc := &render.Document{FormatVersion: s, PlacementMode: s, Components: map[string]render.DocComponent{
			s: {Placements: []render.DocPlacement{{Env: map[string]string{s: s, s + "x": ""}}}}}}
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
// random diagnostics and slime sections.
func TestWriteJSONRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range longtest.Count(2000, 200) {
		var doc render.Document
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
		sameYAML(t, fmt.Sprintf("random document %d", i), &doc)
	}
}

func fill(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if rng.IntN(4) > 0 {
			v.SetString(randString(rng))
		}
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(rng.IntN(2_000_000) - 1000))
		if rng.IntN(8) == 0 {
			v.SetInt(int64(rng.Uint64()))
		}
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Float64:
		v.SetFloat([]float64{0, 0.2, 0.8, 1, -3.5, 1e-7, 1e21, 123456789.125, rng.Float64(), rng.NormFloat64() * 1e30}[rng.IntN(10)])
	case reflect.Array:
		for i := range v.Len() {
			fill(rng, v.Index(i))
		}
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

// randAny is a random JSON value (the slime flags'), nil included.
func randAny(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(9); {
	case k == 0:
		return nil
	case k == 1:
		return rng.IntN(2) == 0
	case k == 2:
		return rng.IntN(100000) - 50
	case k < 4 || depth > 3:
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
