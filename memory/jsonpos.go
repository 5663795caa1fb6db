package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rlsolve/rlsolve/model"
)

// InputError is a problem with a memory input file (a model config.json,
// a --model-config or --mem-profile file), located in it.
type InputError struct {
	Span model.Span
	Msg  string
}

func (e *InputError) Error() string { return e.Span.String() + ": " + e.Msg }

// Diagnostic is err, met reading a memory input, as rlsolve reports it
// (RLS-E1006): an *InputError where it locates the problem, any other
// error at at.
func Diagnostic(err error, at model.Span) model.Diagnostic {
	d := model.Diagnostic{Code: model.CodeMemoryInput, Severity: model.SeverityError, Summary: err.Error(), Primary: at}
	if ie, ok := errors.AsType[*InputError](err); ok {
		d.Summary, d.Primary = ie.Msg, ie.Span
	}
	return d
}

// source is one input file's text, for turning byte offsets into spans.
type source struct {
	file string
	data []byte
}

// span covers n bytes at offset off (at least one character).
func (s source) span(off, n int) model.Span { return model.OffsetSpan(s.file, s.data, off, n) }

func (s source) errorf(off, n int, format string, args ...any) *InputError {
	return &InputError{Span: s.span(off, n), Msg: fmt.Sprintf(format, args...)}
}

// member is one "key": value of a JSON object, with the value's offset in
// the file.
type member struct {
	key    string
	keyOff int
	value  json.RawMessage
	off    int
}

// objectMembers reads the JSON object at data[base:end] one member at a time
// (a later duplicate key wins, as in Python's json.load). Syntax errors are
// located at their byte.
func (s source) objectMembers(base, end int) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(s.data[base:end]))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, s.syntax(base, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, s.errorf(base+skipSpace(s.data[base:end], 0), 1, "expected a JSON object")
	}
	var out []member
	for dec.More() {
		keyStart := base + int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, s.syntax(base, dec, err)
		}
		key, _ := tok.(string)
		keyStart += skipSpaceComma(s.data[keyStart:end])
		var raw json.RawMessage
		after := base + int(dec.InputOffset())
		if err := dec.Decode(&raw); err != nil {
			return nil, s.syntax(base, dec, err)
		}
		valOff := after + skipColon(s.data[after:end])
		out = append(out, member{key: key, keyOff: keyStart, value: raw, off: valOff})
	}
	if _, err := dec.Token(); err != nil {
		return nil, s.syntax(base, dec, err)
	}
	if rest := skipSpace(s.data[base:end], int(dec.InputOffset())); rest < end-base {
		return nil, s.errorf(base+rest, 1, "unexpected text after the JSON object")
	}
	return out, nil
}

// syntax locates a decoding error. The decoder's offsets are not
// consistent between tokens and values, so the error is located again by
// one full parse, whose offset counts the bytes up to the bad one.
func (s source) syntax(base int, dec *json.Decoder, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return s.errorf(max(len(s.data)-1, 0), 1, "the JSON ends too early")
	}
	off := base + int(dec.InputOffset())
	var se *json.SyntaxError
	if uerr := json.Unmarshal(s.data[base:], new(any)); errors.As(uerr, &se) {
		off, err = base+int(se.Offset)-1, se
	}
	return s.errorf(max(off, 0), 1, "invalid JSON: %v", err)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func skipSpaceComma(b []byte) int {
	i := 0
	for i < len(b) && (isSpace(b[i]) || b[i] == ',') {
		i++
	}
	return i
}

func skipColon(b []byte) int {
	i := 0
	for i < len(b) && (isSpace(b[i]) || b[i] == ':') {
		i++
	}
	return i
}
