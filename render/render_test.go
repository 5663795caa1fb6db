package render_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/longtest"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/strategies"
)

var (
	update      = flag.Bool("update", false, "rewrite the golden files under testdata/")
	screenshots = flag.Bool("screenshots", false, "keep the browser test's screenshots under ../testdata/screenshots/")
)

// examples are the golden cases: a small plan, a collocated plan whose
// rollout groups are strided, and the heterogeneous one (GPUs of two
// kinds, robots shared by env workers, CPU workers on every node).
var examples = []string{"single-node", "collocated-tp", "heterogeneous"}

func plan(t *testing.T, example string) *render.Input {
	t.Helper()
	dir := filepath.Join("..", "examples", example)
	inv, bad := pipeline.LoadInventory(filepath.Join(dir, "inventory.yaml"), grammar.DefaultLimits)
	if bad != nil {
		t.Fatalf("%s: inventory: %v", example, bad.Diagnostics)
	}
	o := pipeline.CheckFile(filepath.Join(dir, "train.yaml"), pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	if o.Result == nil || o.Result.Plan == nil || o.Diagnostics.HasErrors() {
		t.Fatalf("%s does not plan: %v", example, o.Diagnostics)
	}
	return o.RenderInput()
}

// resultInput is what the outputs read of a plan made by strategies.
func resultInput(r *strategies.Result) *render.Input {
	return &render.Input{Plan: r.Plan, Nodes: r.Cluster.Nodes, Cluster: r.Cluster.Cluster, Workers: r.Cluster}
}

func title(example string) render.Options {
	return render.Options{Title: "examples/" + example + "/train.yaml"}
}

func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, got, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what render writes now; if the change is intended, run go test ./render -update and review the diff", path)
	}
}

func TestGolden(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			r := plan(t, ex)
			var svg, html bytes.Buffer
			if err := render.SVG(&svg, r, title(ex)); err != nil {
				t.Fatal(err)
			}
			if err := render.HTML(&html, r, title(ex)); err != nil {
				t.Fatal(err)
			}
			golden(t, ex+".svg", svg.Bytes())
			golden(t, ex+".html", html.Bytes())
			selfContained(t, html.String())
			selfContained(t, svg.String())
			wellFormed(t, svg.Bytes())
		})
	}
}

// wellFormed fails when the SVG is not well-formed XML.
func wellFormed(t *testing.T, data []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

// selfContained fails when the page could fetch anything: the only URL
// allowed is the SVG namespace, which is a name, not a fetch.
func selfContained(t *testing.T, page string) {
	t.Helper()
	rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"http:", "https:", "//cdn", "src=", "href=", "@import", "url(", "<link", "<img", "<iframe", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(rest, bad) {
			t.Errorf("output contains %q: it must not load anything", bad)
		}
	}
}

// TestContent checks what the issue asks the picture to show, on the
// heterogeneous example and on the strided one.
func TestContent(t *testing.T) {
	var b bytes.Buffer
	if err := render.SVG(&b, plan(t, "heterogeneous"), title("heterogeneous")); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{
		// one row per node, labelled with rank, host and group
		`data-node="0"`, `data-node="4"`, ">node 0<", ">a800-0 · 10.0.0.1<", ">group: 4090<", ">franka-ctl-0 · 10.10.10.100<",
		// cells per GPU, robot and CPU slot, with the ranks on them
		">GPU 7<", ">Franka 0<", ">Franka 1<", ">CPU<", ">actor 15<", ">rollout 0<", ">agent 40-49<",
		// env workers share the robots, two on each
		">env 0-1<", ">env 2-3<", ">shared ×2<",
		// the legend
		">actor<", "16 worker(s), flexible on a800",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("heterogeneous SVG lacks %q", want)
		}
	}
	if n := strings.Count(svg, `<g class="row"`); n != 5 {
		t.Errorf("heterogeneous SVG has %d rows, want 5 (one per node)", n)
	}

	b.Reset()
	if err := render.SVG(&b, plan(t, "collocated-tp"), title("collocated-tp")); err != nil {
		t.Fatal(err)
	}
	svg = b.String()
	// rollout TP 2 with stride 2: rollout 0 holds GPUs 0 and 2, rollout 1
	// holds 1 and 3; each is a line with one dot per GPU, in lanes of their own.
	for _, want := range []string{"stride 2", ">rollout 0<", ">rollout 1<", "rollout rank 1 holds gpu:1,3", ">shared ×3<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("collocated-tp SVG lacks %q", want)
		}
	}
	if n := strings.Count(svg, `<g class="span"`); n != 8 {
		t.Errorf("collocated-tp SVG draws %d multi-GPU workers, want 8 (the rollout workers)", n)
	}
}

