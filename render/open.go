package render

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// OpenPlanDocument opens file when it holds a plan document: "-" (stdin),
// a file named *.json, or one whose text starts with '{' or '[', as JSON
// does and RLinf's YAML configs do not; plan --diff and solve --from
// decide alike, so that they read the same bad document the same way. It
// returns a nil reader for anything else, a file that cannot be opened
// included (with its error); close closes what it opened.
func OpenPlanDocument(file string, stdin io.Reader) (r io.Reader, close func(), err error) {
	if file == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReader(f)
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return br, func() { f.Close() }, nil
	}
	head, _ := br.Peek(4096)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(head) == 0 || head[0] != '{' && head[0] != '[' {
		f.Close()
		return nil, nil, nil
	}
	return br, func() { f.Close() }, nil
}
