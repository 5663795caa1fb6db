// Package yamlpos is rlsolve's one positioned YAML reader: it reads YAML as
// RLinf's loader does (PyYAML's YAML 1.1 scalars, duplicate keys refused,
// merge keys, OmegaConf's ${...} interpolations and resolvers) and gives
// every value its exact span, in whichever file it came from. The grammar
// (check, plan) and suggest both read configs through it, so that they read
// every value the same way.
package yamlpos

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Limits bound what one document can make the reader allocate.
type Limits struct {
	MaxFileBytes   int // size of one input file
	MaxDepth       int // YAML nesting depth
	MaxNodes       int // YAML nodes after alias expansion, over all files of a document
	MaxStringBytes int // one scalar as written
	// MaxExpandedBytes bounds a scalar after interpolation (0: as
	// MaxStringBytes): a written scalar costs its bytes in the file, an
	// expanded one can multiply a small file.
	MaxExpandedBytes int
}

// Expanded is the bound on a scalar after interpolation.
func (l Limits) Expanded() int {
	if l.MaxExpandedBytes > 0 {
		return l.MaxExpandedBytes
	}
	return l.MaxStringBytes
}

// Source is one text that spans point into: a file, or a pseudo-file such
// as the command line.
type Source struct {
	Name  string
	lines [][]byte
}

func newSource(name string, data []byte) *Source {
	return &Source{Name: name, lines: bytes.Split(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"))}
}

// Doc is one document being read: a tree of YAML nodes, possibly composed
// from several sources, and the diagnostics found so far.
type Doc struct {
	// Root is the document's top node (nil when the file is unusable).
	Root *yaml.Node
	// Diags holds every problem found, located.
	Diags model.Diagnostics
	// Getenv answers OmegaConf's oc.env resolver; nil refuses it.
	Getenv func(string) (string, bool)

	lim  Limits
	main *Source
	// origin maps nodes of other sources than main to their source;
	// sources finds a source by name.
	origin  map[*yaml.Node]*Source
	sources map[string]*Source
	// nodes counts the nodes of every source read, against MaxNodes.
	nodes int
	// resolving guards ${...} chains against cycles; resolved keeps each
	// interpolated scalar's value.
	resolving map[*yaml.Node]bool
	resolved  map[*yaml.Node]resolution
	// reported holds nodes whose problem is already reported (a node read
	// twice, as composition does, reports once).
	reported map[*yaml.Node]bool
}

// Errorf records an error at span at and returns it for more detail.
func (d *Doc) Errorf(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	return d.add(model.SeverityError, code, at, label, format, args...)
}

// Warnf records a warning.
func (d *Doc) Warnf(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	return d.add(model.SeverityWarning, code, at, label, format, args...)
}

// Notef records a note.
func (d *Doc) Notef(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	return d.add(model.SeverityNote, code, at, label, format, args...)
}

func (d *Doc) add(sev model.Severity, code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	return d.Record(nil, diagnostic(sev, code, at, label, format, args...))
}

// diagnostic builds a located diagnostic with a formatted summary.
func diagnostic(sev model.Severity, code string, at model.Span, label, format string, args ...any) model.Diagnostic {
	return model.Diagnostic{Code: code, Severity: sev, Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label}
}

// File is the name of the document's first source.
func (d *Doc) File() string { return d.main.Name }

// Parse checks the raw bytes of one file and decodes them. Root is nil when
// the file cannot be used at all; Diags says why.
func Parse(file string, data []byte, lim Limits) *Doc {
	d := &Doc{lim: lim, main: &Source{Name: file}, origin: map[*yaml.Node]*Source{}, sources: map[string]*Source{},
		resolving: map[*yaml.Node]bool{}, resolved: map[*yaml.Node]resolution{}, reported: map[*yaml.Node]bool{}}
	d.Root, d.main = d.parse(file, data, "a `cluster:` section")
	d.sources[file] = d.main
	return d
}

// Add reads another file into the document (a config that composition
// draws in) and returns its root, or nil with the reason in Diags. Spans of
// its nodes point into file.
func (d *Doc) Add(file string, data []byte) *yaml.Node {
	root, src := d.parse(file, data, "")
	d.sources[file] = src
	if root != nil {
		d.place(root, src, map[*yaml.Node]bool{})
	}
	return root
}

// AddSource registers a text that is not YAML (the command line) so that
// nodes built from it can point into it with Place.
func (d *Doc) AddSource(name string, text []byte) *Source {
	src := newSource(name, text)
	d.sources[name] = src
	return src
}

// Place records that n and every node below it come from src.
func (d *Doc) Place(n *yaml.Node, src *Source) { d.place(n, src, map[*yaml.Node]bool{}) }

// PlaceSpan records that n (and what is below it) comes from the source
// that span points into, when the document knows it.
func (d *Doc) PlaceSpan(n *yaml.Node, span model.Span) {
	if src, ok := d.sources[span.File]; ok {
		d.Place(n, src)
	}
}

// Derive records that n, a node built while composing, comes from the
// same source as from (its span is from's).
func (d *Doc) Derive(n, from *yaml.Node) {
	if s, ok := d.origin[from]; ok {
		d.origin[n] = s
	}
}

func (d *Doc) place(n *yaml.Node, src *Source, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	d.origin[n] = src
	for _, c := range n.Content {
		d.place(c, src, seen)
	}
}

func (d *Doc) source(n *yaml.Node) *Source {
	if s, ok := d.origin[n]; ok {
		return s
	}
	return d.main
}

// parse reads one file's bytes; what names what an empty file lacks.
func (d *Doc) parse(file string, data []byte, what string) (*yaml.Node, *Source) {
	src := &Source{Name: file}
	whole := model.Span{File: file}
	if len(data) > d.lim.MaxFileBytes {
		d.Record(nil, Limit{What: file, Size: strconv.Itoa(len(data)), Max: d.lim.MaxFileBytes, Unit: " bytes"}.Diagnostic(whole, ""))
		return nil, src
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line, col := firstInvalid(data)
		d.Errorf(model.CodeYAMLSyntax, model.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + 1},
			"not UTF-8", "%s is not valid UTF-8 text", file)
		return nil, src
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if what == "" {
			return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, src // an empty group config adds nothing
		}
		d.Errorf(model.CodeYAMLSyntax, whole, "", "%s is empty: expected %s", file, what)
		return nil, src
	}
	if !d.checkTokens(file, data) {
		return nil, src
	}
	src = newSource(file, data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root, next yaml.Node
	if err := dec.Decode(&root); err != nil && err != io.EOF {
		d.syntaxError(src, err)
		return nil, src
	}
	// PyYAML's yaml.load, which OmegaConf uses, refuses a stream of more
	// than one document ("expected a single document in the stream").
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		d.syntaxError(src, err)
		return nil, src
	default:
		at := model.Span{File: file, Line: next.Line, Col: 1, EndLine: next.Line, EndCol: 4}
		diag := d.Errorf(model.CodeYAMLSyntax, at, "a second document starts here",
			"%s holds more than one YAML document; RLinf's loader reads a single document and refuses the file", file)
		diag.Help = []model.Fix{{Message: "keep one document: put the other in a file of its own, or delete the `---` line if it was meant to continue the first"}}
		return nil, src
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		d.Errorf(model.CodeYAMLSyntax, whole, "", "%s holds no YAML document", file)
		return nil, src
	}
	top := root.Content[0]
	if !d.checkSize(top, src) || !d.checkPyYAML(src, data, top) {
		return nil, src
	}
	return top, src
}

// RefuseEmpty makes a document that is only a null (`---`, `~`, `null`,
// `--- null`) an error at its null, or at line 1 when the null is implicit:
// a config or an inventory so written configures nothing.
func (d *Doc) RefuseEmpty() {
	n := d.Root
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!null" || Quoted(n) {
		return
	}
	at := d.Span(n)
	if n.Value == "" {
		at = model.Span{File: d.main.Name, Line: 1, Col: 1, EndLine: 1, EndCol: 2}
	}
	d.Errorf(model.CodeYAMLSyntax, at, "an empty document", "%s holds an empty YAML document (null): it configures nothing", d.main.Name).Help =
		[]model.Fix{{Message: "write the config's sections, or pass the file that has them"}}
	d.Root = nil
}