// TestCollapsed: at 16 nodes the scaling layout's identical consecutive
// nodes are one row each in the SVG (4 rows: actor and reward, rollout,
// inference, env), saying which nodes and the first and last node's ranks;
// the HTML page holds each node's own row too, hidden until expanded.
// Up to 8 nodes every node has its row.
func TestCollapsed(t *testing.T) {
	in := scaleInput(t, 128)
	var svg, page bytes.Buffer
	if err := render.SVG(&svg, in, render.Options{}); err != nil {
		t.Fatal(err)
	}
	s := svg.String()
	if n := strings.Count(s, `<g class="row"`); n != 4 || strings.Count(s, "data-nodes=") != 4 {
		t.Errorf("the SVG has %d rows, want 4 rows of several nodes", n)
	}
	for _, want := range []string{">nodes 0-7<", ">8 nodes, same layout<", ">nodes 8-11<", ">4 nodes, same layout<", ">nodes 14-15<",
		">actor 0…56<", ">reward 7…63<", ">rollout 0…12<", ">env 0-1…16-17<", "rollout 0…<", ">shared ×2<", ">10 worker(s)<",
		"Overview · 16 node(s)", "4 rows below", "nodes 8-11 · 4 of 16 node(s) · 16 worker(s)", `class="ov-seg" data-node="12"`} {
		if !strings.Contains(s, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	wellFormed(t, svg.Bytes())
	if err := render.HTML(&page, in, render.Options{}); err != nil {
		t.Fatal(err)
	}
	h := page.String()
	if n := strings.Count(h, `<div class="members" hidden>`); n != 4 {
		t.Errorf("the page has %d hidden runs of node rows, want 4", n)
	}
	if n := strings.Count(h, `<g class="row" data-node=`) - strings.Count(h, "data-nodes="); n != 16 {
		t.Errorf("the page has %d rows of one node, want 16", n)
	}

	in = scaleInput(t, 64)
	svg.Reset()
	if err := render.SVG(&svg, in, render.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), `<g class="row"`); n != 8 || strings.Contains(svg.String(), "data-nodes=") {
		t.Errorf("8 nodes: %d rows, want one per node", n)
	}
}

func TestNoPlan(t *testing.T) {
	var b bytes.Buffer
	if err := render.SVG(&b, nil, render.Options{}); err == nil {
		t.Error("SVG of a nil result: want an error")
	}
	if err := render.HTML(&b, &render.Input{}, render.Options{}); err == nil {
		t.Error("HTML of a result without a plan: want an error")
	}
}

// TestEscaping puts markup in every name a config controls.
func TestEscaping(t *testing.T) {
	inv := &model.Inventory{Nodes: []model.Node{{Rank: 0, Hostname: `<h&"x'>`, AccelCount: 2, AccelModel: "</svg>"}}}
	cfg := &model.Config{NumNodes: 1, Components: []model.ComponentEntry{{Names: []string{"<script>alert(1)</script>"},
		Segments: []model.Segment{{ResStart: 0, ResEnd: 1}}}}}
	r, err := strategies.Expand(cfg, inv, strategies.Options{Class: model.ClassHybrid})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return render.SVG(b, resultInput(r), render.Options{Title: "a<b>"}) },
		func(b *bytes.Buffer) error { return render.HTML(b, resultInput(r), render.Options{Title: "a<b>"}) },
	} {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"<script>alert", "2× </svg>", `<h&"x'>`, "a<b>"} {
			if strings.Contains(b.String(), bad) {
				t.Errorf("output contains unescaped %q", bad)
			}
		}
	}
}

