package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// processes checks where each process of an entry lands: on one node, on
// one hardware type, each device once, nodes in ascending order, disjoint
// groups for node placement (semantics §4, D1, D5, D19).
func (x *entryView) processes() *Violation {
	if v := x.groupsOverlap(); v != nil {
		return v
	}
	base := 0
	if x.only >= 0 {
		base = x.b.procBase(x.ei, x.only, x.r.Total)
	}
	lastNode := -1
	for i, pr := range model.Processes(x.parts) {
		seg := x.parts[pr.Part].Index
		mine := x.part(seg)
		first := x.r.Locate(pr.Start)
		if mine {
			if v := x.oneProcess(pr, base+i, seg, first); v != nil {
				return v
			}
		}
		if first.Node < lastNode && x.order() {
			x.roles[x.fact(seg)] = fmt.Sprintf("worker %d lands on node %d", base+i, first.Node)
			return &Violation{Code: model.CodeNodeOrder, Primary: x.ng, Roles: x.roles,
				Summary: fmt.Sprintf("%s: worker %d lands on node %d after a worker on node %d; list node groups in ascending node order", x.who, base+i, first.Node, lastNode),
				Fixes:   x.groupOrderFix()}
		}
		lastNode = first.Node
	}
	return nil
}

// groupsOverlap refuses node placement over groups that share a node.
func (x *entryView) groupsOverlap() *Violation {
	if x.r.Typed || !x.order() || len(x.r.Groups) < 2 {
		return nil
	}
	seen := map[int]string{}
	for _, g := range x.r.Groups {
		for _, n := range g.Nodes {
			if o, dup := seen[n]; dup {
				return &Violation{Code: model.CodeGroupsOverlap, Primary: x.ng, Roles: x.roles,
					Summary: fmt.Sprintf("%s: node groups %q and %q both contain node %d; node placement across groups needs disjoint nodes", x.who, o, g.Label, n)}
			}
			seen[n] = g.Label
		}
	}
	return nil
}

// oneProcess checks the own resources of process pr, the config's worker
// number worker.
func (x *entryView) oneProcess(pr model.Process, worker, seg int, first model.Where) *Violation {
	start, n, f := pr.Start, pr.N, x.fact(seg)
	if !x.r.Typed && n != 1 {
		x.roles[f] = fmt.Sprintf("gives worker %d %d nodes", worker, n)
		return &Violation{Code: model.CodeOneProcessOneNode, Primary: f, Roles: x.roles,
			Summary: fmt.Sprintf("%s: worker %d would run on %d nodes at once", x.who, worker, n)}
	}
	if v := x.sameDevice(pr, worker, f); v != nil {
		return v
	}
	repacked := x.repacked()
	for h := start + 1; h < start+n; h++ {
		w := x.r.Locate(h)
		if w.Node != first.Node && !repacked {
			x.roles[f] = fmt.Sprintf("worker %d comes from here", worker)
			return &Violation{Code: model.CodeSpansNodes, Primary: f, Roles: x.roles,
				Summary: fmt.Sprintf("%s: worker %d would get %s: one process cannot span nodes", x.who, worker, perNode(x.r, start, n)),
				Why:     "A process runs on one node; RLinf only finds this when it launches the workers (D5).",
				Fixes:   x.alignFixes(seg)}
		}
		if w.Group.HardwareType != first.Group.HardwareType {
			x.roles[f] = fmt.Sprintf("worker %d gets %s and %s", worker, first.Group.HardwareType, w.Group.HardwareType)
			return &Violation{Code: model.CodeMixedHardware, Primary: f, Roles: x.roles,
				Summary: fmt.Sprintf("%s: worker %d would mix hardware types %s and %s", x.who, worker, first.Group.HardwareType, w.Group.HardwareType)}
		}
	}
	return nil
}

// repacked reports whether the class re-places every component of the
// entry with one process per GPU (semantics §5.2): the config's process
// split is then never launched, so a process over two nodes is no error
// (RLinf runs actor "0-7:0" across two 4-GPU nodes).
func (x *entryView) repacked() bool {
	for _, n := range x.e.Names {
		if !x.b.mpPacked(n) {
			return false
		}
	}
	return len(x.e.Names) > 0
}

