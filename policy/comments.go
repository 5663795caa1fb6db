package policy

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// directivePrefix starts a setting in a config's comment.
const directivePrefix = "rlsolve:"

// verbs are what a `# rlsolve:` comment can say.
var verbs = []string{"allow", "deny", "strict"}

// Comments reads the settings of a config's `# rlsolve:` comments,
// anywhere in the file:
//
//	# rlsolve: allow RLS-W0105 -- the agent pool needs none of the groups' NCCL settings
//	# rlsolve: deny W0104, W0105
//	# rlsolve: strict
//
// Codes are separated by commas or spaces; ` -- ` starts a reason, which
// rlsolve does not read. A comment that starts with `rlsolve:` but says
// something else is an error at that comment (RLS-E0114), with the nearest
// word or code as a fix: a mistyped setting would otherwise silently not
// apply.
func Comments(file string, data []byte) (Settings, model.Diagnostics) {
	var s Settings
	var ds model.Diagnostics
	for i, line := range bytes.Split(data, []byte("\n")) {
		col := commentStart(line)
		if col < 0 {
			continue
		}
		body := strings.TrimRight(string(line[col+1:]), "\r")
		text := strings.TrimLeft(body, " \t")
		rest, ok := strings.CutPrefix(text, directivePrefix)
		if !ok {
			continue
		}
		start := col + 1 + len(body) - len(text) // the byte of `rlsolve:`
		at := model.Span{File: file, Line: i + 1, Col: start + 1, EndLine: i + 1, EndCol: col + 2 + len(body)}
		if bad := s.directive(rest, at); bad != nil {
			d := ds.Errorf(model.CodePolicy, at, "", "%s", bad.err)
			d.Help = []model.Fix{{Message: "write `# rlsolve: allow CODE...`, `# rlsolve: deny CODE...` or `# rlsolve: strict` (codes as `rlsolve explain` lists them)"}}
			if bad.near != "" {
				// rest starts after `rlsolve:`, at column at.Col+len(prefix).
				c := at.Col + len(directivePrefix) + bad.at
				fix := model.Fix{Message: fmt.Sprintf("did you mean `%s`?", bad.near),
					Edits: []model.Edit{{Span: model.Span{File: file, Line: i + 1, Col: c, EndLine: i + 1, EndCol: c + len(bad.word)}, NewText: bad.near}}}
				d.Help = append([]model.Fix{fix}, d.Help...)
			}
		}
	}
	return s, ds
}

// badDirective is what is wrong with a comment's setting, and the word at
// byte at of its text that a near word or code would fix.
type badDirective struct {
	err        error
	word, near string
	at         int
}

// directive reads one comment's words after `rlsolve:`.
func (s *Settings) directive(text string, at model.Span) *badDirective {
	words, _, _ := strings.Cut(text, " -- ")
	words = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(words), "--"))
	verb, args, _ := strings.Cut(words, " ")
	verbAt := strings.Index(text, verb)
	by := fmt.Sprintf("`# rlsolve: %s` (%s)", words, at)
	switch verb {
	case "strict":
		if strings.TrimSpace(args) != "" {
			return &badDirective{err: fmt.Errorf("`# rlsolve: strict` takes no codes (deny them by name instead)")}
		}
		on := true
		s.Strict, s.StrictBy = &on, by
		return nil
	case "allow", "deny":
		lvl := Allow
		if verb == "deny" {
			lvl = Deny
		}
		codes := splitCodes(args)
		if len(codes) == 0 {
			return &badDirective{err: fmt.Errorf("`# rlsolve: %s` names no code", verb)}
		}
		from := verbAt + len(verb)
		for _, c := range codes {
			cAt := from + strings.Index(text[from:], c)
			from = cAt + len(c)
			code, err := Code(c, lvl)
			if err == nil {
				err = s.add(Setting{Code: code, Level: lvl, By: by})
			}
			if err != nil {
				bad := &badDirective{err: err, word: c, at: cAt}
				if _, known := diag.Explain(c); !known {
					bad.near = nearestCode(c)
				}
				return bad
			}
		}
		return nil
	}
	return &badDirective{err: fmt.Errorf("`# rlsolve: %s`: unknown setting %q; rlsolve comments say allow, deny or strict", words, verb),
		word: verb, near: fuzzy.Nearest(verb, verbs), at: verbAt}
}

// commentStart is the byte index of the `#` that starts the line's comment,
// or -1: a `#` at the start or after a space or tab, outside quotes. (A
// quoted scalar continued over lines, or a block scalar's text, can hide a
// `#` that is no comment; configs do not write `rlsolve:` settings there.)
func commentStart(line []byte) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'' && c == '\'':
			if i+1 < len(line) && line[i+1] == '\'' {
				i++ // '' is a quote inside single quotes
				continue
			}
			quote = 0
		case quote == '"' && c == '\\':
			i++
		case quote == '"' && c == '"':
			quote = 0
		case quote != 0:
		case (c == '"' || c == '\'') && (i == 0 || bytes.IndexByte([]byte(" \t[{,:-"), line[i-1]) >= 0):
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return -1
}
