package render

import "io"

// Write writes the plan in format f, any but FormatEnv (one worker's
// environment: WriteEnv); title heads a picture.
func Write(w io.Writer, in *Input, f Format, title string) error {
	switch f {
	case FormatJSON:
		return WriteJSON(w, in, true)
	case FormatYAML:
		return WriteYAML(w, in)
	case FormatSVG:
		return SVG(w, in, Options{Title: title})
	case FormatHTML:
		return HTML(w, in, Options{Title: title})
	}
	return WriteTable(w, in)
}
