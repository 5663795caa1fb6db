package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
)

// MaxPlanDocumentBytes bounds a plan document read back: 256 MiB, about
// 170,000 workers' records as `plan --output json` indents them (a
// 1,024-GPU plan is a few MB).
const MaxPlanDocumentBytes = 256 << 20

// DocumentError is a plan document that cannot be read back, located in
// it.
type DocumentError struct {
	Span model.Span
	Msg  string
}

func (e *DocumentError) Error() string { return e.Span.String() + ": " + e.Msg }

// Diagnostic is the error as rlsolve reports it.
func (e *DocumentError) Diagnostic() model.Diagnostic {
	return model.Diagnostic{Code: model.CodePlanDocument, Severity: model.SeverityError, Summary: e.Msg, Primary: e.Span,
		Help: []model.Fix{{Message: "write the plan document again with `rlsolve plan CONFIG --output json > plan.json`"}}}
}

// ReadPlanDocument reads back what `rlsolve plan --output json` wrote
// (WriteJSON), strictly: valid JSON of this format_version, values of the
// writer's types, every component in component_order, and each
// component's placements listed by rank from 0, world_size of them. It
// reads at most MaxPlanDocumentBytes. Errors are *DocumentError, at the
// file, line and column of the problem. Document.Records gives the workers.
func ReadPlanDocument(r io.Reader, file string) (*Document, error) {
	return readPlanDocument(r, file, MaxPlanDocumentBytes)
}

// readPlanDocument reads at most limit bytes.
func readPlanDocument(r io.Reader, file string, limit int) (*Document, error) {
	data, err := readAll(r, limit)
	if err != nil {
		return nil, &DocumentError{Span: model.Span{File: file}, Msg: fmt.Sprintf("cannot read the plan document: %v", err)}
	}
	if len(data) > limit {
		return nil, &DocumentError{Span: model.Span{File: file}, Msg: fmt.Sprintf("the plan document is over %d bytes, the most rlsolve reads", limit)}
	}
	rd := &docReader{file: file, data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))}
	if d, ok := rd.fastDocument(); ok {
		return d, nil
	}
	return rd.document()
}

// Records is the document's workers, component by component in
// component_order. They share the document's slices and maps.
func (d *Document) Records() *model.PlanRecords {
	pr := &model.PlanRecords{Components: make([]model.ComponentRecords, 0, len(d.Order))}
	for _, name := range d.Order {
		ps := d.Components[name].Placements
		ws := make([]model.WorkerRecord, len(ps))
		for j := range ps {
			ws[j] = model.WorkerRecord{Placement: ps[j].Placement, Hostname: ps[j].Hostname, Env: ps[j].Env}
		}
		pr.Components = append(pr.Components, model.ComponentRecords{Name: name, Workers: ws})
	}
	return pr
}

// docReader reads one plan document's text.
type docReader struct {
	file string
	data []byte
}

func (rd *docReader) errorAt(off, n int, format string, args ...any) *DocumentError {
	return &DocumentError{Span: model.OffsetSpan(rd.file, rd.data, off, n), Msg: fmt.Sprintf(format, args...)}
}

// errorIn is an error about the value at path (see locate).
func (rd *docReader) errorIn(path []any, format string, args ...any) *DocumentError {
	off, n := rd.locate(path...)
	return rd.errorAt(off, n, format, args...)
}

