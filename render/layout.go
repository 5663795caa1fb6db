// Package render writes every output of a plan: the table, the JSON and
// YAML documents and one worker's environment as shell lines, streamed
// from the plan one worker at a time; and the plan as a picture, an SVG or
// a self-contained HTML page around it.
//
// The picture has an overview band (each component's nodes on a strip of
// the cluster, with their ranges and counts), then one row per node
// (labelled with its rank, host and node groups), one cell per GPU, robot
// and CPU slot, coloured by component; each cell lists the worker ranks on
// it. Devices shared by several workers say so, and a worker holding
// several devices of a node (a tensor-parallel group, strided or not) is
// drawn as a line joining them under the row. On a large plan, identical
// consecutive nodes are one row ("nodes 8-47", same layout); the HTML page
// expands them, and finds workers by component and rank.
//
// The output is deterministic (golden tests rely on it) and never refers
// to anything outside itself: no fonts, scripts or images are loaded.
package render

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Options tune the picture.
type Options struct {
	// Title heads the picture, typically the config file's name.
	Title string
}

// Geometry, in SVG user units (pixels at 100% zoom). Text is 11px
// monospace, about 6.7 wide per character.
const (
	margin     = 16
	labelW     = 210
	cellW      = 118
	cellGap    = 6
	blockGap   = 16
	headerH    = 17
	lineH      = 15
	lanePad    = 4
	laneH      = 16
	rowPad     = 6
	rowGap     = 8
	legendLine = 18
	// maxEntries is how many component lines a cell shows before "+N more".
	maxEntries = 8
	// maxLanes bounds the worker lines drawn under one row.
	maxLanes = 12
	// maxEnvWorkers bounds how many workers' environments the HTML
	// embeds; a bigger plan keeps every worker's placement fields.
	maxEnvWorkers = 4096
)

type cellKind int

const (
	kindGPU cellKind = iota
	kindRobot
	kindCPU
)

