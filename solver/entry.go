package solver

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// Process ranges of one component entry, as RLinf's rank map assigns them:
// process i holds resources [start, start+n) of the entry's groups.
type procs struct {
	start, n []int
	seg      []int // fact id of the segment each process comes from
	hw       []int // the entry's resource ranks, in order (get_hardware_ranks)
}

// entryRule is the validity of one component_placement entry on the
// cluster (semantics §2.3-§4, decisions D1, D5, D7), over its placement
// parts, its node_group choice and the groups that choice can name.
func (s *session) entryRule(ei int) {
	e := &s.cfg.Components[ei]
	scope := append([]int(nil), s.fs.segment[ei]...)
	// The node_group choice is a fact (without it, the default group); a
	// group's own definition is context, named in the messages: making it
	// a fact would put it in every core, since without the group there is
	// nothing left to check.
	if ng := s.fs.nodeGroup[ei]; ng >= 0 {
		scope = append(scope, ng)
	}
	// One rule per placement part for what the part alone decides (range,
	// divisibility, where its processes land), so that independent problems
	// are reported one by one; one rule for the order between parts.
	// A part's own checks do not depend on the other parts, so its rule
	// sees only the part and the node_group: linear in the parts, even for
	// a placement that lists 8,192 GPUs one by one.
	base := scope[len(s.fs.segment[ei]):]
	for si, f := range s.fs.segment[ei] {
		si := si
		local := append([]int{f}, base...)
		check := func(p present) *violation { v, _ := s.entry(ei, p, si); return v }
		s.p.add(&rule{name: fmt.Sprintf("placement part %d of %s", si, names(e)), scope: local, check: check})
	}
	check := func(p present) *violation { v, _ := s.entry(ei, p, orderRule); return v }
	if len(scope) > maxScope {
		scope = s.narrow(scope, check)
	}
	s.p.add(&rule{name: "placement of " + names(e), scope: scope, check: check})
}

// Which checks entry runs: a part's own (its index), the order between
// parts and groups (orderRule), or all of them (allRules).
const (
	orderRule = -1
	allRules  = -2
)

// narrow keeps a large scope's facts that a violation in the full config
// needs (found by deletion), so that the truth table stays small; the other
// facts are taken as present.
func (s *session) narrow(scope []int, check func(present) *violation) []int {
	in := map[int]bool{}
	for _, f := range scope {
		in[f] = true
	}
	has := func(g int) bool { v, ok := in[g]; return !ok || v }
	if check(has) == nil {
		return scope[:0]
	}
	for _, f := range scope {
		in[f] = false
		if check(has) == nil {
			in[f] = true
		}
	}
	var out []int
	for _, f := range scope {
		if in[f] && len(out) < maxScope {
			out = append(out, f)
		}
	}
	return out
}

