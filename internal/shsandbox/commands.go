package shsandbox

import (
	"context"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// Every external command the script runs is intercepted; none runs. Most
// are stubs: no output, status 0, so `pkill -9 python`,
// `ray job submit`, `rm -rf /` and `sleep` do nothing. A few, whose output
// a launch script's placement can depend on, have deterministic stand-ins:
//
//	nproc            Options.CPUs
//	nvidia-smi -L    one line per GPU of Options.GPUs ("GPU 0: NVIDIA GPU (UUID: GPU-0)")
//	hostname         Options.Hostname (-I: Options.IP)
//	date             a fixed instant, 2000-01-01 00:00:00 UTC (+FORMAT honoured)
//	mktemp           a new empty file (-d: folder) under TempDir, in memory
//	dirname, basename, realpath, readlink -f: path arithmetic only
//	cat, tee, head, wc, tr, seq: text filters on the sandbox's files and pipes
//
// Placement never hinges on anything else such a script runs.

// standIn runs one stand-in; ok is false for a plain stub.
type standIn func(s *sandbox, ctx context.Context, args []string) error

var standIns = map[string]standIn{
	"nproc":      func(s *sandbox, ctx context.Context, _ []string) error { return s.outf(ctx, "%d\n", s.opt.CPUs) },
	"nvidia-smi": (*sandbox).nvidiaSMI,
	"hostname":   (*sandbox).hostname,
	"date":       (*sandbox).date,
	"mktemp":     (*sandbox).mktemp,
	"dirname":    func(s *sandbox, ctx context.Context, a []string) error { return s.eachPath(ctx, a, path.Dir) },
	"basename":   (*sandbox).basename,
	"realpath":   (*sandbox).realpath,
	"readlink":   (*sandbox).realpath,
	"cat":        (*sandbox).cat,
	"tee":        (*sandbox).tee,
	"head":       (*sandbox).head,
	"wc":         (*sandbox).wc,
	"tr":         (*sandbox).tr,
	"seq":        (*sandbox).seq,
}

// exec is the interpreter's ExecHandler: record, then stand in or stub.
func (s *sandbox) exec(ctx context.Context, args []string) error {
	if err := s.step(ctx); err != nil {
		return err
	}
	s.record(ctx, args)
	name := path.Base(args[0])
	if f, ok := standIns[name]; ok {
		return f(s, ctx, args[1:])
	}
	return nil
}

func (s *sandbox) outf(ctx context.Context, format string, a ...any) error {
	_, err := fmt.Fprintf(interp.HandlerCtx(ctx).Stdout, format, a...)
	return err
}

func (s *sandbox) nvidiaSMI(ctx context.Context, args []string) error {
	for _, a := range args {
		if a == "-L" || a == "--list-gpus" {
			for i := 0; i < s.opt.GPUs; i++ {
				if err := s.outf(ctx, "GPU %d: NVIDIA GPU (UUID: GPU-%d)\n", i, i); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return nil
}

func (s *sandbox) hostname(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "-I" || args[0] == "-i" || args[0] == "--all-ip-addresses") {
		return s.outf(ctx, "%s\n", s.opt.IP)
	}
	return s.outf(ctx, "%s\n", s.opt.Hostname)
}

func (s *sandbox) date(ctx context.Context, args []string) error {
	for _, a := range args {
		if f, ok := strings.CutPrefix(a, "+"); ok {
			r := strings.NewReplacer("%Y", "2000", "%m", "01", "%d", "01", "%H", "00", "%M", "00", "%S", "00", "%s", "946684800", "%N", "000000000", "%%", "%")
			return s.outf(ctx, "%s\n", r.Replace(f))
		}
	}
	return s.outf(ctx, "Sat Jan  1 00:00:00 UTC 2000\n")
}

func (s *sandbox) mktemp(ctx context.Context, args []string) error {
	dir, tmpl := false, "tmp.XXXXXXXXXX"
	for _, a := range args {
		switch {
		case a == "-d" || a == "--directory":
			dir = true
		case !strings.HasPrefix(a, "-"):
			tmpl = a
		}
	}
	s.mu.Lock()
	s.temps++
	n := s.temps
	s.mu.Unlock()
	x := strings.LastIndex(tmpl, "XXX")
	k := x
	for k > 0 && tmpl[k-1] == 'X' {
		k--
	}
	name := tmpl
	if x >= 0 {
		end := x + 3
		for end < len(tmpl) && tmpl[end] == 'X' {
			end++
		}
		num := fmt.Sprintf("%0*d", end-k, n)
		name = tmpl[:k] + num[len(num)-(end-k):] + tmpl[end:]
	}
	p := name
	if !path.IsAbs(p) {
		p = path.Join(TempDir, p)
	} else {
		p = path.Clean(p)
	}
	if dir {
		s.fs.mu.Lock()
		s.fs.dirs[p] = true
		s.fs.mu.Unlock()
	} else if err := s.fs.write(p, nil, false); err != nil {
		return err
	}
	return s.outf(ctx, "%s\n", p)
}

// operands are the arguments that are not options.
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

func (s *sandbox) eachPath(ctx context.Context, args []string, f func(string) string) error {
	for _, a := range operands(args) {
		if err := s.outf(ctx, "%s\n", f(a)); err != nil {
			return err
		}
	}
	return nil
}

func (s *sandbox) basename(ctx context.Context, args []string) error {
	ops := operands(args)
	if len(ops) == 0 {
		return nil
	}
	b := path.Base(ops[0])
	if len(ops) > 1 && ops[1] != b {
		b = strings.TrimSuffix(b, ops[1])
	}
	return s.outf(ctx, "%s\n", b)
}

func (s *sandbox) realpath(ctx context.Context, args []string) error {
	dir := interp.HandlerCtx(ctx).Dir
	return s.eachPath(ctx, args, func(p string) string { return absPath(dir, p) })
}

// input is stdin, or the named files read through the sandbox.
func (s *sandbox) input(ctx context.Context, files []string) ([]byte, error) {
	hc := interp.HandlerCtx(ctx)
	if len(files) == 0 || len(files) == 1 && files[0] == "-" {
		if hc.Stdin == nil {
			return nil, nil
		}
		return io.ReadAll(io.LimitReader(hc.Stdin, int64(s.opt.Limits.MaxOutput)))
	}
	var out []byte
	for _, f := range files {
		data, err := s.fs.ReadFile(ctx, absPath(hc.Dir, f))
		if err != nil {
			fmt.Fprintf(hc.Stderr, "%s: %v\n", f, err)
			return out, interp.NewExitStatus(1)
		}
		out = append(out, data...)
	}
	return out, nil
}

func (s *sandbox) cat(ctx context.Context, args []string) error {
	data, err := s.input(ctx, operands(args))
	if _, werr := interp.HandlerCtx(ctx).Stdout.Write(data); werr != nil {
		return werr
	}
	return err
}

func (s *sandbox) tee(ctx context.Context, args []string) error {
	data, err := s.input(ctx, nil)
	if err != nil {
		return err
	}
	hc := interp.HandlerCtx(ctx)
	appendTo := false
	for _, a := range args {
		appendTo = appendTo || a == "-a" || a == "--append"
	}
	for _, f := range operands(args) {
		if err := s.fs.write(absPath(hc.Dir, f), data, appendTo); err != nil {
			return err
		}
	}
	_, err = hc.Stdout.Write(data)
	return err
}

// count reads -n N, -nN or -N (default 10).
func count(args []string) int {
	for i, a := range args {
		v := ""
		switch {
		case (a == "-n" || a == "-c") && i+1 < len(args):
			v = args[i+1]
		case strings.HasPrefix(a, "-n") || strings.HasPrefix(a, "-c"):
			v = a[2:]
		case len(a) > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9':
			v = a[1:]
		}
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return 10
}

func (s *sandbox) head(ctx context.Context, args []string) error {
	var files []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && (i == 0 || args[i-1] != "-n" && args[i-1] != "-c") {
			files = append(files, a)
		}
	}
	data, err := s.input(ctx, files)
	n := max(count(args), 0)
	bytesMode := false
	for _, a := range args {
		bytesMode = bytesMode || strings.HasPrefix(a, "-c")
	}
	if bytesMode {
		data = data[:min(n, len(data))]
	} else {
		lines := strings.SplitAfter(string(data), "\n")
		data = []byte(strings.Join(lines[:min(n, len(lines))], ""))
	}
	if _, werr := interp.HandlerCtx(ctx).Stdout.Write(data); werr != nil {
		return werr
	}
	return err
}

func (s *sandbox) wc(ctx context.Context, args []string) error {
	data, err := s.input(ctx, operands(args))
	if err != nil {
		return err
	}
	l, w, c := strings.Count(string(data), "\n"), len(strings.Fields(string(data))), len(data)
	for _, a := range args {
		switch a {
		case "-l":
			return s.outf(ctx, "%d\n", l)
		case "-w":
			return s.outf(ctx, "%d\n", w)
		case "-c", "-m":
			return s.outf(ctx, "%d\n", c)
		}
	}
	return s.outf(ctx, "%7d %7d %7d\n", l, w, c)
}

func (s *sandbox) seq(ctx context.Context, args []string) error {
	var n []int
	for _, a := range operands(args) {
		v, err := strconv.Atoi(a)
		if err != nil {
			return interp.NewExitStatus(1)
		}
		n = append(n, v)
	}
	first, step, last := 1, 1, 0
	switch len(n) {
	case 1:
		last = n[0]
	case 2:
		first, last = n[0], n[1]
	case 3:
		first, step, last = n[0], n[1], n[2]
	default:
		return interp.NewExitStatus(1)
	}
	if step == 0 {
		return interp.NewExitStatus(1)
	}
	var b strings.Builder
	for i, k := first, 0; (step > 0 && i <= last || step < 0 && i >= last) && k < s.opt.Limits.MaxSteps; i, k = i+step, k+1 {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return s.outf(ctx, "%s", b.String())
}

// tr handles -d SET and SET1 SET2 with ranges and [:upper:]/[:lower:].
func (s *sandbox) tr(ctx context.Context, args []string) error {
	del := false
	var sets []string
	for _, a := range args {
		switch {
		case a == "-d":
			del = true
		case strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			sets = append(sets, expandSet(a))
		}
	}
	data, err := s.input(ctx, nil)
	if err != nil || len(sets) == 0 {
		return err
	}
	out := make([]byte, 0, len(data))
	for _, c := range data {
		i := strings.IndexByte(sets[0], c)
		switch {
		case i < 0:
			out = append(out, c)
		case del:
		case len(sets) > 1 && len(sets[1]) > 0:
			out = append(out, sets[1][min(i, len(sets[1])-1)])
		}
	}
	_, err = interp.HandlerCtx(ctx).Stdout.Write(out)
	return err
}

func expandSet(a string) string {
	a = strings.NewReplacer("[:upper:]", "A-Z", "[:lower:]", "a-z", "[:digit:]", "0-9", "[:space:]", " \t\n\r\v\f", `\n`, "\n", `\t`, "\t").Replace(a)
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		if i+2 < len(a) && a[i+1] == '-' && a[i] <= a[i+2] {
			for c := int(a[i]); c <= int(a[i+2]); c++ {
				b.WriteByte(byte(c))
			}
			i += 2
			continue
		}
		b.WriteByte(a[i])
	}
	return b.String()
}
