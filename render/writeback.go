package render

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// WriteBack is the edits that replace each solved requirement of cfg with
// its placement, as RLinf reads it: `actor: {node_group: a800, placement:
// "0-15"}`. Everything else in the file (comments, key order, quoting,
// other values) is left byte for byte. A flow mapping is rewritten whole,
// keeping its node_group as written; in a block mapping the first
// requirement key becomes `placement:` and the other requirement keys'
// lines go.
func WriteBack(src []byte, cfg *model.Config, solved []model.Solved) ([]model.Edit, error) {
	lines := bytes.Split(src, []byte("\n"))
	var edits []model.Edit
	for _, s := range solved {
		if s.Entry < 0 || s.Entry >= len(cfg.Components) || cfg.Components[s.Entry].Requirement == nil {
			return nil, fmt.Errorf("entry %d states no requirement", s.Entry)
		}
		e := &cfg.Components[s.Entry]
		r := e.Requirement
		var es []model.Edit
		var err error
		if r.Flow && r.Span.Line == r.Span.EndLine {
			es, err = flowEdits(lines, e, s)
		} else {
			es, err = blockEdits(lines, e, s)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", strings.Join(e.Names, ","), err)
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
		text, ok := sourceToken(lines, e.NodeGroupSpan)
		if !ok {
			return nil, fmt.Errorf("its node_group is not where its position says")
		}
		parts = append(parts, "node_group: "+text)
	}
	parts = append(parts, "placement: "+strconv.Quote(s.Placement))
	return []model.Edit{{Span: e.Requirement.Span, NewText: "{" + strings.Join(parts, ", ") + "}"}}, nil
}

// blockEdits replaces the first requirement key of a block mapping with
// the placement and drops the lines of the others.
func blockEdits(lines [][]byte, e *model.ComponentEntry, s model.Solved) ([]model.Edit, error) {
	keys := e.Requirement.Keys
	if len(keys) == 0 {
		return nil, fmt.Errorf("its requirement has no keys")
	}
	first := keys[0].Full
	indent := strings.Repeat(" ", first.Col-1)
	text := "placement: " + strconv.Quote(s.Placement)
	if s.WriteGroup {
		text = "node_group: " + labelsYAML(s.Labels) + "\n" + indent + text
	}
	edits := []model.Edit{{Span: first, NewText: text}}
	for _, k := range keys[1:] {
		if !aloneOnLines(lines, k.Full) {
			return nil, fmt.Errorf("`%s` shares a line with other keys", k.Key)
		}
		edits = append(edits, model.Edit{Span: model.Span{File: k.Full.File, Line: k.Full.Line, Col: 1, EndLine: k.Full.EndLine + 1, EndCol: 1}})
	}
	return edits, nil
}

// aloneOnLines reports whether a key's lines hold only it (and a comment).
func aloneOnLines(lines [][]byte, sp model.Span) bool {
	if sp.Line < 1 || sp.EndLine > len(lines) || sp.EndLine >= len(lines) {
		return false
	}
	before := lines[sp.Line-1][:min(sp.Col-1, len(lines[sp.Line-1]))]
	last := lines[sp.EndLine-1]
	after := last[min(max(sp.EndCol-1, 0), len(last)):]
	rest := strings.TrimSpace(string(after))
	return strings.TrimSpace(string(before)) == "" && (rest == "" || strings.HasPrefix(rest, "#"))
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
