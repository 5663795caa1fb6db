package grammar

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// ReadFile reads an input, turning I/O problems into diagnostics.
func ReadFile(file string, lim Limits) ([]byte, *model.Diagnostic) {
	if lim.MaxFileBytes == 0 {
		lim = DefaultLimits
	}
	fail := func(code, format string, args ...any) ([]byte, *model.Diagnostic) {
		return nil, &model.Diagnostic{Code: code, Severity: model.SeverityError, Summary: fmt.Sprintf(format, args...), Primary: model.Span{File: file}}
	}
	st, err := os.Stat(file)
	if err == nil && st.IsDir() {
		return fail(model.CodeFileRead, "%s is a directory, not a config file", file)
	}
	if err == nil && st.Mode().IsRegular() && st.Size() > int64(lim.MaxFileBytes) {
		return nil, tooLarge(file, strconv.FormatInt(st.Size(), 10), lim.MaxFileBytes)
	}
	f, err := os.Open(file)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return fail(model.CodeFileRead, "cannot read %s: %v", file, err)
	}
	defer f.Close()
	size := lim.MaxFileBytes + 1
	if st != nil && st.Mode().IsRegular() {
		size = int(st.Size()) + 1
	}
	return readLimited(file, f, size, lim)
}

// StdinName is what spans call a config read from standard input
// (`rlsolve check -`).
const StdinName = "<stdin>"

// ReadFrom reads an input from r (standard input), bounded as ReadFile
// bounds a file; name is what spans call it.
func ReadFrom(name string, r io.Reader, lim Limits) ([]byte, *model.Diagnostic) {
	if lim.MaxFileBytes == 0 {
		lim = DefaultLimits
	}
	return readLimited(name, r, min(lim.MaxFileBytes+1, 64<<10), lim)
}

// readLimited reads r through the limit: a pipe or a device (/dev/zero)
// has no size to check first. The buffer starts at size (a file's size,
// else a guess) and never grows past what the limit allows.
func readLimited(name string, r io.Reader, size int, lim Limits) ([]byte, *model.Diagnostic) {
	fail := func(code, format string, args ...any) ([]byte, *model.Diagnostic) {
		return nil, &model.Diagnostic{Code: code, Severity: model.SeverityError, Summary: fmt.Sprintf(format, args...), Primary: model.Span{File: name}}
	}
	data := make([]byte, 0, size)
	for len(data) <= lim.MaxFileBytes {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew since Stat, or a pipe holds more
		}
		n, rerr := r.Read(data[len(data):min(cap(data), lim.MaxFileBytes+1)])
		data = data[:len(data)+n]
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fail(model.CodeFileRead, "cannot read %s: %v", name, rerr)
		}
	}
	if len(data) > lim.MaxFileBytes {
		return nil, tooLarge(name, "", lim.MaxFileBytes)
	}
	return data, nil
}

// tooLarge refuses an input of size bytes ("": more than max, where reading
// stopped) past max.
func tooLarge(name, size string, max int) *model.Diagnostic {
	d := yamlpos.Limit{What: name, Size: size, Max: max, Unit: " bytes"}.Diagnostic(model.Span{File: name}, "")
	return &d
}

// ReadSlimeCommand reads --slime's value: `@FILE` reads the command from a
// file and `@-` (or `-`) from in, both bounded by the limit on a slime
// command; anything else is the command itself. source names it for spans.
func ReadSlimeCommand(arg string, in io.Reader, lim Limits) (text, source string, d *model.Diagnostic) {
	if lim.MaxStringBytes == 0 {
		lim = DefaultLimits
	}
	file, isFile := strings.CutPrefix(arg, "@")
	switch {
	case arg == "-" || isFile && file == "-":
		data, err := io.ReadAll(io.LimitReader(in, int64(lim.expanded())+1))
		if err != nil {
			return "", "", &model.Diagnostic{Code: model.CodeFileRead, Severity: model.SeverityError,
				Summary: fmt.Sprintf("cannot read the slime command from standard input: %v", err), Primary: model.Span{File: "<stdin>"}}
		}
		if len(data) > lim.expanded() {
			d := yamlpos.Limit{What: "the slime command on standard input", Max: lim.expanded(), Unit: " bytes"}.Diagnostic(model.Span{File: "<stdin>"}, "")
			return "", "", &d
		}
		return string(data), "<stdin>", nil
	case isFile:
		flim := lim
		flim.MaxFileBytes = lim.expanded()
		data, d := ReadFile(file, flim)
		if d != nil {
			return "", "", d
		}
		return string(data), file, nil
	}
	return arg, SlimeSource, nil
}