// TestManyComponents covers colours past the palette and cells with more
// components than they show.
func TestManyComponents(t *testing.T) {
	inv := &model.Inventory{Nodes: []model.Node{{Rank: 0, AccelCount: 1}}}
	cfg := &model.Config{NumNodes: 1}
	for i := 0; i < 14; i++ {
		cfg.Components = append(cfg.Components, model.ComponentEntry{Names: []string{"c" + strconv.Itoa(i)},
			Segments: []model.Segment{{ResStart: 0, ResEnd: 0}}})
	}
	r, err := strategies.Expand(cfg, inv, strategies.Options{Class: model.ClassHybrid})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render.SVG(&b, resultInput(r), render.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ">shared ×14<") || !strings.Contains(b.String(), "+7 more") {
		t.Error("a GPU shared by 14 components should say so and show 7 of them plus '+7 more'")
	}
	colors := regexp.MustCompile(`stroke="(#[0-9a-f]{6})"/><rect x="\d+" y="[\d.]+" width="13"`).FindAllStringSubmatch(b.String(), -1)
	seen := map[string]bool{}
	for _, m := range colors {
		seen[m[1]] = true
	}
	if len(seen) != 14 {
		t.Errorf("14 components got %d distinct legend colours", len(seen))
	}
}

// chromium finds a headless-capable Chromium: $RLSOLVE_CHROMIUM, else
// Debian's chromium, else the usual names.
func chromium() string {
	if p := os.Getenv("RLSOLVE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium runs headless Chromium with args. A browser that dies of a
// signal (headless Chromium now and then crashes on a busy machine) gets
// one more try; any other failure fails the test.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
			"--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
		cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		if err == nil {
			return stdout.Bytes()
		}
		var ee *exec.ExitError
		if try == 0 && ctx.Err() == nil && errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
			t.Logf("%s crashed (%v); trying again", bin, err)
			continue
		}
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
}

// requireChromium returns a headless-capable Chromium, or skips the test
// when there is none (Debian: apt-get install chromium) unless
// RLSOLVE_REQUIRE_CHROMIUM is set.
func requireChromium(t *testing.T) string {
	t.Helper()
	bin := chromium()
	if bin == "" && os.Getenv("RLSOLVE_REQUIRE_CHROMIUM") != "" {
		t.Fatal("RLSOLVE_REQUIRE_CHROMIUM is set but no Chromium was found")
	}
	if bin == "" {
		t.Skip("no Chromium found (install Debian's chromium package, or set RLSOLVE_CHROMIUM): the browser test of the HTML picture is skipped")
	}
	if testing.Short() {
		t.Skip("browser test skipped with -short")
	}
	return bin
}

// writePage writes an HTML page to a temporary file and returns its URL.
func writePage(t *testing.T, name string, page []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, page, 0o666); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(file)
}

// pageSize is the window that shows the whole page: as wide as its
// pictures, as high as all of them with the search bar.
func pageSize(t *testing.T, page string) string {
	t.Helper()
	w, h := 0, 120
	for _, m := range regexp.MustCompile(`<svg [^>]*width="([\d.]+)" height="([\d.]+)"`).FindAllStringSubmatch(page, -1) {
		sw, _ := strconv.ParseFloat(m[1], 64)
		sh, _ := strconv.ParseFloat(m[2], 64)
		w, h = max(w, int(sw)), h+int(sh)
	}
	if w == 0 {
		t.Fatal("no SVG size in the page")
	}
	return "--window-size=" + strconv.Itoa(w+16) + "," + strconv.Itoa(h+60)
}