// nodeLimit words the node limit truthfully: aliases are blamed only
// when the document has some.
func nodeLimit(file string, aliases bool, max int) Limit {
	if aliases {
		return Limit{What: "the YAML with its aliases expanded", Max: max, Unit: " values"}
	}
	return Limit{What: "the YAML of " + file, Max: max, Unit: " values"}
}

// firstInvalid is the line and column of the first byte that is not UTF-8.
func firstInvalid(data []byte) (int, int) {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += n
		}
		i += n
	}
	return line, col
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// syntaxError turns yaml.v3's message (which carries only a line) into a
// located diagnostic, with a hint for the common tab mistake.
func (d *Doc) syntaxError(src *Source, err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	at := model.Span{File: src.Name}
	if line > 0 && line <= len(src.lines) {
		at = model.Span{File: src.Name, Line: line, Col: 1, EndLine: line, EndCol: len(src.lines[line-1]) + 1}
	}
	diag := d.Errorf(model.CodeYAMLSyntax, at, "", "YAML syntax error: %s", msg)
	for i, l := range src.lines {
		if j := bytes.IndexByte(l, '\t'); j >= 0 && len(bytes.TrimLeft(l[:j], " ")) == 0 {
			tab := model.Span{File: src.Name, Line: i + 1, Col: j + 1, EndLine: i + 1, EndCol: j + 2}
			if !at.Known() {
				diag.Primary = tab
			}
			diag.Labels = append(diag.Labels, model.Label{Span: tab, Message: "a tab indents this line"})
			diag.Help = append(diag.Help, model.Fix{Message: "YAML indentation must use spaces, not tabs"})
			break
		}
	}
}

// checkSize bounds nesting depth and the size the tree would have with
// every alias expanded (billion laughs), without expanding anything. The
// node budget is shared by every file of the document.
func (d *Doc) checkSize(root *yaml.Node, src *Source) bool {
	memo := map[*yaml.Node]int{}
	aliases := false
	at := func(n *yaml.Node) model.Span { return spanIn(src, n) }
	var size func(n *yaml.Node, depth int) int
	size = func(n *yaml.Node, depth int) int {
		if depth > d.lim.MaxDepth {
			d.Record(nil, Limit{What: "the YAML nesting", Max: d.lim.MaxDepth, Unit: " levels"}.Diagnostic(at(n), "too deep"))
			return -1
		}
		if v, ok := memo[n]; ok {
			return v
		}
		memo[n] = 1 // an alias cycle counts once
		total := 1
		kids := n.Content
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			kids, aliases = []*yaml.Node{n.Alias}, true
		}
		for _, c := range kids {
			s := size(c, depth+1)
			if s < 0 {
				return -1
			}
			total += s
			if d.nodes+total > d.lim.MaxNodes {
				d.Record(nil, nodeLimit(src.Name, aliases, d.lim.MaxNodes).Diagnostic(at(n), "the limit is crossed here"))
				return -1
			}
		}
		memo[n] = total
		return total
	}
	n := size(root, 0)
	if n < 0 {
		return false
	}
	d.nodes += n
	return true
}