// sameDevice refuses a process given one device twice: two groups that
// share a node number its devices twice, so distinct ranks can be one GPU
// (D19).
func (x *entryView) sameDevice(pr model.Process, worker, f int) *Violation {
	start, n := pr.Start, pr.N
	if n < 2 || len(x.r.Groups) < 2 {
		return nil
	}
	type device struct{ node, local int }
	seen := map[device]bool{}
	typ := x.r.Locate(start).Group.HardwareType
	for h := start; h < start+n; h++ {
		w := x.r.Locate(h)
		d := device{w.Node, w.Local}
		if seen[d] && w.Group.HardwareType == typ {
			x.roles[f] = fmt.Sprintf("worker %d gets device %d of node %d twice", worker, w.Local, w.Node)
			return &Violation{Code: model.CodeProcessHardwareDup, Primary: f, Roles: x.roles,
				Summary: fmt.Sprintf("%s: worker %d would get device %d of node %d twice (node groups %v share the node)", x.who, worker, w.Local, w.Node, x.r.Labels())}
		}
		seen[d] = true
	}
	return nil
}

// perNode describes a process's resources by node: "hardware ranks 6 (node
// 0, local GPU 6), 8 (node 1, local GPU 0)".
func perNode(r *model.Resolver, start, n int) string {
	parts := make([]string, n)
	for k := 0; k < n; k++ {
		w := r.Locate(start + k)
		parts[k] = fmt.Sprintf("%d (node %d, local %s %d)", start+k, w.Node, strings.TrimSuffix(unitOf(w.Group), "s"), w.Local)
	}
	return "hardware ranks " + strings.Join(parts, ", ")
}

func unitOf(g *model.Group) string { return model.HardwareUnit(g.HardwareType) }

// procBase is the config's worker index of part si's first process, for
// messages of an instance that looks at that part alone.
func (b *builder) procBase(ei, si, total int) int {
	if b.bases == nil {
		b.bases = map[int][]int{}
	}
	bs, ok := b.bases[ei]
	if !ok {
		e := &b.cfg.Components[ei]
		bs = make([]int, len(e.Segments))
		n, last := 0, -1
		for j := range e.Segments {
			bs[j] = n
			pt := model.ResolvePart(&e.Segments[j], j, total, last)
			n += pt.Processes()
			last = pt.ProcEnd
		}
		b.bases[ei] = bs
	}
	return bs[si]
}

// alignFixes move part si's resources, whole, to the nearest starts where
// each of its processes gets GPUs of one node (up to two, nearest first;
// the solver keeps those that leave the config with fewer conflicts).
func (x *entryView) alignFixes(si int) []Fix {
	var pt *model.Part
	for i := range x.parts {
		if x.parts[i].Index == si {
			pt = &x.parts[i]
		}
	}
	if pt == nil || x.e.Segments[si].AllResources || pt.Processes() == 0 || pt.Resources()%pt.Processes() != 0 {
		return nil
	}
	width, per, total := pt.Resources(), pt.Resources()/pt.Processes(), x.r.Total
	fits := func(s int) bool {
		if s < 0 || s+width > total {
			return false
		}
		for a := s; a < s+width; a += per {
			if x.r.Locate(a).Node != x.r.Locate(a+per-1).Node {
				return false
			}
		}
		return true
	}
	// A shift of more than two processes' GPUs (and a little) finds
	// nothing new on nodes of equal size; the bound keeps a part of
	// thousands of GPUs cheap.
	var out []Fix
	for d := 1; d <= 2*per+16 && len(out) < 2; d++ {
		for _, s := range []int{pt.ResStart - d, pt.ResStart + d} {
			if len(out) < 2 && fits(s) {
				out = append(out, x.b.rangeFix(x.ei, si, s, s+width-1, "move the part so that each process stays on one node"))
			}
		}
	}
	return out
}

// groupOrderFix lists the entry's node groups by their first node.
func (x *entryView) groupOrderFix() []Fix {
	if x.ng < 0 || len(x.r.Groups) != len(x.labels) {
		return nil
	}
	gs := append([]*model.Group(nil), x.r.Groups...)
	sort.SliceStable(gs, func(i, j int) bool {
		return len(gs[j].Nodes) > 0 && (len(gs[i].Nodes) == 0 || gs[i].Nodes[0] < gs[j].Nodes[0])
	})
	labels := make([]string, len(gs))
	for i, g := range gs {
		labels[i] = g.Label
	}
	text := strings.Join(labels, ",")
	return []Fix{x.b.fix(fmt.Sprintf("list the node groups by their first node: `%s`", text), func(cfg *model.Config) (model.Edit, bool) {
		e := &cfg.Components[x.ei]
		e.NodeGroups = labels
		return model.Edit{Span: e.NodeGroupSpan, NewText: text}, e.NodeGroupSpan.Known()
	})}
}
