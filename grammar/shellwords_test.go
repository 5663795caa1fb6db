package grammar

import (
	"reflect"
	"strings"
	"testing"
)

// words is each command's word texts.
func lexTexts(t *testing.T, s string) [][]string {
	t.Helper()
	cmds, err := shellLex(s)
	if err != nil {
		t.Fatalf("%q: %+v", s, err)
	}
	var out [][]string
	for _, c := range cmds {
		var ws []string
		for _, w := range c.Words {
			ws = append(ws, w.Text)
		}
		out = append(out, ws)
	}
	return out
}

func TestShellLexWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want [][]string
	}{
		{"a b  c", [][]string{{"a", "b", "c"}}},
		// Continuations join lines; a continuation inside a word joins it.
		{"a \\\n  b \\\r\n c", [][]string{{"a", "b", "c"}}},
		{"ab\\\ncd", [][]string{{"abcd"}}},
		// Quotes are removed; single quotes keep everything, newlines too.
		{`'a b' "c d" e'f'"g"`, [][]string{{"a b", "c d", "efg"}}},
		{"--json='{\n \"k\": 1\n}'", [][]string{{"--json={\n \"k\": 1\n}"}}},
		{`"a\"b\\c\$d\e"`, [][]string{{`a"b\c$d\e`}}},
		{`\"a\ b`, [][]string{{`"a b`}}},
		// $'...' decodes bash's escapes (bash -x prints such words).
		{`$'a\nb\tc\'d\x41\101\u00e9'`, [][]string{{"a\nb\tc'dAA\u00e9"}}},
		{`$"x y"`, [][]string{{"x y"}}},
		// Expansions stay as written, nested quotes included.
		{`"$(cd "$(dirname -- "$0")" && pwd)/train.py" --n ${N:-"a b"} $X`,
			[][]string{{`$(cd "$(dirname -- "$0")" && pwd)/train.py`, "--n", `${N:-"a b"}`, "$X"}}},
		{"`echo a b` $((1 + (2))) ${A[@]}", [][]string{{"`echo a b`", "$((1 + (2)))", "${A[@]}"}}},
		// Comments, separators and redirections.
		{"a # b c\nd; e && f | g & h", [][]string{{"a"}, {"d"}, {"e"}, {"f"}, {"g"}, {"h"}}},
		{"a#b c", [][]string{{"a#b", "c"}}},
		{"cmd > out.log 2>&1 --x <in &>>all", [][]string{{"cmd", "--x"}}},
		{"cmd 2> err --y", [][]string{{"cmd", "--y"}}},
		// A here-document's body is not commands.
		{"cat > f <<'EOF'\n--colocate\nEOF\npython train.py", [][]string{{"cat"}, {"python", "train.py"}}},
		{"cat <<-END x\n\t--colocate\n\tEND\ny", [][]string{{"cat", "x"}, {"y"}}},
		// NAME=(...) is one word; assignments before a command are words.
		{"ARGS=(\n --a 1  # c\n --b\n) FOO=1 python3 x.py", [][]string{{"ARGS=(\n --a 1  # c\n --b\n)", "FOO=1", "python3", "x.py"}}},
		{"diff <(a b) x", [][]string{{"diff", "<(a b)", "x"}}},
		{"a $", [][]string{{"a", "$"}}},
	} {
		if got := lexTexts(t, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// Each byte of a word's text maps to the input byte it came from, and
// expansions are located in the text.
func TestShellLexOffsets(t *testing.T) {
	s := "x \"--a=${B}\" \\\n 'c d' $'e\\n' \"${C[@]}\""
	cmds, err := shellLex(s)
	if err != nil || len(cmds) != 1 || len(cmds[0].Words) != 5 {
		t.Fatalf("%+v %+v", cmds, err)
	}
	ws := cmds[0].Words
	a := ws[1]
	if a.Text != "--a=${B}" || a.Offs[0] != 3 || a.Offs[4] != 7 || a.Off != 2 || a.End != 12 {
		t.Errorf("word %+v", a)
	}
	if len(a.Exps) != 1 || a.Exps[0] != (shellExp{From: 4, To: 8, Name: "B", Quoted: true}) {
		t.Errorf("expansions %+v", a.Exps)
	}
	if c := ws[2]; c.Text != "c d" || s[c.Offs[2]] != 'd' {
		t.Errorf("single-quoted %+v", c)
	}
	if e := ws[3]; e.Text != "e\n" || e.Offs[1] != strings.Index(s, `\n'`) {
		t.Errorf("$'' %+v", e)
	}
	if arr := ws[4]; len(arr.Exps) != 1 || !arr.Exps[0].Array || arr.Exps[0].Name != "C" || !arr.Exps[0].Quoted {
		t.Errorf("array %+v", arr)
	}
	for _, w := range ws {
		for i, off := range w.Offs {
			if off < w.Off || off >= w.End {
				t.Errorf("%q byte %d at %d outside [%d, %d)", w.Text, i, off, w.Off, w.End)
			}
		}
	}
}

func TestShellLexErrors(t *testing.T) {
	for _, c := range []struct {
		in  string
		off int
		msg string
	}{
		{"a 'b", 2, "unterminated single quote"},
		{`a "b`, 2, "unterminated double quote"},
		{`a $'b`, 2, "unterminated $' quote"},
		{"a `b", 2, "unterminated backquote"},
		{"a ${b", 3, "unterminated ${"},
		{"a $(b", 3, "unterminated $( or ("},
		{`"$(echo "x)"`, 2, "unterminated $( or ("},
		{strings.Repeat(`"$(`, 100), -1, "nested too deeply"},
	} {
		_, err := shellLex(c.in)
		if err == nil || c.off >= 0 && err.Off != c.off || !strings.Contains(err.Msg, c.msg) {
			t.Errorf("%q: %+v, want %q at %d", c.in, err, c.msg, c.off)
		}
	}
}
