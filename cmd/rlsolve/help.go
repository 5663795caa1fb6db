package main

import (
	"embed"
	"strings"
)

// The commands' long help and examples are prose, kept as text files in
// help/ (NAME.txt, NAME.example.txt) so that the Go files hold the wiring.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is help/NAME.txt without its final newline. The files are built
// in: a missing one fails every command's construction, so every test.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("rlsolve: no help text " + name)
	}
	return strings.TrimSuffix(string(b), "\n")
}
