package pipeline_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Input limits (issue 8): every limit of grammar.Limits is refused with a
// located RLS-E error (exit 1; exit 2 for files that cannot be read), and
// refused before rlsolve allocates anything proportional to what the input
// asks for. Small limits keep the tests fast; the default limits are
// checked for allocation with inputs that would otherwise need gigabytes.

// small are limits small enough to reach with a few lines of YAML.
var small = grammar.Limits{
	MaxFileBytes:      4 << 10,
	MaxDepth:          8,
	MaxNodes:          200,
	MaxClusterNodes:   16,
	MaxRankValue:      1000,
	MaxProcesses:      100,
	MaxTotalProcesses: 150,
	MaxStringBytes:    32,
}

// exitCode is the CLI's exit code for an outcome (cmd/rlsolve exitFor).
func exitCode(o *pipeline.Outcome) int {
	switch {
	case o.Budget:
		return 3
	case o.IOError:
		return 2
	case o.Failed():
		return 1
	}
	return 0
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// refused checks that o is refused with code (exit want) and that the
// message says what; it returns the diagnostic.
func refused(t *testing.T, o *pipeline.Outcome, want int, code, what string) *model.Diagnostic {
	t.Helper()
	if got := exitCode(o); got != want {
		t.Fatalf("exit %d, want %d: %v", got, want, o.Diagnostics)
	}
	for i := range o.Diagnostics {
		d := &o.Diagnostics[i]
		if d.Code == code && d.Severity == model.SeverityError {
			if !strings.Contains(d.Summary, what) {
				t.Errorf("%s: %q does not say %q", code, d.Summary, what)
			}
			return d
		}
	}
	t.Fatalf("no %s error among %v", code, o.Diagnostics)
	return nil
}

// bounded runs f and fails when it allocates more than maxBytes or takes
// more than a few seconds.
func bounded(t *testing.T, maxBytes uint64, f func()) {
	t.Helper()
	start := time.Now()
	if n := allocated(f); n > maxBytes {
		t.Errorf("allocated %d bytes, want at most %d", n, maxBytes)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func check(src string, lim grammar.Limits) *pipeline.Outcome {
	return pipeline.CheckBytes("limits.yaml", []byte(src), pipeline.Options{GPUsPerNode: 8, Limits: lim})
}

func placement(nodes int, comps string) string {
	return fmt.Sprintf("cluster:\n  num_nodes: %d\n  component_placement:\n%s", nodes, comps)
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// A file over the size limit is refused from its size, before it is read:
// a sparse file of a gigabyte costs nothing.
func TestLimitFileSize(t *testing.T) {
	file := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	bounded(t, 1<<20, func() {
		o := pipeline.CheckFile(file, pipeline.Options{GPUsPerNode: 8})
		refused(t, o, 2, model.CodeLimit, "rlsolve reads at most 16777216")
		_, bad := pipeline.LoadInventory(file, grammar.Limits{})
		refused(t, bad, 2, model.CodeLimit, "rlsolve reads at most")
	})

	// The bytes themselves (CheckBytes, for callers that read the file).
	src := placement(1, "    actor: all\n") + "# " + strings.Repeat("x", small.MaxFileBytes) + "\n"
	refused(t, check(src, small), 1, model.CodeLimit, "rlsolve reads at most 4096")
	// One byte under the limit is read.
	src = src[:small.MaxFileBytes-1] + "\n"
	if o := check(src, small); exitCode(o) != 0 {
		t.Errorf("a file under the limit: %v", o.Diagnostics)
	}
}

// YAML nested deeper than the limit, in block and flow style, anywhere in
// the file (an unknown key too).
func TestLimitYAMLDepth(t *testing.T) {
	deep := func(levels int) string {
		var b strings.Builder
		b.WriteString(placement(1, "    actor: all\n"))
		b.WriteString("extra:\n")
		for i := 1; i < levels; i++ {
			b.WriteString(strings.Repeat("  ", i) + "k:\n")
		}
		b.WriteString(strings.Repeat("  ", levels) + "v: 1\n")
		return b.String()
	}
	o := check(deep(small.MaxDepth+1), small)
	d := refused(t, o, 1, model.CodeLimit, "the YAML nesting is over the limit; rlsolve reads at most 8 levels")
	if d.Primary.Line == 0 {
		t.Error("no position")
	}
	if o := check(deep(small.MaxDepth-3), small); o.Diagnostics.HasErrors() {
		t.Errorf("nesting under the limit: %v", o.Diagnostics)
	}
	flow := func(levels int) string {
		return placement(1, "    actor: all\n") + "extra: " + strings.Repeat("[", levels) + strings.Repeat("]", levels) + "\n"
	}
	refused(t, check(flow(10), small), 1, model.CodeLimit, "YAML nesting")

	// At the default limit (64): 5,000 levels are refused by rlsolve, past
	// 10,000 by the YAML parser itself (a syntax error); neither costs
	// much more than the file.
	bounded(t, 16<<20, func() {
		refused(t, check(flow(5000), grammar.DefaultLimits), 1, model.CodeLimit, "the YAML nesting is over the limit; rlsolve reads at most 64 levels")
	})
	bounded(t, 16<<20, func() {
		refused(t, check(flow(100_000), grammar.DefaultLimits), 1, model.CodeYAMLSyntax, "exceeded max depth")
	})
}

// Aliases that expand past the limit (billion laughs) are refused without
// being expanded, in a config and in an inventory.
func TestLimitAliasExpansion(t *testing.T) {
	laughs := func(levels, fan int) string {
		src := "a0: &a0 [" + strings.TrimSuffix(strings.Repeat("x, ", fan), ", ") + "]\n"
		for i := 1; i < levels; i++ {
			src += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), fan), ", "))
		}
		return src
	}
	refused(t, check(laughs(3, 6)+placement(1, "    actor: all\n"), small), 1, model.CodeLimit, "the YAML with its aliases expanded is over the limit; rlsolve reads at most 200 values")
	if o := check(laughs(2, 5)+placement(1, "    actor: all\n"), small); o.Diagnostics.HasErrors() {
		t.Errorf("aliases under the limit: %v", o.Diagnostics)
	}
	// 10^12 values at the default limit.
	src := laughs(12, 10) + placement(1, "    actor: all\n")
	bounded(t, 1<<20, func() {
		refused(t, check(src, grammar.DefaultLimits), 1, model.CodeLimit, "the YAML with its aliases expanded is over the limit; rlsolve reads at most 2000000 values")
	})
	inv := write(t, "inv.yaml", []byte(laughs(12, 10)+"nodes:\n  - rank: 0\n    accelerators: {count: 8}\n"))
	bounded(t, 1<<20, func() {
		_, bad := pipeline.LoadInventory(inv, grammar.Limits{})
		refused(t, bad, 1, model.CodeLimit, "aliases expanded is over the limit")
	})
}