// worker is one placed worker, with what the hover details show.
type worker struct {
	comp      int
	Component string            `json:"component"`
	Rank      int               `json:"rank"`
	Node      int               `json:"node"`
	Host      string            `json:"host,omitempty"`
	IP        string            `json:"ip,omitempty"`
	Group     string            `json:"node_group"`
	Devices   string            `json:"devices"`
	Local     string            `json:"local"`
	Accel     string            `json:"accelerator_type"`
	VisKey    string            `json:"visible_key"`
	Visible   *string           `json:"visible"`
	Python    string            `json:"python,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// entry is one component's workers on one cell.
type entry struct {
	comp  int
	ranks []int
	// workers are the workers' ids; total is how many the entry stands
	// for: len(workers), or on a collapsed row the run's (workers then
	// holds the first titledWorkers, or all of them for the page's data).
	workers []int
	total   int
	// text is what the cell says, when not the component and its ranks
	// (a collapsed row says the first and last node's).
	text string
}

type cell struct {
	kind    cellKind
	label   string // GPU 3, Franka 0, CPU
	block   int    // 0 GPUs, 1.. robot types, last CPU: blocks are spaced apart
	gpu     int    // a GPU's index on its node
	entries []entry
	x       float64
	id      int // index in the picture's cell list
}

func (c *cell) workerCount() int {
	n := 0
	for _, e := range c.entries {
		n += e.total
	}
	return n
}

// span is a worker holding several devices of one row.
type span struct {
	worker      int
	first, last int // cell indices
	cells       []int
	lane        int
	text        string // the label, when not the worker's component and rank
}

// row is one node, or a run of nodes with the same layout (nodes > 1).
type row struct {
	node   int
	nodes  int      // how many consecutive nodes the row stands for
	lines  []string // the label: node rank, host, groups, accelerators
	cells  []cell
	spans  []span
	lanes  int
	hidden int // spans not drawn (more than maxLanes lanes)
	h      float64
	right  float64 // the right edge of the last cell
	// refs are the workers the row draws or titles, by id.
	refs map[int]wref
}

type component struct {
	name    string
	color   string
	summary string
	// on marks the nodes the component has workers on.
	on      []bool
	workers int
}

// picture is what the SVG and the HTML draw: the first pass's layout
// (the runs of rows, the width, the header) and the index the rows are
// built from again while writing.
type picture struct {
	in       *Input
	title    string
	subtitle string
	comps    []component
	// workers counts the workers drawn (their ids are 0..workers-1).
	workers       int
	nodes         int
	index         nodeIndex
	anyNodeWorker bool
	runs          []run // what is drawn: rows, and runs of identical rows
	width         float64
	top           float64 // the height of the title, legend and overview
	envOmitted    bool
	cells         int // how many cells have ids
	// mem is the GPUs' memory, nil when not checked.
	mem *memIndex
}

// build lays the plan out.
func build(in *Input, opt Options) (*picture, error) {
	if in.check() != nil || in.Cluster == nil {
		return nil, errors.New("render: no plan to draw (the config has errors)")
	}
	c, plan := in.Cluster, in.Plan
	pic := &picture{in: in, title: opt.Title, nodes: len(c.Nodes), mem: newMemIndex(in.Memory)}
	if pic.title == "" {
		pic.title = "rlsolve plan"
	}
	mode := string(plan.Mode)
	if mode == "" {
		mode = "none"
	}
	total := 0
	for i := range plan.Components {
		total += plan.Components[i].Placements.Len()
	}
	pic.subtitle = fmt.Sprintf("placement mode %s · %d node(s) · %d component(s) · %d worker(s)", mode, len(c.Nodes), len(plan.Components), total)
	pic.envOmitted = total > maxEnvWorkers
	pic.anyNodeWorker = anyNodeWorker(plan)
	pic.indexWorkers()
	maxX := 0.0
	pic.group(func(rw *row) { maxX = max(maxX, rw.right) })
	pic.width = max(maxX+margin, 640, overviewWidth())
	pic.top = float64(margin) + 44 + float64(len(pic.comps))*legendLine + 8 + pic.overviewHeight() + pic.memoryHeight()
	return pic, nil
}

// anyNodeWorker reports whether a worker is placed per node (no device):
// then every row has a CPU cell.
func anyNodeWorker(plan *model.Plan) bool {
	for i := range plan.Components {
		for _, p := range plan.Components[i].Placements.All() {
			if p.HardwareType == "" {
				return true
			}
		}
	}
	return false
}

// nodeRow lays out node n's row: its device cells (GPUs, robots, and a CPU
// cell where workers are placed per node), its workers on them, and the
// lines of the workers holding several devices.
func (pic *picture) nodeRow(n int) row {
	c := pic.in.Cluster
	rw := row{node: n, nodes: 1, lines: nodeLabel(c, n), refs: map[int]wref{}}
	for g := 0; g < c.Nodes[n].AccelCount; g++ {
		rw.cells = append(rw.cells, cell{kind: kindGPU, label: "GPU " + strconv.Itoa(g), block: 0, gpu: g})
	}
	types := sortedKeys(c.Robots(n))
	for ti, t := range types {
		for k := 0; k < c.Robots(n)[t]; k++ {
			rw.cells = append(rw.cells, cell{kind: kindRobot, label: t + " " + strconv.Itoa(k), block: 1 + ti})
		}
	}
	if pic.anyNodeWorker || len(rw.cells) == 0 {
		rw.cells = append(rw.cells, cell{kind: kindCPU, label: "CPU", block: 1 + len(types)})
	}
	for _, r := range pic.index.on(n) {
		cp := &pic.in.Plan.Components[r.ci]
		for pi := int(r.from); pi < int(r.to); pi++ {
			pl := cp.Placements.At(pi)
			wi := int(r.id) + pi - int(r.from)
			rw.refs[wi] = wref{ci: int(r.ci), pi: pi}
			seen := map[int]bool{}
			for _, k := range rw.cellsOf(&pl) {
				if !seen[k] {
					seen[k] = true
					addEntry(&rw.cells[k], int(r.ci), pl.Rank, wi)
				}
			}
			if len(seen) > 1 {
				rw.spans = append(rw.spans, span{worker: wi})
			}
		}
	}
	rw.right = rw.arrange()
	return rw
}

// cellsOf are the cells a worker holds, added when the inventory does not
// list them (drawn anyway).
func (rw *row) cellsOf(p *model.Placement) []int {
	find := func(kind cellKind, label string, block int) int {
		for k := range rw.cells {
			if rw.cells[k].kind == kind && rw.cells[k].label == label {
				return k
			}
		}
		rw.cells = append(rw.cells, cell{kind: kind, label: label, block: block})
		return len(rw.cells) - 1
	}
	var cells []int
	switch {
	case p.HardwareType == "":
		cells = append(cells, find(kindCPU, "CPU", 99))
	case p.HardwareType == model.HardwareAccelerator:
		for _, h := range p.LocalHardwareRanks {
			cells = append(cells, find(kindGPU, "GPU "+strconv.Itoa(h), 0))
		}
	default:
		for _, h := range p.LocalHardwareRanks {
			cells = append(cells, find(kindRobot, p.HardwareType+" "+strconv.Itoa(h), 50))
		}
	}
	return cells
}

// arrange orders the row's cells in blocks (GPUs, robots by type, CPU),
// places them, gives each multi-device worker a lane and sets the row's
// height; it returns the row's right edge.
func (rw *row) arrange() float64 {
	sort.SliceStable(rw.cells, func(a, b int) bool { return rw.cells[a].block < rw.cells[b].block })
	rw.spanCells()
	x := float64(margin + labelW)
	for k := range rw.cells {
		if k > 0 {
			x += cellGap
			if rw.cells[k].block != rw.cells[k-1].block {
				x += blockGap
			}
		}
		rw.cells[k].x = x
		x += cellW
	}
	packLanes(rw)
	rw.h = max(rw.cellsHeight(), float64(len(rw.lines))*14+4) + 2*rowPad
	if rw.lanes > 0 {
		rw.h += lanePad + float64(rw.lanes)*laneH
	}
	return x
}

// cellsHeight is the height of the row's cells: their header and as many
// component lines as the fullest cell shows.
func (rw *row) cellsHeight() float64 {
	lines := 1
	for k := range rw.cells {
		lines = max(lines, min(len(rw.cells[k].entries), maxEntries))
	}
	return headerH + float64(lines)*lineH + 6
}

// spanCells finds the cells of each multi-device worker (after the cells
// are sorted).
func (rw *row) spanCells() {
	pos := map[int][]int{} // worker -> cells
	for k := range rw.cells {
		for _, e := range rw.cells[k].entries {
			for _, w := range e.workers {
				pos[w] = append(pos[w], k)
			}
		}
	}
	for i := range rw.spans {
		s := &rw.spans[i]
		s.cells = pos[s.worker]
		if len(s.cells) > 0 {
			s.first, s.last = s.cells[0], s.cells[len(s.cells)-1]
		}
	}
}

// packLanes gives every span a lane so that spans in one lane do not
// overlap: interleaved (strided) groups get lanes of their own.
func packLanes(rw *row) {
	sort.SliceStable(rw.spans, func(a, b int) bool { return rw.spans[a].first < rw.spans[b].first })
	var laneEnd []int
	kept := rw.spans[:0]
	for _, s := range rw.spans {
		placed := false
		for l, end := range laneEnd {
			if s.first > end {
				s.lane, laneEnd[l], placed = l, s.last, true
				break
			}
		}
		if !placed {
			if len(laneEnd) == maxLanes {
				rw.hidden++
				continue
			}
			s.lane = len(laneEnd)
			laneEnd = append(laneEnd, s.last)
		}
		kept = append(kept, s)
	}
	rw.spans = kept
	rw.lanes = len(laneEnd)
}

func addEntry(c *cell, comp, rank, w int) {
	for i := range c.entries {
		if c.entries[i].comp == comp {
			c.entries[i].ranks = append(c.entries[i].ranks, rank)
			c.entries[i].workers = append(c.entries[i].workers, w)
			c.entries[i].total++
			return
		}
	}
	c.entries = append(c.entries, entry{comp: comp, ranks: []int{rank}, workers: []int{w}, total: 1})
}

func newWorker(in *Input, cp *model.ComponentPlan, ci, pi int) worker {
	pl := cp.Placements.At(pi)
	p := &pl
	nd := &in.Cluster.Nodes[p.ClusterNodeRank]
	env := in.Workers.EnvOf(cp, p)
	w := worker{comp: ci, Component: cp.Name, Rank: p.Rank, Node: p.ClusterNodeRank, Host: nd.Hostname, IP: nd.IP,
		Group: p.NodeGroupLabel, Devices: devicesText(p), Accel: p.AcceleratorType,
		Local:  fmt.Sprintf("%d/%d", p.LocalRank, p.LocalWorldSize),
		Python: in.Workers.Interpreter(p.NodeGroupLabel, p.ClusterNodeRank), Env: env}
	w.VisKey = "CUDA_VISIBLE_DEVICES"
	for _, k := range []string{"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES", "ONEAPI_DEVICE_SELECTOR", "MUSA_VISIBLE_DEVICES"} {
		if v, ok := env[k]; ok {
			w.VisKey, w.Visible = k, &v
			break
		}
	}
	return w
}

// devicesText says what the worker holds: gpu:0,2 / franka:1 / node.
func devicesText(p *model.Placement) string {
	if p.HardwareType == "" || len(p.LocalHardwareRanks) == 0 {
		return "node (no device of its own)"
	}
	return devices(p)
}

// nodeLabel is the row's label: rank, host and address, groups, hardware.
func nodeLabel(c *model.Cluster, n int) []string {
	nd := &c.Nodes[n]
	lines := []string{"node " + strconv.Itoa(n)}
	host := nd.Hostname
	if nd.IP != "" {
		if host != "" {
			host += " · "
		}
		host += nd.IP
	}
	if host == "" {
		host = "(no host name)"
	}
	lines = append(lines, host)
	var groups []string
	for _, g := range c.Groups {
		if g.Config == nil {
			continue
		}
		i := sort.SearchInts(g.Nodes, n)
		if i < len(g.Nodes) && g.Nodes[i] == n {
			groups = append(groups, g.Label)
		}
	}
	if len(groups) == 0 {
		lines = append(lines, "group: cluster (default)")
	} else {
		lines = append(lines, "group: "+strings.Join(groups, ", "))
	}
	var hw []string
	if nd.AccelCount > 0 {
		m := nd.AccelModel
		if m == "" {
			m = nd.AcceleratorType()
		}
		hw = append(hw, fmt.Sprintf("%d× %s", nd.AccelCount, m))
	}
	robots := c.Robots(n)
	for _, t := range sortedKeys(robots) {
		if robots[t] > 0 {
			hw = append(hw, fmt.Sprintf("%d× %s", robots[t], t))
		}
	}
	if len(hw) == 0 {
		hw = append(hw, "CPU only")
	}
	return append(lines, strings.Join(hw, ", "))
}

func componentSummary(cp *model.ComponentPlan) string {
	s := fmt.Sprintf("%d worker(s), %s", cp.Placements.Len(), cp.Strategy.Kind)
	if cp.Strategy.Kind == model.StrategyPacked {
		if cp.Strategy.HardwarePerProcess > 1 {
			s += fmt.Sprintf(", %d devices each", cp.Strategy.HardwarePerProcess)
		}
		if cp.Strategy.Stride > 1 {
			s += fmt.Sprintf(", stride %d", cp.Strategy.Stride)
		}
	}
	if len(cp.NodeGroups) > 0 {
		s += " on " + strings.Join(cp.NodeGroups, ", ")
	}
	return s
}

// rankText renders ranks compactly: 0-3,8,10-11.
func rankText(r []int) string {
	s := append([]int(nil), r...)
	sort.Ints(s)
	return model.CompactRanks(s, ",")
}

// fit shortens s to at most n characters, ending in an ellipsis.
func fit(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