// entry checks entry ei with the facts p says are present, running the
// checks `only` selects; it also returns the processes when they are valid.
func (s *session) entry(ei int, p present, only int) (*violation, *procs) {
	part := func(si int) bool { return only == allRules || only == si }
	order := only == allRules || only == orderRule
	e := &s.cfg.Components[ei]
	who := names(e)
	var segs []int
	if only >= 0 {
		if p(s.fs.segment[ei][only]) {
			segs = []int{only}
		}
	} else {
		for si, f := range s.fs.segment[ei] {
			if p(f) {
				segs = append(segs, si)
			}
		}
	}
	if len(segs) == 0 {
		return nil, nil // no placement: not this rule's business
	}
	ng := s.fs.nodeGroup[ei]
	labels := []string{"cluster"}
	if ng >= 0 && p(ng) {
		labels = e.NodeGroups
	}
	cl := s.cluster()
	r, missing := cl.Resolve(labels)
	roles := map[int]string{}
	if ng >= 0 && p(ng) {
		roles[ng] = fmt.Sprintf("selects node group(s) %s", strings.Join(labels, ","))
	}
	if r == nil {
		if !order {
			return nil, nil
		}
		code, sum := model.CodeUnknownGroup, fmt.Sprintf("%s: node group %q does not exist", who, missing)
		if _, empty := cl.Empty[missing]; empty {
			code, sum = model.CodeEmptyGroup, fmt.Sprintf("%s: node group %q has no nodes", who, missing)
		}
		v := &violation{Code: code, Summary: sum, Primary: ng, Roles: roles,
			Why: "The labels RLinf knows are the configured node groups with at least one node, plus `cluster` (all nodes, with their GPUs) and `node` (all nodes, CPU only)."}
		if fix, ok := s.labelFix(ei, missing, cl); ok {
			v.Fixes = append(v.Fixes, fix)
		}
		return v, nil
	}
	if !r.Typed && len(r.Groups) > 1 && order {
		for _, g := range r.Groups {
			if g.HardwareType != "" {
				return &violation{Code: model.CodeMixedTypedUntyped, Primary: ng, Roles: roles,
					Summary: fmt.Sprintf("%s: node_group mixes groups with hardware and without", who),
					Why:     "RLinf then numbers GPUs and nodes in one sequence and fails at launch (D5)."}, nil
			}
		}
	}
	total := r.Total
	pr := &procs{}
	lastRes, lastProc, prevSeg, firstProc := -1, -1, -1, -1
	for _, si := range segs {
		sg := &e.Segments[si]
		f := s.fs.segment[ei][si]
		rs, re := sg.ResStart, sg.ResEnd
		if sg.AllResources {
			rs, re = 0, total-1
		}
		if total == 0 {
			if !part(si) {
				return nil, nil
			}
			return &violation{Code: model.CodeNoHardware, Primary: f, Roles: roles,
				Summary: fmt.Sprintf("%s: node group(s) %s have no %s", who, strings.Join(labels, ","), r.Unit())}, nil
		}
		if re > total-1 {
			if !part(si) {
				return nil, nil // later checks need this part in range
			}
			roles[f] = fmt.Sprintf("%d is past the last rank %d", re, total-1)
			v := &violation{Code: model.CodeRankOutOfRange, Primary: f, Roles: roles, At: sg.NumberSpan(rs > total-1),
				Summary: fmt.Sprintf("%s: resource rank %d is outside the %d %s (0-%d) of %s", who, re, total, r.Unit(), total-1, groupsText(labels))}
			if rs <= total-1 {
				v.Fixes = append(v.Fixes, shrinkFix(ei, si, rs, total-1))
			}
			return v, nil
		}
		if prevSeg >= 0 && rs <= lastRes && order {
			pf := s.fs.segment[ei][prevSeg]
			for _, q := range segs {
				if q == si {
					break
				}
				qs := &e.Segments[q]
				qrs, qre := qs.ResStart, qs.ResEnd
				if qs.AllResources {
					qrs, qre = 0, total-1
				}
				if qrs <= re && rs <= qre {
					qf := s.fs.segment[ei][q]
					roles[qf] = "uses them first"
					roles[f] = "uses them again"
					v := &violation{Code: model.CodeDuplicateResource, Primary: f, Roles: roles,
						Summary: fmt.Sprintf("%s: %s placed twice", who, ranksText("resource", max(rs, qrs), min(re, qre)))}
					if qre+1 <= re {
						v.Fixes = append(v.Fixes, moveFix(ei, si, qre+1, re-qre-1)) // keep the end, start after the earlier part
					} else {
						v.Fixes = append(v.Fixes, moveFix(ei, si, qre+1, re-rs)) // shift the whole part past it
					}
					return v, nil
				}
			}
			roles[pf] = fmt.Sprintf("ends at %d", lastRes)
			roles[f] = fmt.Sprintf("starts at %d", rs)
			return &violation{Code: model.CodeResourceOrder, Primary: f, Roles: roles,
				Summary: fmt.Sprintf("%s: resource ranks must ascend across parts, but %d follows %d", who, rs, lastRes)}, nil
		}
		nres := re - rs + 1
		ps, pe := lastProc+1, lastProc+nres
		if sg.HasProcesses {
			ps, pe = sg.ProcStart, sg.ProcEnd
		}
		if prevSeg >= 0 && order {
			pf := s.fs.segment[ei][prevSeg]
			if ps <= lastProc && pe >= firstProc {
				roles[pf], roles[f] = fmt.Sprintf("uses process ranks up to %d", lastProc), fmt.Sprintf("starts again at %d", ps)
				return &violation{Code: model.CodeDuplicateProcess, Primary: f, Roles: roles,
					Summary: fmt.Sprintf("%s: process rank %d is placed twice", who, ps)}, nil
			}
			if ps != lastProc+1 {
				roles[pf], roles[f] = fmt.Sprintf("ends at process %d", lastProc), fmt.Sprintf("starts at process %d", ps)
				return &violation{Code: model.CodeProcessOrder, Primary: f, Roles: roles,
					Summary: fmt.Sprintf("%s: process ranks must continue without gaps: %d follows %d", who, ps, lastProc),
					Fixes:   []candidateFix{renumberFix(ei, si, lastProc+1, pe-ps)}}, nil
			}
		}
		np := pe - ps + 1
		if np%nres != 0 && nres%np != 0 {
			if !part(si) {
				return nil, nil
			}
			roles[f] = fmt.Sprintf("%d processes on %d %s", np, nres, r.Unit())
			return &violation{Code: model.CodeNotDivisible, Primary: f, Roles: roles,
				Summary: fmt.Sprintf("%s: %d processes cannot be spread evenly over %d %s", who, np, nres, r.Unit())}, nil
		}
		if s.maxProcs > 0 && len(pr.start)+np > s.maxProcs {
			// Past the process limit the planner reports; expanding the
			// processes here would allocate what the limit exists to refuse.
			return nil, nil
		}
		for x := rs; x <= re; x++ {
			pr.hw = append(pr.hw, x)
		}
		for i := 0; i < np; i++ {
			if nres >= np {
				k := nres / np
				pr.start, pr.n = append(pr.start, rs+i*k), append(pr.n, k)
			} else {
				pr.start, pr.n = append(pr.start, rs+i/(np/nres)), append(pr.n, 1)
			}
			pr.seg = append(pr.seg, f)
		}
		if firstProc < 0 {
			firstProc = ps
		}
		lastRes, lastProc, prevSeg = re, pe, si
	}
	first := 0
	if only >= 0 {
		first = s.procBase(ei, only, total)
	}
	if v := s.processes(who, r, pr, roles, ng, part, order, first); v != nil {
		return v, nil
	}
	return nil, pr
}