// screenshot takes a picture of url in a window of size, checks that it
// is a real picture, and keeps it under ../testdata/screenshots with
// -screenshots.
func screenshot(t *testing.T, bin, url, size, name string) {
	t.Helper()
	png := filepath.Join(t.TempDir(), name)
	runChromium(t, bin, size, "--virtual-time-budget=5000", "--screenshot="+png, url)
	checkPicture(t, png)
	if !*screenshots {
		return
	}
	data, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join("..", "testdata", "screenshots", name)
	if err := os.MkdirAll(filepath.Dir(keep), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, data, 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestBrowser opens the heterogeneous example's HTML in headless Chromium:
// the script runs and its hover panel shows a worker's details, and a
// screenshot of the page is a real picture (not blank, several colours).
// Skipped when no Chromium is installed (Debian: apt-get install chromium).
func TestBrowser(t *testing.T) {
	bin := requireChromium(t)
	var page bytes.Buffer
	if err := render.HTML(&page, plan(t, "heterogeneous"), title("heterogeneous")); err != nil {
		t.Fatal(err)
	}
	url := writePage(t, "heterogeneous.html", page.Bytes())
	size := pageSize(t, page.String())

	// The script ran, and the pinned details name a rank and the worker's
	// CUDA_VISIBLE_DEVICES.
	dom := string(runChromium(t, bin, "--virtual-time-budget=3000", "--dump-dom", url+"#selftest"))
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the page's script did not finish; DOM:\n%.2000s", dom)
	}
	if !strings.Contains(dom, `data-selftest="ok"`) {
		t.Errorf("the hover panel did not show details (data-selftest not ok)")
	}
	tip := dom[strings.Index(dom, `id="tip"`):]
	for _, want := range []string{"actor rank 0", "CUDA_VISIBLE_DEVICES=0", "NCCL_SOCKET_IFNAME=ib0", "node 0 (a800-0)"} {
		if !strings.Contains(tip, want) {
			t.Errorf("hover panel lacks %q", want)
		}
	}
	screenshot(t, bin, url, size, "heterogeneous.png")
	screenshot(t, bin, url+"#selftest", size, "heterogeneous-hover.png")
}

// TestBrowserScale opens the scaling layout's picture at 2, 16, 128 and
// 1,024 nodes in headless Chromium. The page's self-test (#selftest=rollout
// 1) clicks the label of the first row of several nodes twice, then
// searches "rollout 1" and clicks the result; the test reads the DOM it
// leaves: the overview has a line per component with its node ranges; the
// row expanded into its nodes and folded again; the search found the one
// worker, expanded the row of its node and pinned its details. A
// screenshot of each size's first screen (and of the search's result at
// 128 nodes) is a real picture.
func TestBrowserScale(t *testing.T) {
	bin := requireChromium(t)
	longtest.Skip(t, "Chromium on pictures of up to 1024 nodes")
	for _, nodes := range []int{2, 16, 128, 1024} {
		t.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.T) {
			var page bytes.Buffer
			if err := render.HTML(&page, scaleInput(t, nodes*8), render.Options{Title: fmt.Sprintf("scaling layout, %d nodes", nodes)}); err != nil {
				t.Fatal(err)
			}
			url := writePage(t, "scale.html", page.Bytes())
			dom := string(runChromium(t, bin, "--virtual-time-budget=5000", "--dump-dom", url+"#selftest=rollout%201"))
			if !strings.Contains(dom, `data-ready="1"`) {
				t.Fatalf("the page's script did not finish; DOM:\n%.2000s", dom)
			}
			checkScaleDOM(t, dom, nodes)
			screenshot(t, bin, url, "--window-size=1400,900", fmt.Sprintf("scale-%dnodes.png", nodes))
			if nodes == 128 { // the search's result: its node's row expanded, the details pinned
				screenshot(t, bin, url+"#selftest=rollout%201", "--window-size=1400,900", "scale-128nodes-search.png")
			}
		})
	}
}