// num_nodes over the limit is refused at num_nodes, before any node exists.
func TestLimitNumNodes(t *testing.T) {
	src := placement(small.MaxClusterNodes+1, "    actor: all\n")
	d := refused(t, check(src, small), 1, model.CodeLimit, "num_nodes is 17; rlsolve reads at most 16")
	if d.Primary.Line != 2 {
		t.Errorf("at %s, want line 2", d.Primary)
	}
	if o := check(placement(small.MaxClusterNodes, "    actor: 0-99\n"), small); o.Diagnostics.HasErrors() {
		t.Errorf("num_nodes at the limit: %v", o.Diagnostics)
	}
	for _, n := range []string{"2000000000", "9223372036854775807", "99999999999999999999999"} {
		bounded(t, 1<<20, func() {
			o := check("cluster:\n  num_nodes: "+n+"\n  component_placement:\n    actor: all\n", grammar.DefaultLimits)
			if exitCode(o) != 1 || o.Result != nil {
				t.Errorf("num_nodes %s: exit %d, planned %v", n, exitCode(o), o.Result != nil)
			}
		})
	}
}

// An inventory with more nodes than the limit, as a list or as one ranks
// range, is refused before the nodes are built.
func TestLimitInventoryNodes(t *testing.T) {
	lim := small
	lim.MaxFileBytes = 1 << 20
	list := "nodes:\n" + strings.Repeat("  - {accelerators: {count: 8}}\n", small.MaxClusterNodes+1)
	_, bad := pipeline.LoadInventory(write(t, "list.yaml", []byte(list)), lim)
	d := refused(t, bad, 1, model.CodeLimit, "the inventory is over the limit; rlsolve reads at most 16 nodes")
	if d.Primary.Line != small.MaxClusterNodes+2 {
		t.Errorf("at %s, want the 17th node", d.Primary)
	}
	// Numbered nodes: the 17th has a rank past the limit.
	list = "nodes:\n"
	for i := range small.MaxClusterNodes + 1 {
		list += fmt.Sprintf("  - {rank: %d, accelerators: {count: 8}}\n", i)
	}
	_, bad = pipeline.LoadInventory(write(t, "ranked.yaml", []byte(list)), lim)
	refused(t, bad, 1, model.CodeInventoryInvalid, "inventory rank 16 is out of range")

	_, bad = pipeline.LoadInventory(write(t, "ranks.yaml", []byte("nodes:\n  - {ranks: 0-16, accelerators: {count: 8}}\n")), lim)
	if exitCode(bad) != 1 {
		t.Fatalf("ranks 0-16 with a 16-node limit: %v", bad.Diagnostics)
	}
	if inv, bad := pipeline.LoadInventory(write(t, "ok.yaml", []byte("nodes:\n  - {ranks: 0-15, accelerators: {count: 8}}\n")), lim); bad != nil || len(inv.Nodes) != 16 {
		t.Errorf("16 nodes at a 16-node limit: %v", bad)
	}
	// A billion nodes at the default limit: refused from the range.
	file := write(t, "billion.yaml", []byte("nodes:\n  - {ranks: 0-999999999, accelerators: {count: 8}}\n  - {rank: 99999999999, accelerators: {count: 8}}\n"))
	bounded(t, 1<<20, func() {
		_, bad := pipeline.LoadInventory(file, grammar.Limits{})
		if exitCode(bad) != 1 {
			t.Errorf("a billion inventory nodes: %v", bad)
		}
	})
}

