package render

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// WriteBackError is a requirement that solve cannot replace where it is
// written (keys sharing a line, a mapping shared through a YAML alias):
// the input's layout, located, not a fault of the placement.
type WriteBackError struct {
	Span model.Span
	Msg  string
}

func (e *WriteBackError) Error() string { return e.Msg }

// WriteBack is the edits that write each solved requirement of cfg's
// placement beside its keys, as RLinf reads it (it ignores the other keys
// of the mapping): `actor: {placement: "0-15", gpus: 16, node_group:
// a800}`. The requirement stays, so that solve can place the file again
// after a node fails (issue 25 item 7); a placement solve wrote before is
// replaced. Everything else in the file (comments, key order, quoting,
// line endings, other values) is left byte for byte. A layout it cannot
// edit that way is a *WriteBackError.
func WriteBack(src []byte, cfg *model.Config, solved []model.Solved) ([]model.Edit, error) {
	if len(solved) > 0 && bytes.Contains(bytes.ReplaceAll(src, []byte("\r\n"), nil), []byte("\r")) {
		// YAML breaks lines there too, and positions would not match.
		return nil, &WriteBackError{Span: model.Span{File: cfg.ComponentsSpan.File}, Msg: "the file ends a line with a carriage return alone; solve edits files whose lines end in LF or CRLF"}
	}
	lines := bytes.Split(src, []byte("\n"))
	var edits []model.Edit
	owner := map[model.Span]string{}
	for _, s := range solved {
		if s.Entry < 0 || s.Entry >= len(cfg.Components) || cfg.Components[s.Entry].Requirement == nil {
			return nil, fmt.Errorf("entry %d states no requirement", s.Entry)
		}
		e := &cfg.Components[s.Entry]
		r := e.Requirement
		name := strings.Join(e.Names, ",")
		if other, ok := owner[r.Span]; ok {
			return nil, &WriteBackError{Span: e.KeySpan, Msg: fmt.Sprintf("%s's requirement is the mapping of %s (a YAML alias), and one mapping takes one placement; write %s's requirement out", name, other, name)}
		}
		owner[r.Span] = name
		es, err := entryEdits(lines, e, s)
		if err != nil {
			return nil, err
		}
		edits = append(edits, es...)
	}
	return edits, nil
}

// entryEdits writes one placement: over the one written before, else
// before the first requirement key, on a line of its own in a block
// mapping and followed by a comma in a flow one.
func entryEdits(lines [][]byte, e *model.ComponentEntry, s model.Solved) ([]model.Edit, error) {
	r := e.Requirement
	name := strings.Join(e.Names, ",")
	if s.WriteGroup && len(e.NodeGroups) == 0 && r.Placed.Known() {
		return nil, &WriteBackError{Span: r.Placed, Msg: fmt.Sprintf("%s is placed on node group %s, which its mapping does not name; write `node_group: %s` beside its placement", name, labelsYAML(s.Labels), labelsYAML(s.Labels))}
	}
	placement := strconv.Quote(s.Placement)
	if r.Placed.Known() {
		return []model.Edit{{Span: r.Placed, NewText: placement}}, nil
	}
	if len(r.Keys) == 0 {
		return nil, fmt.Errorf("%s: its requirement has no keys", name)
	}
	at := r.Keys[0].Full
	if at.Line < 1 || at.Line > len(lines) {
		return nil, fmt.Errorf("%s: its first requirement key is not where its position says", name)
	}
	sep := ", "
	if !r.Braced {
		eol := "\n"
		if l := lines[at.Line-1]; len(l) > 0 && l[len(l)-1] == '\r' {
			eol = "\r\n"
		}
		sep = eol + strings.Repeat(" ", at.Col-1)
	}
	text := "placement: " + placement + sep
	if s.WriteGroup {
		text = "node_group: " + labelsYAML(s.Labels) + sep + text
	}
	return []model.Edit{{Span: model.Span{File: at.File, Line: at.Line, Col: at.Col, EndLine: at.Line, EndCol: at.Col}, NewText: text}}, nil
}

// labelsYAML writes node group labels as a YAML scalar RLinf reads as
// the same string: bare when it is a plain word, else quoted.
func labelsYAML(labels []string) string {
	s := strings.Join(labels, ",")
	if model.PlainWord(s) {
		return s
	}
	return strconv.Quote(s)
}
