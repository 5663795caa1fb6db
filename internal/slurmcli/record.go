package slurmcli

import (
	"fmt"
	"regexp"
	"strings"
)

// Record is one key=value record of scontrol's output (`scontrol show node
// -o`, `scontrol show job -o`).
type Record struct {
	// Fields holds every key=value of the record (the first value of a
	// key that appears twice; later ones are text of the value before).
	Fields map[string]string
	// Line is the record's first line in the output.
	Line int
}

// Error is a problem in Slurm output at a position.
type Error struct {
	Source    string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Source, e.Line, e.Col, e.Msg)
}

// key is how scontrol's keys look (CamelCase), so that "fail=yes" inside a
// Reason stays text.
var key = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*=`)

// ParseRecords parses scontrol's records: one per line (-o), or the
// multi-line form (records separated by blank lines, continuation lines
// indented). Every record starts with first= (NodeName, JobId). Values may
// contain spaces (OS=Linux 6.1 #1 SMP ...): a word without `key=`
// continues the previous value. source names the output in errors; more
// than max records is an error.
func ParseRecords(source string, data []byte, first string, max int) ([]Record, error) {
	p := recordParser{source: source, first: first}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == "" || (line[0] != ' ' && line[0] != '\t') {
			p.flush()
		}
		if err := p.line(i+1, line); err != nil {
			return nil, err
		}
		if err := p.bound(max); err != nil {
			return nil, err
		}
	}
	p.flush()
	if err := p.bound(max); err != nil {
		return nil, err
	}
	return p.out, nil
}

func (p *recordParser) bound(max int) error {
	if len(p.out) > max {
		return &Error{p.source, p.out[len(p.out)-1].Line, 1, fmt.Sprintf("more than %d records", max)}
	}
	return nil
}

type recordParser struct {
	source, first string
	out           []Record
	cur           *Record
	lastKey       string
}

func (p *recordParser) flush() {
	if p.cur != nil {
		p.out = append(p.out, *p.cur)
		p.cur = nil
	}
}

// line reads the words of one line into the current record.
func (p *recordParser) line(ln int, line string) error {
	col := 0
	for col < len(line) {
		for col < len(line) && (line[col] == ' ' || line[col] == '\t') {
			col++
		}
		if col >= len(line) {
			break
		}
		end := col
		for end < len(line) && line[end] != ' ' && line[end] != '\t' {
			end++
		}
		if err := p.word(ln, col, line[col:end]); err != nil {
			return err
		}
		col = end
	}
	return nil
}

func (p *recordParser) word(ln, col int, word string) error {
	if !key.MatchString(word) {
		if p.cur == nil {
			return &Error{p.source, ln, col + 1, fmt.Sprintf("expected key=value, found %q (is this scontrol's -o output?)", clip(word))}
		}
		if p.lastKey != "" {
			p.cur.Fields[p.lastKey] += " " + word
		}
		return nil
	}
	k, v, _ := strings.Cut(word, "=")
	if p.cur == nil {
		if k != p.first {
			return &Error{p.source, ln, col + 1, fmt.Sprintf("expected a record starting with %s=, found %q", p.first, clip(word))}
		}
		p.cur = &Record{Fields: map[string]string{}, Line: ln}
		p.lastKey = ""
	}
	if _, dup := p.cur.Fields[k]; dup {
		// A repeated key (inside a Reason, say) is text of the value
		// before it; the first value stands.
		if p.lastKey != "" {
			p.cur.Fields[p.lastKey] += " " + word
		}
		return nil
	}
	p.cur.Fields[k] = v
	p.lastKey = k
	return nil
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
