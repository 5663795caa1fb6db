package yamlpos

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzTokens checks the two scanners that read a file before (and beside)
// yaml.v3: the token count bounds the nodes yaml.v3 builds from any text
// it decodes (at most twice the tokens, plus the document and its nesting),
// and a refused tab is a tab.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"a:\n  - 1\n  - [x, {y: }]\n", "a:\nb:\n", "[a:, b: ]", "- - - -\n", "a: |\n  x\ty\n", "a: \"x\ty\"\t\n", "{a: , b: }", "? a\n? b\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		data := []byte(src)
		n, _ := tokenCount(data, len(data)+1)
		if n > len(data) {
			t.Fatalf("%d tokens in %d bytes", n, len(data))
		}
		if at := firstBadTab(data); at >= 0 && data[at] != '\t' {
			t.Fatalf("refused tab at %d is %q", at, data[at])
		}
		var root yaml.Node
		if yaml.NewDecoder(bytes.NewReader(data)).Decode(&root) != nil {
			return
		}
		nodes, depth := countNodes(&root, 0)
		if nodes > 2*n+depth+2 {
			t.Fatalf("%d nodes, depth %d, from %d tokens", nodes, depth, n)
		}
	})
}

// countNodes counts the nodes as written (aliases once) and the depth.
func countNodes(n *yaml.Node, depth int) (int, int) {
	total, deepest := 1, depth
	for _, c := range n.Content {
		k, d := countNodes(c, depth+1)
		total += k
		deepest = max(deepest, d)
	}
	return total, deepest
}
