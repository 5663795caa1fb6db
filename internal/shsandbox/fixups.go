package shsandbox

import (
	"bytes"
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// mvdan.cc/sh's parser reads an array element that starts with `[` as
// `[index]=value` and rejects it without the `=`; bash reads it as a plain
// word (a glob that matches nothing). slime's model files write Megatron's
// `--moe-layer-freq [0]*$N_DENSE+[1]*$N_MOE` inside MODEL_ARGS=( ... ).
// Such a `[` is replaced before parsing by a byte of the same length that
// the parser reads as a literal, and put back in the syntax tree after.

// bracketStandIn replaces a `[` the parser would misread; it never occurs
// in a shell script's text (checked before use).
const bracketStandIn = '\x01'

const maxBracketFixes = 256

// parseScript parses src, working around the parser's array-element `[`.
func parseScript(src []byte, name string) (*syntax.File, error) {
	if bytes.IndexByte(src, bracketStandIn) >= 0 {
		return syntax.NewParser().Parse(bytes.NewReader(src), name)
	}
	text := src
	fixed := false
	for range maxBracketFixes {
		file, err := syntax.NewParser().Parse(bytes.NewReader(text), name)
		off, ok := misreadBracket(text, err)
		if !ok {
			if fixed && err == nil {
				restoreBrackets(file)
			}
			return file, err
		}
		if !fixed {
			text = append([]byte(nil), src...)
			fixed = true
		}
		text[off] = bracketStandIn
	}
	return syntax.NewParser().Parse(bytes.NewReader(src), name)
}

// misreadBracket is the offset of the `[` the parser misread, if err is
// that error.
func misreadBracket(src []byte, err error) (int, bool) {
	var pe syntax.ParseError
	if err == nil || !errors.As(err, &pe) || !strings.Contains(pe.Text, "must be followed by") {
		return 0, false
	}
	off := int(pe.Pos.Offset())
	if off < 0 || off >= len(src) || src[off] != '[' {
		return 0, false
	}
	return off, true
}

func restoreBrackets(file *syntax.File) {
	syntax.Walk(file, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.Lit); ok {
			l.Value = strings.ReplaceAll(l.Value, string(rune(bracketStandIn)), "[")
		}
		return true
	})
}

// sourceable rewrites a file the script sources when the parser would
// misread it, escaping each such `[` (a sourced file's positions are not
// traced, so its length may change).
func sourceable(p string, data []byte) []byte {
	if !strings.HasSuffix(p, ".sh") && !strings.HasSuffix(p, ".bash") {
		return data
	}
	out := data
	for range maxBracketFixes {
		_, err := syntax.NewParser().Parse(bytes.NewReader(out), p)
		off, ok := misreadBracket(out, err)
		if !ok {
			return out
		}
		out = append(append(append([]byte(nil), out[:off]...), '\\'), out[off:]...)
	}
	return data
}
