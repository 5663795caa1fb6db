package render_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rlsolve/rlsolve/render"
	"go.yaml.in/yaml/v3"
)

// jsonValue is a JSON or YAML document as plain values, numbers as
// float64, so that the two can be compared.
func jsonValue(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameValues checks that YAML text reads back (with go-yaml) as the
// values the JSON text holds.
func sameValues(t *testing.T, name string, yamlText, jsonText []byte) {
	t.Helper()
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(yamlText, &fromYAML); err != nil {
		t.Fatalf("%s: the YAML does not parse: %v\n%.3000s", name, err, yamlText)
	}
	if err := json.Unmarshal(jsonText, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if got := jsonValue(t, fromYAML); !reflect.DeepEqual(got, fromJSON) {
		t.Fatalf("%s: the YAML reads back as\n%v\nthe JSON as\n%v\nYAML:\n%.3000s", name, got, fromJSON, yamlText)
	}
}

// sameYAML checks Document.WriteYAML against the document's JSON. Map
// keys that differ only in invalid UTF-8 are one key in both (each bad
// byte is U+FFFD): YAML refuses such a mapping, so it is not compared.
func sameYAML(t *testing.T, name string, doc *render.Document) {
	t.Helper()
	var y, j bytes.Buffer
	if err := doc.WriteYAML(&y); err != nil {
		t.Fatal(err)
	}
	if err := doc.WriteJSON(&j, false); err != nil {
		t.Fatal(err)
	}
	if duplicateKeys(t, j.Bytes()) {
		return
	}
	sameValues(t, name, y.Bytes(), j.Bytes())
}

// duplicateKeys reports whether some JSON object has a key twice.
func duplicateKeys(t *testing.T, data []byte) bool {
	t.Helper()
	dup, err := readDuplicate(json.NewDecoder(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	return dup
}

// readDuplicate reads one value and reports whether an object in it has a
// key twice.
func readDuplicate(d *json.Decoder) (bool, error) {
	tok, err := d.Token()
	if err != nil {
		return false, err
	}
	switch tok {
	case json.Delim('{'):
		keys := map[string]bool{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return false, err
			}
			if keys[k.(string)] {
				return true, nil
			}
			keys[k.(string)] = true
			if dup, err := readDuplicate(d); dup || err != nil {
				return dup, err
			}
		}
	case json.Delim('['):
		for d.More() {
			if dup, err := readDuplicate(d); dup || err != nil {
				return dup, err
			}
		}
	default:
		return false, nil
	}
	_, err = d.Token() // the closing delimiter
	return false, err
}

// TestWriteYAMLExamples: every example's plan, streamed as YAML, reads
// back as its JSON document.
func TestWriteYAMLExamples(t *testing.T) {
	for name, in := range exampleInputs(t) {
		var y, j bytes.Buffer
		if err := render.WriteYAML(&y, in); err != nil {
			t.Fatal(err)
		}
		if err := render.WriteJSON(&j, in, false); err != nil {
			t.Fatal(err)
		}
		sameValues(t, name, y.Bytes(), j.Bytes())
	}
}

// TestYAMLStrings: odd strings as keys and values, and every byte alone,
// read back as the JSON says (plain only when nothing else can be read).
func TestYAMLStrings(t *testing.T) {
	cases := []string{"", "0", "1", "-1", "0x1f", "1e3", ".5", ".inf", "-.inf", ".nan", "~", "null", "Null", "NULL", "true", "True",
		"TRUE", "false", "y", "Y", "yes", "no", "On", "off", "1:20", "2001-12-14", "<<", "=", "a: b", "a:", "a:b", "#c", "a #c", "- a",
		"? a", "[a]", "{a}", "&a", "*a", "!a", "|", ">", "%a", "@a", "`a", "'a'", `"a"`, " a", "a ", "a\nb", "a\tb", "\u0085", "\u2028",
		"\ufeff", "\ufffe", "\x7f", "\u00a0", "é", "NV_GPU:A800-SXM4-80GB", "/usr/local/cuda/bin:/usr/bin", "gpu-0", "10.0.0.1"}
	for b := range 256 {
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)}))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		cases = append(cases, randString(rng))
	}
	for _, s := range cases {
		doc := &render.Document{FormatVersion: s, PlacementMode: s, Order: []string{s}, Components: map[string]render.DocComponent{
			s: {Placements: []render.DocPlacement{{Env: map[string]string{s: s, s + "x": ""}}}}}}
		sameYAML(t, s, doc)
	}
}
