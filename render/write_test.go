package render_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/rlsolve/rlsolve/render"
)

// Write writes each format as its own writer does.
func TestWrite(t *testing.T) {
	in := plan(t, "heterogeneous")
	for f, direct := range map[render.Format]func(io.Writer) error{
		render.FormatTable: func(w io.Writer) error { return render.WriteTable(w, in) },
		render.FormatJSON:  func(w io.Writer) error { return render.WriteJSON(w, in, true) },
		render.FormatYAML:  func(w io.Writer) error { return render.WriteYAML(w, in) },
		render.FormatSVG:   func(w io.Writer) error { return render.SVG(w, in, render.Options{Title: "t"}) },
		render.FormatHTML:  func(w io.Writer) error { return render.HTML(w, in, render.Options{Title: "t"}) },
	} {
		var got, want bytes.Buffer
		if err := render.Write(&got, in, f, "t"); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := direct(&want); err != nil {
			t.Fatal(err)
		}
		if got.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: Write differs from its writer (%d bytes, want %d)", f, got.Len(), want.Len())
		}
	}
}
