package render_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
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
	return &render.Input{Plan: r.Plan, Nodes: r.Cluster.Nodes, Cluster: r.Cluster.Cluster, Workers: r.Cluster, Diagnostics: r.Diagnostics}
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
	r := strategies.PlanConfig(cfg, inv, strategies.Options{Mode: strategies.ModeHybrid})
	if r.Plan == nil {
		t.Fatalf("no plan: %v", r.Diagnostics)
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
	r := strategies.PlanConfig(cfg, inv, strategies.Options{Mode: strategies.ModeHybrid})
	if r.Plan == nil {
		t.Fatalf("no plan: %v", r.Diagnostics)
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

func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	return stdout.Bytes()
}

// TestBrowser opens the heterogeneous example's HTML in headless Chromium:
// the script runs and its hover panel shows a worker's details, and a
// screenshot of the page is a real picture (not blank, several colours).
// Skipped when no Chromium is installed (Debian: apt-get install chromium).
func TestBrowser(t *testing.T) {
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
	var page bytes.Buffer
	if err := render.HTML(&page, plan(t, "heterogeneous"), title("heterogeneous")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "heterogeneous.html")
	if err := os.WriteFile(file, page.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.ToSlash(file)
	m := regexp.MustCompile(`<svg [^>]*width="(\d+)" height="(\d+)"`).FindStringSubmatch(page.String())
	if m == nil {
		t.Fatal("no SVG size in the page")
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	size := "--window-size=" + strconv.Itoa(w+16) + "," + strconv.Itoa(h+60)

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

	for _, shot := range []struct{ name, url string }{{"heterogeneous.png", url}, {"heterogeneous-hover.png", url + "#selftest"}} {
		png := filepath.Join(dir, shot.name)
		runChromium(t, bin, size, "--virtual-time-budget=3000", "--screenshot="+png, shot.url)
		checkPicture(t, png)
		if *screenshots {
			data, err := os.ReadFile(png)
			if err != nil {
				t.Fatal(err)
			}
			keep := filepath.Join("..", "testdata", "screenshots", shot.name)
			if err := os.MkdirAll(filepath.Dir(keep), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(keep, data, 0o666); err != nil {
				t.Fatal(err)
			}
		}
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