// checkScaleDOM checks the state the self-test leaves on the scaling
// layout of n nodes: rollout rank 1 is on node n/2 (GPUs 2 and 3).
func checkScaleDOM(t *testing.T, dom string, n int) {
	t.Helper()
	attr := func(name string) string {
		m := regexp.MustCompile(`<body[^>]* ` + name + `="([^"]*)"`).FindStringSubmatch(dom)
		if m == nil {
			return "(none)"
		}
		return m[1]
	}
	if got := attr("data-overview"); got != "6" || strings.Count(dom, `class="ov-line"`) != 6 {
		t.Errorf("overview: %s lines, want one per component (6)", got)
	}
	actorNodes := fmt.Sprintf("nodes 0-%d", n/2-1)
	if n == 2 {
		actorNodes = "node 0"
	}
	for _, want := range []string{fmt.Sprintf("%s · %d of %d node(s) · %d worker(s)", actorNodes, n/2, n, 4*n), fmt.Sprintf("nodes 0-%d · %d of %d node(s) · %d worker(s)", n-1, n, n, 10*n)} {
		if !strings.Contains(dom, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if n > 8 {
		// nodes 0..n/2-1 hold the same layout (actor, reward, agent).
		if got := attr("data-expanded"); got != strconv.Itoa(n/2) {
			t.Errorf("expanding the first row showed %s node rows, want %d", got, n/2)
		}
		if got := attr("data-folded"); got != "0" {
			t.Errorf("folding it again left %s node rows", got)
		}
		if !strings.Contains(dom, fmt.Sprintf(`<div class="run open" data-first="%d"`, n/2)) {
			t.Errorf("the row of node %d was not expanded by the search", n/2)
		}
	} else if strings.Contains(dom, "data-nodes=") {
		t.Errorf("a plan of %d nodes has a row of several nodes", n)
	}
	if got := attr("data-found"); got != "1 worker(s)" {
		t.Errorf("search found %q, want 1 worker(s)", got)
	}
	where := fmt.Sprintf("rollout rank 1 · node %d (gpu-%d) · group cluster · gpu:2,3", n/2, n/2)
	results := dom[strings.Index(dom, `id="results"`):]
	if !strings.Contains(results[:strings.Index(results, "</ol>")], where) {
		t.Errorf("the results lack %q", where)
	}
	tip := dom[strings.Index(dom, `id="tip"`):]
	if strings.HasPrefix(tip, `id="tip" role="tooltip" hidden`) || !strings.Contains(tip, "CUDA_VISIBLE_DEVICES=2,3") || !strings.Contains(tip, where[len("rollout rank 1 · "):]) {
		t.Errorf("the details of rollout rank 1 are not pinned: %.300s", tip)
	}
	if !regexp.MustCompile(`<g class="cell hit on" data-cell="\d+"`).MatchString(dom) {
		t.Error("the worker's cell is not marked")
	}
}

// checkPicture decodes a screenshot and requires real content: mostly
// not one colour, and the components' colours present.
func checkPicture(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	b := img.Bounds()
	if b.Dx() < 600 || b.Dy() < 400 {
		t.Fatalf("screenshot is %dx%d, too small", b.Dx(), b.Dy())
	}
	colors := map[[3]uint32]int{}
	nonWhite := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint32{r >> 12, g >> 12, bl >> 12} // 16 levels per channel
			colors[c]++
			if r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				nonWhite++
			}
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	frequent := 0
	for _, n := range colors {
		if n > total/2000 {
			frequent++
		}
	}
	if frequent < 8 {
		t.Errorf("%s: only %d colours cover more than 0.05%% of the picture; want the components' colours", filepath.Base(file), frequent)
	}
	if nonWhite < total/10 {
		t.Errorf("%s: only %d of %d sampled pixels are not white: the picture looks blank", filepath.Base(file), nonWhite, total)
	}
	// Tableau blue (actor) and orange (rollout), tinted, must appear.
	for name, want := range map[string][3]uint8{"actor": hex("#4e79a7"), "rollout": hex("#f28e2b")} {
		if !near(img, want) {
			t.Errorf("%s: no pixel of %s's colour", filepath.Base(file), name)
		}
	}
}

func hex(s string) [3]uint8 {
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
}

func near(img image.Image, c [3]uint8) bool {
	b := img.Bounds()
	d := func(a uint32, b uint8) int { return int(a>>8) - int(b) }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if dr, dg, db := d(r, c[0]), d(g, c[1]), d(bl, c[2]); dr*dr+dg*dg+db*db < 300 {
				return true
			}
		}
	}
	return false
}