// processes checks where each process lands: one node, one hardware type,
// nodes in ascending order, disjoint groups for node placement.
func (s *session) processes(who string, r *model.Resolver, pr *procs, roles map[int]string, ng int, part func(int) bool, order bool, base int) *violation {
	mine := func(i int) bool { return part(s.fs.list[pr.seg[i]].Index) }
	if !r.Typed && order {
		seen := map[int]string{}
		for _, g := range r.Groups {
			for _, n := range g.Nodes {
				if o, dup := seen[n]; dup && len(r.Groups) > 1 {
					return &violation{Code: model.CodeGroupsOverlap, Primary: ng, Roles: roles,
						Summary: fmt.Sprintf("%s: node groups %q and %q both contain node %d; node placement across groups needs disjoint nodes", who, o, g.Label, n)}
				}
				seen[n] = g.Label
			}
		}
	}
	lastNode := -1
	for i := range pr.start {
		first := r.Locate(pr.start[i])
		if !r.Typed && pr.n[i] != 1 && mine(i) {
			roles[pr.seg[i]] = fmt.Sprintf("gives worker %d %d nodes", base+i, pr.n[i])
			return &violation{Code: model.CodeOneProcessOneNode, Primary: pr.seg[i], Roles: roles,
				Summary: fmt.Sprintf("%s: worker %d would run on %d nodes at once", who, base+i, pr.n[i])}
		}
		if v := s.sameDevice(who, r, pr, i, base, roles, mine); v != nil {
			return v
		}
		for h := pr.start[i] + 1; h < pr.start[i]+pr.n[i]; h++ {
			w := r.Locate(h)
			if !mine(i) {
				break
			}
			if w.Node != first.Node {
				roles[pr.seg[i]] = fmt.Sprintf("worker %d comes from here", base+i)
				return &violation{Code: model.CodeSpansNodes, Primary: pr.seg[i], Roles: roles,
					Summary: fmt.Sprintf("%s: worker %d would get %s: one process cannot span nodes", who, base+i, perNode(r, pr.start[i], pr.n[i])),
					Why:     "A process runs on one node; RLinf only finds this when it launches the workers (D5)."}
			}
			if w.Group.HardwareType != first.Group.HardwareType {
				roles[pr.seg[i]] = fmt.Sprintf("worker %d gets %s and %s", base+i, first.Group.HardwareType, w.Group.HardwareType)
				return &violation{Code: model.CodeMixedHardware, Primary: pr.seg[i], Roles: roles,
					Summary: fmt.Sprintf("%s: worker %d would mix hardware types %s and %s", who, base+i, first.Group.HardwareType, w.Group.HardwareType)}
			}
		}
		if first.Node < lastNode && order {
			roles[pr.seg[i]] = fmt.Sprintf("worker %d lands on node %d", base+i, first.Node)
			return &violation{Code: model.CodeNodeOrder, Primary: ng, Roles: roles,
				Summary: fmt.Sprintf("%s: worker %d lands on node %d after a worker on node %d; list node groups in ascending node order", who, base+i, first.Node, lastNode)}
		}
		lastNode = first.Node
	}
	return nil
}