// Processes of one component over the limit, in one part or over several,
// are refused at the placement string.
func TestLimitProcessesPerComponent(t *testing.T) {
	for _, p := range []string{`"0:0-100"`, `"0-1:0-100"`, `"0:0-59,1:60-119"`} {
		t.Run(p, func(t *testing.T) {
			src := placement(1, "    actor: "+p+"\n")
			d := refused(t, check(src, small), 1, model.CodeProcessLimit, "processes in one component; the limit is 100")
			if d.Primary.Line != 4 {
				t.Errorf("at %s, want line 4", d.Primary)
			}
		})
	}
	if o := check(placement(1, "    actor: \"0:0-99\"\n"), small); o.Diagnostics.HasErrors() {
		t.Errorf("100 processes at a 100 limit: %v", o.Diagnostics)
	}
	// One more than the default limit.
	o := check(placement(1, "    actor: \"0:0-1048576\"\n"), grammar.DefaultLimits)
	refused(t, o, 1, model.CodeProcessLimit, "1048577 processes in one component; the limit is 1048576")
}

// The process limit is a rule checked before anything proportional to the
// processes is allocated (rules.Build counts them without expanding).
func TestLimitProcessesAllocation(t *testing.T) {
	for _, p := range []string{"0:0-1048576", "0:0-99999999"} {
		bounded(t, 16<<20, func() {
			refused(t, check(placement(1, "    actor: \""+p+"\"\n"), grammar.DefaultLimits), 1, model.CodeProcessLimit, "processes in one component")
		})
	}
}

