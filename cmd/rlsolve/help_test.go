package main

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every help/*.txt is some command's long help or examples: none is left
// behind when a command goes, and every command builds (help panics on a
// missing file).
func TestHelpFilesUsed(t *testing.T) {
	var texts []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		texts = append(texts, c.Long, c.Example)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no help files: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "help/"), ".txt")
		if text := help(name); text == "" || !slices.Contains(texts, text) {
			t.Errorf("%s is no command's help", f)
		}
	}
}