// cluster is the cluster view of the config's node groups.
func (s *session) cluster() *model.Cluster {
	if s.view == nil {
		s.view = model.NewCluster(s.inv, s.cfg)
	}
	return s.view
}

func unitOf(g *model.Group) string {
	if g.HardwareType == "" {
		return "nodes"
	}
	return model.HardwareUnit(g.HardwareType)
}

// sortedFacts orders fact ids by their position in the file.
func (s *session) sortedFacts(ids []int) []int {
	out := append([]int(nil), ids...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := s.fs.list[out[i]].Span, s.fs.list[out[j]].Span
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
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

// labelFix proposes the nearest existing label for a missing one.
func (s *session) labelFix(ei int, missing string, cl *model.Cluster) (candidateFix, bool) {
	var labels []string
	for _, g := range cl.Groups {
		labels = append(labels, g.Label)
	}
	near := fuzzy.Nearest(missing, labels)
	if near == "" {
		return candidateFix{}, false
	}
	return candidateFix{message: fmt.Sprintf("did you mean `%s`?", near), edit: func(cfg *model.Config) (model.Edit, bool) {
		e := &cfg.Components[ei]
		for j, l := range e.NodeGroups {
			if l == missing && j < len(e.NodeGroupSpans) {
				e.NodeGroups[j] = near
				return model.Edit{Span: e.NodeGroupSpans[j], NewText: near}, true
			}
		}
		return model.Edit{}, false
	}}, true
}

// ranksText is "resource rank 3" or "resource ranks 3-5".
func ranksText(kind string, a, b int) string {
	if a == b {
		return fmt.Sprintf("%s rank %d is", kind, a)
	}
	return fmt.Sprintf("%s ranks %d-%d are", kind, a, b)
}

// groupsText names the groups a placement uses: "the cluster" for the
// default group.
func groupsText(labels []string) string {
	if len(labels) == 1 && labels[0] == "cluster" {
		return "the cluster"
	}
	return "node group(s) " + strings.Join(labels, ",")
}

// procBase is the config's worker index of part si's first process, for
// messages of a rule that looks at that part alone.
func (s *session) procBase(ei, si, total int) int {
	if s.bases == nil {
		s.bases = map[int][]int{}
	}
	b, ok := s.bases[ei]
	if !ok {
		e := &s.cfg.Components[ei]
		b = make([]int, len(e.Segments))
		n := 0
		for j := range e.Segments {
			b[j] = n
			sg := &e.Segments[j]
			switch {
			case sg.HasProcesses:
				n += sg.ProcEnd - sg.ProcStart + 1
			case sg.AllResources:
				n += total
			default:
				n += sg.ResEnd - sg.ResStart + 1
			}
		}
		s.bases[ei] = b
	}
	return b[si]
}

// sameDevice refuses a process given one device twice: two groups that
// share a node number its devices twice, so distinct ranks can be one GPU.
func (s *session) sameDevice(who string, r *model.Resolver, pr *procs, i, base int, roles map[int]string, mine func(int) bool) *violation {
	if pr.n[i] < 2 || len(r.Groups) < 2 || !mine(i) {
		return nil
	}
	type device struct{ node, local int }
	seen := map[device]bool{}
	for h := pr.start[i]; h < pr.start[i]+pr.n[i]; h++ {
		w := r.Locate(h)
		d := device{w.Node, w.Local}
		if seen[d] && w.Group.HardwareType == r.Locate(pr.start[i]).Group.HardwareType {
			roles[pr.seg[i]] = fmt.Sprintf("worker %d gets device %d of node %d twice", base+i, w.Local, w.Node)
			return &violation{Code: model.CodeProcessHardwareDup, Primary: pr.seg[i], Roles: roles,
				Summary: fmt.Sprintf("%s: worker %d would get device %d of node %d twice (node groups %v share the node)", who, base+i, w.Local, w.Node, r.Labels())}
		}
		seen[d] = true
	}
	return nil
}
