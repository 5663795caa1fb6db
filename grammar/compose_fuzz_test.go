package grammar

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// FuzzParseOverrides: any command line either parses, with every value's
// position inside the text it reports, or fails with an error located in
// its argument.
func FuzzParseOverrides(f *testing.F) {
	for _, s := range []string{"cluster.num_nodes=2", "+x.y=[1,{a: b}]", "++a='q,r'", "~z", "~z=3", "model@actor.model=pi0",
		"a=${b.c}", "a=1,2", "a=choice(1)", "a=\"x\\\"y\"", "a= 1 ", "a=é", "a={", "a=[[[[", "=", "+", "~"} {
		f.Add(s, "b=1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ovs, err := ParseOverrides([]string{a, b})
		if err != nil {
			oe, ok := err.(*OverrideError)
			if !ok || oe.Off < 0 || oe.Off > len(oe.Arg) {
				t.Fatalf("error %v", err)
			}
			return
		}
		width := utf8.RuneCountInString(ovs.Text)
		for _, o := range ovs.List {
			if o.KeyOff < o.Off || o.KeyEnd > len(ovs.Text) || o.KeyOff > o.KeyEnd || ovs.Text[o.Off:o.Off+len(o.Arg)] != o.Arg {
				t.Fatalf("offsets of %q in %q", o.Arg, ovs.Text)
			}
			var walk func(n *yaml.Node, depth int)
			walk = func(n *yaml.Node, depth int) {
				if n == nil {
					return
				}
				if n.Line != 1 || n.Column < 1 || n.Column > width+1 || depth > maxValueDepth+1 {
					t.Fatalf("value node at %d:%d of %q", n.Line, n.Column, ovs.Text)
				}
				for _, c := range n.Content {
					walk(c, depth+1)
				}
			}
			walk(o.Value, 0)
		}
	})
}

// FuzzCompose composes a fuzzed config over a fuzzed group file (and a
// few fixed ones) in memory, with fuzzed overrides: composition always
// ends, and every diagnostic points into a file it read or the command
// line.
func FuzzCompose(f *testing.F) {
	f.Add("defaults:\n  - model: a\n  - env/x@env.train\n  - _self_\ncluster: {num_nodes: 1, component_placement: {actor: all}}\n", "defaults:\n  - sub: y\nsize: 1\n", "model=b")
	f.Add("defaults:\n  - base\n  - override model: b\n", "defaults:\n  - model: a\ncluster: {num_nodes: ???}\n", "+cluster.x=1")
	f.Add("defaults:\n  - train\n", "x: 1\n", "~model")
	f.Add("defaults:\n  - optional model: nope\n  - model@_global_: a\nhydra: {searchpath: ['file://${oc.env:NOPE}/conf']}\n", "# @package _global_\ncluster: {num_nodes: 2}\n", "cluster.num_nodes=0x2")
	f.Add("defaults:\n  - model: [a, b]\n  - _self_\n  - _self_\n", "a: ${b}\nb: ${a}\n", "++a.b.c=[1,2]")
	f.Fuzz(func(t *testing.T, primary, group, override string) {
		files := fstest.MapFS{
			"train.yaml":       {Data: []byte(primary)},
			"base.yaml":        {Data: []byte(group)},
			"model/a.yaml":     {Data: []byte(group)},
			"model/b.yaml":     {Data: []byte("size: 2\n")},
			"model/sub/y.yaml": {Data: []byte("deep: true\n")},
			"env/x.yaml":       {Data: []byte("num_envs: 8\n")},
		}
		ovs, err := ParseOverrides(strings.Fields(override))
		if err != nil {
			ovs = Overrides{}
		}
		lim := DefaultLimits
		lim.MaxNodes, lim.MaxStringBytes = 5000, 4096
		opt := ConfigOptions{Limits: lim, Overrides: ovs,
			ReadFile: func(name string) ([]byte, error) { return fs.ReadFile(files, filepath.ToSlash(name)) },
			Stat:     func(name string) (fs.FileInfo, error) { return fs.Stat(files, filepath.ToSlash(name)) },
			ReadDir: func(dir string) ([]string, error) {
				es, err := fs.ReadDir(files, filepath.ToSlash(dir))
				var names []string
				for _, e := range es {
					names = append(names, e.Name())
				}
				return names, err
			},
			Getenv: func(string) (string, bool) { return "", false }}
		cfg, ds := LoadConfigWith("train.yaml", []byte(primary), opt)
		for _, d := range ds {
			if d.Primary.File == OverrideSource || d.Primary.File == "" {
				continue
			}
			if _, ok := files[filepath.ToSlash(d.Primary.File)]; !ok {
				t.Fatalf("diagnostic in %q: %s", d.Primary.File, d.Summary)
			}
		}
		if cfg != nil && cfg.NumNodes < 0 {
			t.Fatalf("num_nodes %d", cfg.NumNodes)
		}
		// compose's document: always JSON, every value placed in a file
		// composition read or on the command line.
		c, _ := ComposeValues("train.yaml", []byte(primary), opt)
		if c == nil {
			return
		}
		if _, err := json.Marshal(c.Config); err != nil {
			t.Fatalf("composed values: %v", err)
		}
		for _, p := range c.Paths {
			f := c.Spans[p].File
			if _, ok := files[filepath.ToSlash(f)]; !ok && f != OverrideSource && f != "" {
				t.Fatalf("%s placed in %q", p, f)
			}
		}
	})
}
