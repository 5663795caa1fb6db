package yamlpos

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzScalar reads every scalar of arbitrary YAML as RLinf would: no input
// makes the reader panic or loop, every diagnostic points into the file,
// and no resolved string exceeds the limit.
func FuzzScalar(f *testing.F) {
	for _, s := range []string{
		"a: ${subtract:${b}, ${c}}\nb: 10\nc: 3\n",
		"a: ${int_div:${multiply:${b}, ${b}}, ${c}}\nb: 1_0\nc: 0x2\n",
		"a: ${oc.select:b.c,${oc.env:HOME,x}}\nb: {c: ???}\n",
		"a: \"${b}${b}${b}\"\nb: ${a}\n",
		"a: ${not:${b}}\nb: yes\n",
		"a: '\\${x} ${ b . c }'\nb: {c: 1:0}\n",
		"a: ${f:[1,2],{a:1},'q,${b}'}\nb: 1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		lim := Limits{MaxFileBytes: 1 << 16, MaxDepth: 16, MaxNodes: 2000, MaxStringBytes: 512}
		d := Parse("f.yaml", []byte(src), lim)
		d.Getenv = func(k string) (string, bool) { return "env-" + k, k == "HOME" }
		if d.Root == nil {
			return
		}
		var walk func(n *yaml.Node, depth int)
		walk = func(n *yaml.Node, depth int) {
			if n == nil || depth > 20 {
				return
			}
			if n.Kind == yaml.ScalarNode {
				if v, ok := d.Scalar(n, "value"); ok && len(v.Py.Str) > lim.MaxStringBytes*2 {
					t.Fatalf("resolved to %d bytes", len(v.Py.Str))
				}
			}
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
		walk(d.Root, 0)
		for _, dg := range d.Diags {
			if dg.Primary.File != "f.yaml" {
				t.Fatalf("diagnostic in %q", dg.Primary.File)
			}
		}
	})
}
