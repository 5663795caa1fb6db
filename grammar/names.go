package grammar

import (
	"strings"
	"unicode"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Component keys (`actor, env,rollout`) and node_group strings (`a800,4090`)
// are comma-separated names, each stripped; RLinf splits on every comma.

var nameLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comma", Pattern: `,`},
	{Name: "Name", Pattern: `[^,]+`},
})

// NameAST is one name with its position.
type NameAST struct {
	Pos  lexer.Position
	Text string `parser:"@Name"`
}

// NameListAST is `name ("," name)*`, where a name may be empty.
type NameListAST struct {
	First *NameAST   `parser:"@@?"`
	Rest  []*RestAST `parser:"@@*"`
}

// RestAST is `, name?`.
type RestAST struct {
	Pos  lexer.Position
	Name *NameAST `parser:"\",\" @@?"`
}

var nameListParser = participle.MustBuild[NameListAST](participle.Lexer(nameLexer))

// Name is one parsed name: stripped text and its byte offsets.
type Name struct {
	Text        string
	Off, EndOff int
}

// ParseNames splits s on commas and strips each name, keeping positions.
// Empty names are returned as such (a trailing comma makes one in RLinf).
func ParseNames(s string) []Name {
	ast, err := nameListParser.ParseString("", s)
	if err != nil {
		// The lexer accepts every character, so this cannot happen; fall
		// back to a plain split rather than lose the input.
		var out []Name
		off := 0
		for _, p := range strings.Split(s, ",") {
			out = append(out, stripped(p, off))
			off += len(p) + 1
		}
		return out
	}
	var out []Name
	name := func(n *NameAST, at int) {
		if n == nil {
			out = append(out, Name{Off: at, EndOff: at})
			return
		}
		out = append(out, stripped(n.Text, n.Pos.Offset))
	}
	name(ast.First, 0)
	for _, r := range ast.Rest {
		name(r.Name, r.Pos.Offset+1)
	}
	return out
}

// stripped strips like Python's str.strip() (Unicode whitespace), keeping
// the offsets of what remains.
func stripped(text string, off int) Name {
	left := strings.TrimLeftFunc(text, unicode.IsSpace)
	lead := len(text) - len(left)
	t := strings.TrimRightFunc(left, unicode.IsSpace)
	return Name{Text: t, Off: off + lead, EndOff: off + lead + len(t)}
}
