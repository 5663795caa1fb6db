package main

import (
	"os"

	"github.com/rlsolve/rlsolve/internal/textedit"
)

// envSecondWriter, set in a script, puts a second writer in the way of
// `exec rlsolve`: its value is appended, as a line, to the file rlsolve is
// about to write, after rlsolve read it (an editor saving meanwhile).
const envSecondWriter = "RLSOLVE_TEST_SECOND_WRITER"

func secondWriter() {
	text := os.Getenv(envSecondWriter)
	if text == "" {
		return
	}
	textedit.TestHookBeforeLock = func(target string) {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			panic(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text + "\n"); err != nil {
			panic(err)
		}
	}
}