// Processes over all components past the total limit.
func TestLimitTotalProcesses(t *testing.T) {
	src := placement(1, "    actor: \"0:0-79\"\n    rollout: \"1:0-79\"\n")
	d := refused(t, check(src, small), 1, model.CodeProcessLimit, "the config places more than 150 processes in all")
	if d.Primary.Line != 5 {
		t.Errorf("at %s, want line 5 (the component that passes the limit)", d.Primary)
	}
	if o := check(placement(1, "    actor: \"0:0-74\"\n    rollout: \"1:0-74\"\n"), small); o.Diagnostics.HasErrors() {
		t.Errorf("150 processes at a 150 limit: %v", o.Diagnostics)
	}
}

// Rank numbers over the limit, in placements and node_ranks, are refused
// while parsing, before any range is expanded.
func TestLimitRankValues(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"resource rank", placement(1, "    actor: \"0-1001\"\n")},
		{"process rank", placement(1, "    actor: \"0:0-1001\"\n")},
		{"node_ranks", "cluster:\n  num_nodes: 1\n  node_groups:\n    - {label: a, node_ranks: 0-1001}\n  component_placement:\n    actor: all\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := check(tc.src, small)
			if exitCode(o) != 1 {
				t.Fatalf("accepted: %v", o.Diagnostics)
			}
			var d *model.Diagnostic
			for i := range o.Diagnostics {
				if c := o.Diagnostics[i].Code; c == model.CodeLimit || c == model.CodeRankOutOfRange {
					d = &o.Diagnostics[i]
					break
				}
			}
			if d == nil || !strings.Contains(d.Summary, "1001") || d.Primary.Line == 0 {
				t.Errorf("want a located %s or %s naming 1001: %v", model.CodeLimit, model.CodeRankOutOfRange, o.Diagnostics)
			}
		})
	}
	for _, v := range []string{"0-99999999999999999999", "0:0-999999999", "99999999999"} {
		bounded(t, 1<<20, func() {
			if o := check(placement(1, "    actor: \""+v+"\"\n"), grammar.DefaultLimits); exitCode(o) != 1 {
				t.Errorf("%s: exit %d", v, exitCode(o))
			}
		})
	}
}

// A scalar longer than the limit (a placement, a node group label, an
// env var value) is refused where it is.
func TestLimitStringLength(t *testing.T) {
	long := strings.Repeat("a", small.MaxStringBytes+1)
	for _, tc := range []struct{ name, src string }{
		{"placement", placement(1, "    actor: \""+strings.Repeat("0,", 20)+"0\"\n")},
		{"node group label", "cluster:\n  num_nodes: 1\n  node_groups:\n    - {label: " + long + ", node_ranks: 0}\n  component_placement:\n    actor: all\n"},
		{"component name", placement(1, "    "+long+": all\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := refused(t, check(tc.src, small), 1, model.CodeLimit, "bytes; rlsolve reads at most 32 bytes")
			if d.Primary.Line == 0 {
				t.Error("no position")
			}
		})
	}
}

