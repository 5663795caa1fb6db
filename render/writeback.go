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

// WriteBack is the edits that replace each solved requirement of cfg with
// its placement, as RLinf reads it: `actor: {node_group: a800, placement:
// "0-15"}`. Everything else in the file (comments, key order, quoting,
// line endings, other values) is left byte for byte. A flow mapping on one
// line is rewritten whole, keeping its node_group as written; otherwise
// the first requirement key becomes `placement:` and the lines of the
// other requirement keys go (with their comments). A layout it cannot
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
		var es []model.Edit
		var err error
		if r.Flow {
			es, err = flowEdits(lines, e, s)
		} else {
			es, err = blockEdits(lines, e, s)
		}
		if err != nil {
			return nil, err
		}
		edits = append(edits, es...)
	}
	return edits, nil
}

// flowEdits rewrites `{gpus: 16, node_group: a800}` whole.
func flowEdits(lines [][]byte, e *model.ComponentEntry, s model.Solved) ([]model.Edit, error) {
	var parts []string
	switch {
	case s.WriteGroup:
		parts = append(parts, "node_group: "+labelsYAML(s.Labels))
	case len(e.NodeGroups) > 0:
		text, err := groupText(lines, e)
		if err != nil {
			return nil, err
		}
		parts = append(parts, "node_group: "+text)
	}
	parts = append(parts, "placement: "+strconv.Quote(s.Placement))
	return []model.Edit{{Span: e.Requirement.Span, NewText: "{" + strings.Join(parts, ", ") + "}"}}, nil
}

// groupText is a flow requirement's node_group as written, or the labels
// where it is written elsewhere (an alias, a merge key) or otherwise than
// as the labels themselves.
func groupText(lines [][]byte, e *model.ComponentEntry) (string, error) {
	sp, r := e.NodeGroupSpan, e.Requirement.Span
	if sp.File != r.File || sp.Line != r.Line || sp.Col < r.Col || sp.EndCol > r.EndCol {
		return labelsYAML(e.NodeGroups), nil
	}
	text, ok := sourceToken(lines, sp)
	switch {
	case !ok || strings.HasPrefix(text, "&"):
		// An anchor may be used elsewhere: it is not solve's to drop.
		return "", &WriteBackError{Span: sp, Msg: fmt.Sprintf("%s's node_group carries a YAML anchor, which a rewrite of the whole mapping would lose; write the requirement over several lines", strings.Join(e.Names, ","))}
	case strings.HasPrefix(text, "[") && strings.HasSuffix(text, "]"):
		return text, nil // a list, as written
	case strings.Trim(text, `"'`) != strings.Join(e.NodeGroups, ","):
		// A tag, a null, an escape: what it stands for.
		return labelsYAML(e.NodeGroups), nil
	}
	return text, nil
}

// blockEdits replaces the first requirement key of a block mapping (or
// of a flow mapping over several lines) with the placement and drops the
// lines of the others.
func blockEdits(lines [][]byte, e *model.ComponentEntry, s model.Solved) ([]model.Edit, error) {
	keys := e.Requirement.Keys
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: its requirement has no keys", strings.Join(e.Names, ","))
	}
	first := keys[0]
	if rest, ok := after(lines, first.Full); !ok || !endsValue(rest, true) {
		return nil, layoutError(e, first, "is followed by more than a comment on its last line")
	}
	text := "placement: " + strconv.Quote(s.Placement)
	if s.WriteGroup {
		eol := "\n"
		if l := lines[first.Full.Line-1]; len(l) > 0 && l[len(l)-1] == '\r' {
			eol = "\r\n"
		}
		text = "node_group: " + labelsYAML(s.Labels) + eol + strings.Repeat(" ", first.Full.Col-1) + text
	}
	edits := []model.Edit{{Span: first.Full, NewText: text}}
	for _, k := range keys[1:] {
		if why := aloneOnLines(lines, k.Full); why != "" {
			return nil, layoutError(e, k, why)
		}
		edits = append(edits, model.Edit{Span: linesOf(lines, k.Full)})
	}
	return edits, nil
}

// linesOf is the span of a key's whole lines, their line ending included;
// on the file's last line, which has none, the line ending before them.
func linesOf(lines [][]byte, sp model.Span) model.Span {
	if sp.EndLine < len(lines) {
		return model.Span{File: sp.File, Line: sp.Line, Col: 1, EndLine: sp.EndLine + 1, EndCol: 1}
	}
	prev := bytes.TrimSuffix(lines[sp.Line-2], []byte("\r"))
	return model.Span{File: sp.File, Line: sp.Line - 1, Col: len(prev) + 1, EndLine: sp.EndLine, EndCol: len(lines[sp.EndLine-1]) + 1}
}

func layoutError(e *model.ComponentEntry, k model.KeySpan, what string) *WriteBackError {
	return &WriteBackError{Span: k.At, Msg: fmt.Sprintf("%s.%s %s, so solve cannot put the placement in its place; write each requirement key on lines of its own, or the whole requirement on one line", strings.Join(e.Names, ","), k.Key, what)}
}

// aloneOnLines says why a key's lines do not hold only it (and a comment,
// or the comma after it in a flow mapping), or "" when they do.
func aloneOnLines(lines [][]byte, sp model.Span) string {
	if sp.Line < 2 || sp.EndLine > len(lines) {
		return "is not where its position says"
	}
	before := lines[sp.Line-1][:min(sp.Col-1, len(lines[sp.Line-1]))]
	if len(bytes.TrimSpace(before)) > 0 {
		return "shares a line with other keys"
	}
	if rest, ok := after(lines, sp); !ok || !endsValue(rest, false) {
		return "is followed by more than a comment on its last line"
	}
	return ""
}

// after is the text after a span on its last line, spaces trimmed.
func after(lines [][]byte, sp model.Span) (string, bool) {
	if sp.EndLine < 1 || sp.EndLine > len(lines) {
		return "", false
	}
	last := lines[sp.EndLine-1]
	return strings.TrimSpace(string(last[min(max(sp.EndCol-1, 0), len(last)):])), true
}

// endsValue reports whether rest can follow a whole `key: value` on its
// line: nothing or a comment, after a flow mapping's comma or not. A key
// kept in place may be followed by anything after its comma, or by the
// mapping's closing brace. A bracket means the span ended inside the value.
func endsValue(rest string, kept bool) bool {
	if kept && (strings.HasPrefix(rest, ",") || strings.HasPrefix(rest, "}")) {
		return true
	}
	rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	return rest == "" || rest[0] == '#'
}

// sourceToken is the source text of a one-line span, widened to the
// quotes around it.
func sourceToken(lines [][]byte, sp model.Span) (string, bool) {
	if sp.Line < 1 || sp.Line > len(lines) || sp.EndLine != sp.Line {
		return "", false
	}
	line := lines[sp.Line-1]
	from, to := sp.Col-1, sp.EndCol-1
	if from < 0 || to > len(line) || from > to {
		return "", false
	}
	if from > 0 && to < len(line) && (line[from-1] == '"' || line[from-1] == '\'') && line[to] == line[from-1] {
		from, to = from-1, to+1
	}
	return string(line[from:to]), true
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
