// Command benchtable reads `go test -bench -benchmem` output on stdin and
// prints one row per benchmark with the median of its runs, and for
// BenchmarkCheck and BenchmarkPlan the growth of time between consecutive
// sizes beside the growth of the worker count. bench/run.sh runs it.
//
// It exits 1 when the input has a failure or no benchmark results.
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// result is every run of one benchmark, by unit (ns/op, B/op, ...).
type result struct {
	name string
	runs map[string][]float64
}

var procSuffix = regexp.MustCompile(`-\d+$`)

func main() {
	rs, header, failed, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if failed {
		fmt.Fprintln(os.Stderr, "benchtable: a benchmark failed")
		os.Exit(1)
	}
	if len(rs) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark results in the input")
		os.Exit(1)
	}
	write(os.Stdout, rs, header)
}

func parse(r io.Reader) (rs []*result, header []string, failed bool, err error) {
	byName := map[string]*result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "cpu:"), strings.HasPrefix(line, "goos:"), strings.HasPrefix(line, "goarch:"):
			if !slices.Contains(header, line) {
				header = append(header, line)
			}
			continue
		case strings.HasPrefix(line, "FAIL"), strings.HasPrefix(line, "--- FAIL"), strings.HasPrefix(line, "panic:"):
			failed = true
			continue
		case !strings.HasPrefix(line, "Benchmark"):
			continue
		}
		f := strings.Fields(line)
		// name, iterations, then value/unit pairs.
		if len(f) < 4 || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if procs := procSuffix.FindString(name); procs != "" {
			name = strings.TrimSuffix(name, procs)
			if h := "GOMAXPROCS: " + procs[1:]; !slices.Contains(header, h) {
				header = append(header, h)
			}
		}
		res := byName[name]
		if res == nil {
			res = &result{name: name, runs: map[string][]float64{}}
			byName[name] = res
			rs = append(rs, res)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, nil, false, fmt.Errorf("bad value %q in %q", f[i], line)
			}
			res.runs[f[i+1]] = append(res.runs[f[i+1]], v)
		}
	}
	return rs, header, failed, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// gpus is the N of a "Family/gpus=N" name, or 0.
func gpus(name string) int {
	_, after, ok := strings.Cut(name, "/gpus=")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(after)
	return n
}

func family(name string) string {
	family, _, _ := strings.Cut(name, "/")
	return family
}

func write(w io.Writer, rs []*result, header []string) {
	for _, h := range header {
		fmt.Fprintln(w, h)
	}
	fmt.Fprintln(w)
	rows := [][]string{{"benchmark", "GPUs", "workers", "time/op", "cpu/op", "B/op", "allocs/op", "time growth", "cpu growth", "worker growth", "time/2x", "cpu/2x"}}
	prev := map[string]*result{}
	runs := 0
	for _, r := range rs {
		t, cpu, workers := median(r.runs["ns/op"]), median(r.runs["cpu-ns/op"]), median(r.runs["workers"])
		runs = max(runs, len(r.runs["ns/op"]))
		g := "-"
		if n := gpus(r.name); n > 0 {
			g = strconv.Itoa(n)
		}
		cpuText := "-"
		if cpu > 0 {
			cpuText = duration(cpu)
		}
		growth, cgrowth, wgrowth, perDouble, cperDouble := "-", "-", "-", "-", "-"
		if p := prev[family(r.name)]; p != nil && gpus(r.name) > 0 {
			pt, pc, pw := median(p.runs["ns/op"]), median(p.runs["cpu-ns/op"]), median(p.runs["workers"])
			growth, cgrowth, wgrowth = ratio(t, pt), ratio(cpu, pc), ratio(workers, pw)
			perDouble, cperDouble = doubling(t, pt, workers, pw), doubling(cpu, pc, workers, pw)
		}
		if gpus(r.name) > 0 {
			prev[family(r.name)] = r
		}
		rows = append(rows, []string{r.name, g, fmt.Sprintf("%.0f", workers), duration(t), cpuText,
			bytes(median(r.runs["B/op"])), fmt.Sprintf("%.0f", median(r.runs["allocs/op"])), growth, cgrowth, wgrowth, perDouble, cperDouble})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", widths[i], c)
			} else {
				fmt.Fprintf(&b, "  %*s", widths[i], c)
			}
		}
		fmt.Fprintln(w, b.String())
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Medians of %d run(s). time: wall clock; cpu: CPU time of the process (all threads, GC included),\n", runs)
	fmt.Fprintln(w, "which other load on the machine disturbs less. growth: this size over the previous size; /2x: the")
	fmt.Fprintln(w, "same growth per doubling of the workers (2.00x is linear).")
}

// ratio is a/b as "2.05x", or "-" when either is unknown.
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// doubling is the growth from b to a per doubling of workers from wb to
// wa: (a/b)^(1/log2(wa/wb)).
func doubling(a, b, wa, wb float64) string {
	if a <= 0 || b <= 0 || wa <= wb || wb <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", math.Pow(a/b, 1/math.Log2(wa/wb)))
}

func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.2fs", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2fms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1fµs", ns/1e3)
	}
	return fmt.Sprintf("%.0fns", ns)
}

func bytes(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1fMiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1fKiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0fB", b)
}