// Awkward files: each a clear error (or accepted where RLinf accepts
// them), for inventories as for configs; a directory or a missing file is
// exit 2.
func TestLimitAwkwardFiles(t *testing.T) {
	config := placement(1, "    actor: all\n")
	inventory := "nodes:\n  - rank: 0\n    accelerators: {count: 8}\n"
	for _, tc := range []struct {
		name   string
		config string // "" skips the config
		inv    string
		exit   int
		what   string
	}{
		{"empty", "", "", 1, ""},
		{"only a comment", "# nothing\n", "# nothing\n", 1, "holds no YAML document"},
		{"not UTF-8", strings.Replace(config, "all", "all # caf\xe9", 1), strings.Replace(inventory, "8}", "8} # caf\xe9", 1), 1, "is not valid UTF-8 text"},
		{"tab indentation", strings.Replace(config, "    actor", "\tactor", 1), strings.Replace(inventory, "    acc", "\tacc", 1), 1, "YAML syntax error"},
		{"BOM and CRLF", "\ufeff" + strings.ReplaceAll(config, "\n", "\r\n"), "\ufeff" + strings.ReplaceAll(inventory, "\n", "\r\n"), 0, ""},
		{"NUL bytes", config + "\x00\x00\n", inventory + "\x00\n", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgFile := write(t, "train.yaml", []byte(tc.config))
			o := pipeline.CheckFile(cfgFile, pipeline.Options{GPUsPerNode: 8})
			if got := exitCode(o); got != tc.exit {
				t.Errorf("config: exit %d, want %d: %v", got, tc.exit, o.Diagnostics)
			}
			if tc.exit != 0 && (len(o.Diagnostics) == 0 || !strings.Contains(o.Diagnostics[0].Summary, tc.what) || !strings.HasPrefix(o.Diagnostics[0].Code, "RLS-E")) {
				t.Errorf("config: want an error saying %q: %v", tc.what, o.Diagnostics)
			}
			invFile := write(t, "inventory.yaml", []byte(tc.inv))
			inv, bad := pipeline.LoadInventory(invFile, grammar.Limits{})
			switch {
			case tc.exit == 0 && (bad != nil || inv == nil || len(inv.Nodes) != 1):
				t.Errorf("inventory: refused: %v", bad)
			case tc.exit != 0 && bad == nil:
				t.Errorf("inventory: accepted")
			case tc.exit != 0 && (exitCode(bad) != tc.exit || !strings.HasPrefix(bad.Diagnostics[0].Code, "RLS-E")):
				t.Errorf("inventory: exit %d, want %d: %v", exitCode(bad), tc.exit, bad.Diagnostics)
			}
		})
	}
	dir := t.TempDir()
	refused(t, pipeline.CheckFile(dir, pipeline.Options{GPUsPerNode: 8}), 2, model.CodeFileRead, "is a directory, not a config file")
	_, bad := pipeline.LoadInventory(dir, grammar.Limits{})
	refused(t, bad, 2, model.CodeFileRead, "is a directory")
	refused(t, pipeline.CheckFile(filepath.Join(dir, "missing.yaml"), pipeline.Options{GPUsPerNode: 8}), 2, model.CodeFileRead, "cannot read")
}

// A file that is not a regular file (a character device, a pipe from
// `<(...)`) has no size to check first: it is read through the size limit,
// and never peeked at (a pipe can be read once).
func TestLimitNonRegularFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	bounded(t, 64<<20, func() {
		o, _ := pipeline.Check("/dev/zero", "", pipeline.Options{GPUsPerNode: 8})
		refused(t, o, 2, model.CodeLimit, "rlsolve reads at most")
	})
}

// At the default limits a scalar as written may pass 64 KiB (solve writes
// placement strings that long at 65,536 nodes, and must read them back),
// while a scalar that interpolation expands, and so multiplies, may not.
func TestLimitStringWrittenAndExpanded(t *testing.T) {
	var ranks []string
	for r := 0; r < 8192*8; r += 2 {
		ranks = append(ranks, fmt.Sprint(r))
	}
	list := strings.Join(ranks, ",")
	if len(list) <= 64<<10 {
		t.Fatalf("the placement is %d bytes, want more than 64 KiB", len(list))
	}
	if o := check(placement(8192, "    actor: \""+list+"\"\n"), grammar.DefaultLimits); exitCode(o) != 0 {
		t.Errorf("a %d-byte placement: %v", len(list), o.Diagnostics)
	}
	// 17 references to a 4 KiB value expand to 68 KiB.
	value := strings.Repeat("x", 4<<10)
	src := placement(1, "    actor: ${big}\n") + "note: " + value + "\nbig: \"" + strings.Repeat("${note}", 17) + "\"\n"
	refused(t, check(src, grammar.DefaultLimits), 1, model.CodeLimit, "with its interpolations expanded is over the limit; rlsolve reads at most 65536 bytes")
}
