package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plan document is "-", a *.json file, or a file whose text starts as
// JSON does; a YAML config and a missing file are not.
func TestOpenPlanDocument(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"plan.json":  "not even JSON",
		"plan.txt":   "\xef\xbb\xbf  \n{\"format_version\": \"1\"}",
		"list.yaml":  "[1, 2]",
		"train.yaml": "cluster:\n  num_nodes: 1\n",
		"empty.yaml": "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file   string
		doc    bool
		hasErr bool
	}{
		{"plan.json", true, false}, {"plan.txt", true, false}, {"list.yaml", true, false},
		{"train.yaml", false, false}, {"empty.yaml", false, false}, {"missing.json", false, true},
	} {
		r, closeFile, err := OpenPlanDocument(filepath.Join(dir, tc.file), nil)
		if (r != nil) != tc.doc || (err != nil) != tc.hasErr {
			t.Errorf("%s: document %v, error %v", tc.file, r != nil, err)
		}
		if r != nil {
			closeFile()
		}
	}
	stdin := strings.NewReader("{}")
	if r, _, err := OpenPlanDocument("-", stdin); r != stdin || err != nil {
		t.Errorf("-: %v %v", r, err)
	}
}