func (rd *docReader) document() (*Document, error) {
	if len(bytes.TrimSpace(rd.data)) == 0 {
		return nil, rd.errorAt(0, 1, "the file is empty, not a plan document")
	}
	if at := invalidUTF8(rd.data); at >= 0 {
		return nil, rd.errorAt(at, 1, "invalid UTF-8 (byte 0x%02x): a plan document is UTF-8 text", rd.data[at])
	}
	var d Document
	err := json.Unmarshal(rd.data, &d)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return nil, rd.errorAt(int(se.Offset)-1, 1, "invalid JSON: %v", se)
	}
	// The version first: another version's shape gives other errors.
	if d.FormatVersion != diag.FormatVersion {
		return nil, rd.versionError()
	}
	if err == nil {
		if de := rd.scanDocument(); de != nil {
			return nil, de
		}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off := rd.tokenStart(int(te.Offset))
		return nil, rd.errorAt(off, int(te.Offset)-off, "%s must be %s, not a JSON %s", fieldName(te.Field), typeName(te.Type), te.Value)
	}
	if err != nil {
		return nil, rd.errorAt(0, 1, "cannot read the plan document: %v", err)
	}
	if err := rd.validate(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// versionError says why the document's format_version is not this one.
func (rd *docReader) versionError() *DocumentError {
	var head struct {
		Version json.RawMessage `json:"format_version"`
	}
	if json.Unmarshal(rd.data, &head) != nil {
		return rd.errorIn(nil, "expected a plan document (a JSON object from `rlsolve plan --output json`)")
	}
	if head.Version == nil {
		return rd.errorIn(nil, "no format_version: not a plan document written by `rlsolve plan --output json`")
	}
	var v string
	if json.Unmarshal(head.Version, &v) != nil {
		return rd.errorIn([]any{"format_version"}, "format_version must be the string %q, not %s", diag.FormatVersion, head.Version)
	}
	return rd.errorIn([]any{"format_version"}, "format_version %q: this rlsolve reads plan documents of format_version %q", v, diag.FormatVersion)
}

// validate checks what the JSON types do not: the components and their
// order, and the records of each listed by rank.
func (rd *docReader) validate(d *Document) error {
	if d.Components == nil {
		return rd.errorIn(nil, "no components: not a plan document written by `rlsolve plan --output json`")
	}
	seen := make(map[string]bool, len(d.Order))
	for i, name := range d.Order {
		if _, ok := d.Components[name]; !ok {
			return rd.errorIn([]any{"component_order", i}, "component_order names %q, which components lacks", name)
		}
		if seen[name] {
			return rd.errorIn([]any{"component_order", i}, "component_order names %q twice", name)
		}
		seen[name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(d.Components)) {
		if !seen[name] {
			return rd.errorIn([]any{"components", name}, "component %q is missing from component_order", name)
		}
	}
	for _, name := range d.Order {
		if err := rd.validateComponent(name, d.Components[name]); err != nil {
			return err
		}
	}
	return nil
}

func (rd *docReader) validateComponent(name string, c DocComponent) error {
	at := func(rest ...any) []any { return append([]any{"components", name}, rest...) }
	if c.Placements == nil {
		return rd.errorIn(at("placements"), "%s has no placements list", name)
	}
	if c.WorldSize != len(c.Placements) {
		return rd.errorIn(at("world_size"), "%s's world_size is %d, but it lists %d placements", name, c.WorldSize, len(c.Placements))
	}
	for j := range c.Placements {
		p := &c.Placements[j]
		switch {
		case p.Rank != j:
			return rd.errorIn(at("placements", j, "rank"), "%s's placement %d has rank %d: placements are listed by rank from 0", name, j, p.Rank)
		case p.ClusterNodeRank < 0:
			return rd.errorIn(at("placements", j, "cluster_node_rank"), "%s/%d: cluster_node_rank %d is negative", name, j, p.ClusterNodeRank)
		}
		for k, h := range p.LocalHardwareRanks {
			if h < 0 {
				return rd.errorIn(at("placements", j, "local_hardware_ranks", k), "%s/%d: local hardware rank %d is negative", name, j, h)
			}
		}
	}
	return nil
}

// fieldName is encoding/json's dotted field path without the names of
// embedded structs (capitalized, where JSON names are snake_case), or
// "the document".
func fieldName(f string) string {
	parts := slices.DeleteFunc(strings.Split(f, "."), func(p string) bool { return p == "" || unicode.IsUpper(rune(p[0])) })
	if len(parts) == 0 {
		return "the document"
	}
	return strings.Join(parts, ".")
}

// typeName says in words what a Go type of the document holds.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return strings.TrimPrefix(t.String(), "render.")
}

// The functions below find positions again in a document already read,
// for its errors: encoding/json's values carry none.

// locate is the offset and length of the value at path (object keys and
// list indexes), or of the document where the path leads nowhere.
func (rd *docReader) locate(path ...any) (off, n int) {
	dec := json.NewDecoder(bytes.NewReader(rd.data))
	off = rd.skipSeparators(0)
	for _, step := range path {
		if !seekMember(dec, step) {
			return off, 1
		}
		off = rd.skipSeparators(int(dec.InputOffset()))
	}
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return off, 1
	}
	return off, len(raw)
}

// seekMember reads the next value's opening token and the members before
// step (a key of an object or an index of a list), leaving the decoder
// before step's value.
func seekMember(dec *json.Decoder, step any) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	var raw json.RawMessage
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return false
			}
			if key == step {
				return true
			}
			if dec.Decode(&raw) != nil {
				return false
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if step == any(i) {
				return true
			}
			if dec.Decode(&raw) != nil {
				return false
			}
		}
	}
	return false
}

// tokenStart is where the token that ends at or after end starts (the
// offset encoding/json gives a type error is the end of the value, or
// just after a list's or object's opening bracket).
func (rd *docReader) tokenStart(end int) int {
	dec := json.NewDecoder(bytes.NewReader(rd.data))
	for {
		start := rd.skipSeparators(int(dec.InputOffset()))
		if _, err := dec.Token(); err != nil || int(dec.InputOffset()) >= end {
			return start
		}
	}
}

// skipSeparators skips white space, commas and colons from off.
func (rd *docReader) skipSeparators(off int) int {
	for off < len(rd.data) && strings.IndexByte(" \t\r\n,:", rd.data[off]) >= 0 {
		off++
	}
	return off
}
