package grammar

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Composed is a config after composition and overrides, as Python holds it
// once OmegaConf resolved it (OmegaConf.to_container(cfg, resolve=True)),
// with the span every value came from. It is what `rlsolve compose`
// prints, so that Hydra's own composition can be compared with rlsolve's
// and an object composed by Hydra can be traced back to its files.
type Composed struct {
	// Config is the composed mapping; its values are ordered maps, lists
	// and Python scalars.
	Config Ordered
	// Paths are the key paths of every value in document order, in
	// OmegaConf's form (a.b[0].c); Spans holds their spans.
	Paths []string
	Spans map[string]model.Span
}

// Ordered is a mapping that keeps its keys' order in JSON.
type Ordered struct {
	Keys   []string
	Values []any
}

// MarshalJSON writes the pairs in order.
func (o Ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vj, err := json.Marshal(o.Values[i])
		if err != nil {
			return nil, err
		}
		b.Write(kj)
		b.WriteByte(':')
		b.Write(vj)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ComposeValues composes a config as check does (defaults list, overrides) and
// returns its values as Python holds them. Composition errors, and values
// OmegaConf could not resolve, are errors in the diagnostics; YAML 1.1's
// surprising readings (D3) are not, since Hydra reads them without a word:
// the value is the one Python reads.
func ComposeValues(file string, data []byte, opt ConfigOptions) (*Composed, model.Diagnostics) {
	d := compose(file, data, opt)
	if d.Root == nil {
		return nil, d.Diags
	}
	c := &Composed{Spans: map[string]model.Span{}}
	before := len(d.Diags)
	root, _ := c.value(d, d.Root, "", 0).(Ordered)
	c.Config = root
	kept := append(d.Diags[:before:before], yamlpos.WithoutSurprises(d.Diags[before:])...)
	if yamlpos.Deref(d.Root).Kind != yaml.MappingNode {
		d.WrongType(d.Root, "expected a mapping", d.File(), "a YAML mapping", yamlpos.KindName(d.Root))
		kept = append(kept, d.Diags[len(d.Diags)-1])
	}
	return c, kept
}

func (c *Composed) value(d *doc, n *yaml.Node, path string, depth int) any {
	n = yamlpos.Deref(n)
	if n == nil {
		return nil
	}
	if path != "" {
		c.Paths = append(c.Paths, path)
		c.Spans[path] = d.Span(n)
	}
	if depth > d.limits.MaxDepth {
		return nil // the reader refused it already
	}
	switch n.Kind {
	case yaml.MappingNode:
		var o Ordered
		for _, e := range d.Mapping(n) {
			p := e.Key
			if path != "" {
				p = path + "." + e.Key
			}
			o.Keys = append(o.Keys, e.Key)
			o.Values = append(o.Values, c.value(d, e.V, p, depth+1))
		}
		return o
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			out = append(out, c.value(d, item, path+"["+strconv.Itoa(i)+"]", depth+1))
		}
		return out
	}
	if yamlpos.IsMissing(n) {
		return yamlpos.Missing // to_container keeps OmegaConf's ??? as text
	}
	v, _ := d.Scalar(n, path)
	return pyJSON(v.Py)
}

// jsonNumber is the JSON number grammar; Python's repr of a finite float
// matches it, inf and nan do not.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

func pyJSON(v yamlpos.PyValue) any {
	switch v.Kind {
	case yamlpos.Null:
		return nil
	case yamlpos.Bool:
		return v.Str == "True"
	case yamlpos.Int, yamlpos.Float:
		if jsonNumber.MatchString(v.Str) {
			return json.Number(v.Str)
		}
	}
	return v.Str
}
