package pipeline

import (
	"encoding/json"
	"io"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// ComposedDoc is what `rlsolve compose` prints: the composed values and
// where each came from.
type ComposedDoc struct {
	FormatVersion string                     `json:"format_version"`
	Config        grammar.Ordered            `json:"config"`
	Positions     map[string]*diag.JSONRange `json:"positions"`
}

// Composition is a config composed as check composes it.
type Composition struct {
	// File is the name spans use (grammar.StdinName for "-"), Data what
	// was read from it.
	File string
	Data []byte
	// Doc is nil when the config could not be read (ReadFailed) or
	// composed; Diagnostics say why.
	Doc         *ComposedDoc
	Diagnostics model.Diagnostics
	ReadFailed  bool
}

// Compose reads file ("-": stdin) and composes it (its Hydra defaults
// list, then ovs).
func Compose(file string, stdin io.Reader, ovs grammar.Overrides) *Composition {
	var d *model.Diagnostic
	c := &Composition{File: file}
	if file == "-" {
		c.File = grammar.StdinName
		c.Data, d = grammar.ReadFrom(c.File, stdin, grammar.DefaultLimits)
	} else {
		c.Data, d = grammar.ReadFile(file, grammar.DefaultLimits)
	}
	if d != nil {
		c.Diagnostics, c.ReadFailed = model.Diagnostics{*d}, true
		return c
	}
	composed, ds := grammar.ComposeValues(c.File, c.Data, grammar.ConfigOptions{Overrides: ovs})
	c.Diagnostics = ds
	if composed == nil || ds.HasErrors() {
		return c
	}
	c.Doc = &ComposedDoc{FormatVersion: diag.FormatVersion, Config: composed.Config, Positions: map[string]*diag.JSONRange{}}
	for _, p := range composed.Paths {
		c.Doc.Positions[p] = diag.Range(composed.Spans[p])
	}
	return c
}

// WriteJSON writes the document indented, names such as <stdin> and
// <command line> as they are.
func (d *ComposedDoc) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(d)
}
