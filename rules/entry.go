package rules

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// The rules of one component_placement entry on the cluster (semantics
// §2.3-§4, decisions D1, D5, D7). Each placement part gets an instance for
// what the part alone decides (its range, divisibility, where its processes
// land), so that independent problems are reported one by one and a
// placement listing 8,192 GPUs stays linear; one instance judges what
// holds between parts (their order, the groups they name).
var (
	rulePart = &Rule{Name: "placement part", Codes: []string{model.CodeNoHardware, model.CodeRankOutOfRange,
		model.CodeNotDivisible, model.CodeOneProcessOneNode, model.CodeProcessHardwareDup, model.CodeSpansNodes, model.CodeMixedHardware}}
	rulePlacement = &Rule{Name: "placement", Codes: []string{model.CodeUnknownGroup, model.CodeEmptyGroup,
		model.CodeMixedTypedUntyped, model.CodeDuplicateResource, model.CodeResourceOrder, model.CodeDuplicateProcess,
		model.CodeProcessOrder, model.CodeGroupsOverlap, model.CodeNodeOrder}}
)

// entryRules adds entry ei's instances. The node_group choice is a fact
// (without it, the default group); a group's own definition is context,
// named in the messages: as a fact it would sit in every core, since
// without the group there is nothing left to check.
func (b *builder) entryRules(ei int) {
	e := &b.cfg.Components[ei]
	var base []int
	if ng := b.fs.nodeGroup[ei]; ng >= 0 {
		base = append(base, ng)
	}
	for si, f := range b.fs.segment[ei] {
		si := si
		b.set.Rules = append(b.set.Rules, &Instance{Rule: rulePart, Name: fmt.Sprintf("placement part %d of %s", si, names(e)),
			Reads: append([]int{f}, base...), Check: func(p Present) *Violation { v, _ := b.entry(ei, p, si); return v }})
	}
	reads := append(append([]int(nil), b.fs.segment[ei]...), base...)
	b.set.Rules = append(b.set.Rules, &Instance{Rule: rulePlacement, Name: "placement of " + names(e), Reads: reads,
		Check: func(p Present) *Violation { v, _ := b.entry(ei, p, orderRule); return v }})
}

// Which checks entry runs: a part's own (its index), the order between
// parts and groups (orderRule), or all of them (allRules).
const (
	orderRule = -1
	allRules  = -2
)

// entryView is one evaluation of an entry: the parts present, the groups
// they resolve against, and the labels each fact gets.
type entryView struct {
	b      *builder
	ei     int
	e      *model.ComponentEntry
	who    string
	only   int
	ng     int // the node_group fact, -1 when absent or not present
	labels []string
	r      *model.Resolver
	roles  map[int]string
	parts  []model.Part
	nprocs int // the processes of parts
}

func (x *entryView) part(si int) bool { return x.only == allRules || x.only == si }
func (x *entryView) order() bool      { return x.only == allRules || x.only == orderRule }
func (x *entryView) fact(si int) int  { return x.b.fs.segment[x.ei][si] }

// entry checks entry ei with the facts p says are present, running the
// checks `only` selects; it also returns the entry's parts when they are
// valid.
func (b *builder) entry(ei int, p Present, only int) (*Violation, []model.Part) {
	x, v := b.evalEntry(ei, p, only)
	if x == nil || v != nil {
		return v, nil
	}
	return nil, x.parts
}

// evalEntry evaluates entry ei as entry does; the view is nil when the entry
// has no part present or an evaluation stopped, and holds the groups it
// resolves against and its processes when it holds.
func (b *builder) evalEntry(ei int, p Present, only int) (*entryView, *Violation) {
	x := &entryView{b: b, ei: ei, e: &b.cfg.Components[ei], only: only, ng: -1, labels: []string{"cluster"}, roles: map[int]string{}}
	x.who = names(x.e)
	segs := x.present(p)
	if len(segs) == 0 {
		return nil, nil // no placement: not this rule's business
	}
	if ng := b.fs.nodeGroup[ei]; ng >= 0 && p(ng) {
		x.ng, x.labels = ng, x.e.NodeGroups
		x.roles[ng] = fmt.Sprintf("selects node group(s) %s", strings.Join(x.labels, ","))
	}
	r, missing := b.cluster().Resolve(x.labels)
	if r == nil {
		if !x.order() {
			return nil, nil
		}
		return nil, x.unknownGroup(missing)
	}
	x.r = r
	if v := x.mixedGroups(); v != nil {
		return nil, v
	}
	v, stop := x.readParts(segs)
	if v != nil || stop {
		return nil, v
	}
	if v := x.processes(); v != nil {
		return nil, v
	}
	return x, nil
}

// present lists the segments the evaluation looks at.
func (x *entryView) present(p Present) []int {
	var segs []int
	if x.only >= 0 {
		if p(x.fact(x.only)) {
			segs = []int{x.only}
		}
		return segs
	}
	for si, f := range x.b.fs.segment[x.ei] {
		if p(f) {
			segs = append(segs, si)
		}
	}
	return segs
}

func (x *entryView) unknownGroup(missing string) *Violation {
	cl := x.b.cluster()
	code, sum := model.CodeUnknownGroup, fmt.Sprintf("%s: node group %q does not exist", x.who, missing)
	if _, empty := cl.Empty[missing]; empty {
		code, sum = model.CodeEmptyGroup, fmt.Sprintf("%s: node group %q has no nodes", x.who, missing)
	}
	v := &Violation{Code: code, Summary: sum, Primary: x.ng, Roles: x.roles,
		Why: "The labels RLinf knows are the configured node groups with at least one node, plus `cluster` (all nodes, with their GPUs) and `node` (all nodes, CPU only)."}
	if fix, ok := x.b.labelFix(x.ei, missing, cl); ok {
		v.Fixes = append(v.Fixes, fix)
	}
	return v
}

// mixedGroups refuses typed and untyped groups in one placement (D5).
func (x *entryView) mixedGroups() *Violation {
	if x.r.Typed || len(x.r.Groups) < 2 || !x.order() {
		return nil
	}
	for _, g := range x.r.Groups {
		if g.HardwareType != "" {
			return &Violation{Code: model.CodeMixedTypedUntyped, Primary: x.ng, Roles: x.roles,
				Summary: fmt.Sprintf("%s: node_group mixes groups with hardware and without", x.who),
				Why:     "RLinf then numbers GPUs and nodes in one sequence and fails at launch (D5)."}
		}
	}
	return nil
}

// readParts resolves the present parts in order and checks each against
// the groups and the parts before it. stop says a check this evaluation
// does not run failed: later checks need it to hold.
func (x *entryView) readParts(segs []int) (*Violation, bool) {
	total := x.r.Total
	last := -1 // the previous part's last process
	for _, si := range segs {
		pt := model.ResolvePart(&x.e.Segments[si], si, total, last)
		if total == 0 {
			if !x.part(si) {
				return nil, true
			}
			return &Violation{Code: model.CodeNoHardware, Primary: x.fact(si), Roles: x.roles,
				Summary: fmt.Sprintf("%s: node group(s) %s have no %s", x.who, strings.Join(x.labels, ","), x.r.Unit())}, false
		}
		if pt.ResEnd > total-1 {
			if !x.part(si) {
				return nil, true // later checks need this part in range
			}
			return x.outOfRange(si, pt), false
		}
		if len(x.parts) > 0 && x.order() {
			if v := x.orderAfter(pt); v != nil {
				return v, false
			}
		}
		if !pt.Divides() {
			if !x.part(si) {
				return nil, true
			}
			x.roles[x.fact(si)] = fmt.Sprintf("%d processes on %d %s", pt.Processes(), pt.Resources(), x.r.Unit())
			return &Violation{Code: model.CodeNotDivisible, Primary: x.fact(si), Roles: x.roles,
				Summary: fmt.Sprintf("%s: %d processes cannot be spread evenly over %d %s", x.who, pt.Processes(), pt.Resources(), x.r.Unit()),
				Fixes:   x.processCountFixes(si, pt)}, false
		}
		if x.nprocs+pt.Processes() > x.b.opt.MaxProcesses {
			return nil, true // the process limit rule says so
		}
		x.nprocs += pt.Processes()
		x.parts = append(x.parts, pt)
		last = pt.ProcEnd
	}
	return nil, false
}

func (x *entryView) outOfRange(si int, pt model.Part) *Violation {
	total, f := x.r.Total, x.fact(si)
	x.roles[f] = fmt.Sprintf("%d is past the last rank %d", pt.ResEnd, total-1)
	sg := &x.e.Segments[si]
	v := &Violation{Code: model.CodeRankOutOfRange, Primary: f, Roles: x.roles, At: sg.NumberSpan(pt.ResStart > total-1),
		Summary: fmt.Sprintf("%s: resource rank %d is outside the %d %s (0-%d) of %s", x.who, pt.ResEnd, total, x.r.Unit(), total-1, groupsText(x.labels))}
	if pt.ResStart <= total-1 {
		v.Fixes = append(v.Fixes, x.b.shrinkFix(x.ei, si, pt.ResStart, total-1))
	}
	return v
}

// orderAfter checks part pt against the parts before it: resources
// ascending and not repeated, processes continuing without gaps.
func (x *entryView) orderAfter(pt model.Part) *Violation {
	prev := x.parts[len(x.parts)-1]
	f, pf := x.fact(pt.Index), x.fact(prev.Index)
	if pt.ResStart <= prev.ResEnd {
		for _, q := range x.parts {
			if q.ResStart <= pt.ResEnd && pt.ResStart <= q.ResEnd {
				x.roles[x.fact(q.Index)] = "uses them first"
				x.roles[f] = "uses them again"
				v := &Violation{Code: model.CodeDuplicateResource, Primary: f, Roles: x.roles,
					Summary: fmt.Sprintf("%s: %s placed twice", x.who, ranksText("resource", max(pt.ResStart, q.ResStart), min(pt.ResEnd, q.ResEnd)))}
				if q.ResEnd+1 <= pt.ResEnd {
					v.Fixes = append(v.Fixes, x.b.moveFix(x.ei, pt.Index, q.ResEnd+1, pt.ResEnd-q.ResEnd-1)) // keep the end, start after the earlier part
				} else {
					v.Fixes = append(v.Fixes, x.b.moveFix(x.ei, pt.Index, q.ResEnd+1, pt.ResEnd-pt.ResStart)) // shift the whole part past it
				}
				return v
			}
		}
		x.roles[pf] = fmt.Sprintf("ends at %d", prev.ResEnd)
		x.roles[f] = fmt.Sprintf("starts at %d", pt.ResStart)
		return &Violation{Code: model.CodeResourceOrder, Primary: f, Roles: x.roles,
			Summary: fmt.Sprintf("%s: resource ranks must ascend across parts, but %d follows %d", x.who, pt.ResStart, prev.ResEnd)}
	}
	first := x.parts[0].ProcStart
	if pt.ProcStart <= prev.ProcEnd && pt.ProcEnd >= first {
		x.roles[pf], x.roles[f] = fmt.Sprintf("uses process ranks up to %d", prev.ProcEnd), fmt.Sprintf("starts again at %d", pt.ProcStart)
		return &Violation{Code: model.CodeDuplicateProcess, Primary: f, At: x.e.Segments[pt.Index].ProcSpan, Roles: x.roles,
			Summary: fmt.Sprintf("%s: process rank %d is placed twice", x.who, pt.ProcStart),
			Fixes:   []Fix{x.b.renumberFix(x.ei, pt.Index, prev.ProcEnd+1, pt.ProcEnd-pt.ProcStart)}}
	}
	if pt.ProcStart != prev.ProcEnd+1 {
		x.roles[pf], x.roles[f] = fmt.Sprintf("ends at process %d", prev.ProcEnd), fmt.Sprintf("starts at process %d", pt.ProcStart)
		return &Violation{Code: model.CodeProcessOrder, Primary: f, At: x.e.Segments[pt.Index].ProcSpan, Roles: x.roles,
			Summary: fmt.Sprintf("%s: process ranks must continue without gaps: %d follows %d", x.who, pt.ProcStart, prev.ProcEnd),
			Fixes:   []Fix{x.b.renumberFix(x.ei, pt.Index, prev.ProcEnd+1, pt.ProcEnd-pt.ProcStart)}}
	}
	return nil
}

// ranksText is "resource rank 3 is" or "resource ranks 3-5 are".
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

// processCountFixes give part si the nearest process counts that divide
// its resources, or that its resources divide: fewer, then more.
func (x *entryView) processCountFixes(si int, pt model.Part) []Fix {
	if !x.e.Segments[si].HasProcesses {
		return nil
	}
	res, n := pt.Resources(), pt.Processes()
	even := func(k int) bool { return k > 0 && (res%k == 0 || k%res == 0) }
	var out []Fix
	for d := 1; d <= n && len(out) < 2; d++ {
		for _, k := range []int{n - d, n + d} {
			if len(out) < 2 && even(k) {
				procs := fmt.Sprintf("%d processes", k)
				if k == 1 {
					procs = "1 process"
				}
				out = append(out, x.b.fix(fmt.Sprintf("run %s on the %d %s: `%s`", procs, res, x.r.Unit(), rangeStr(pt.ProcStart, pt.ProcStart+k-1)),
					func(cfg *model.Config) (model.Edit, bool) {
						sg := &cfg.Components[x.ei].Segments[si]
						sg.ProcEnd = sg.ProcStart + k - 1
						return model.Edit{Span: sg.ProcSpan, NewText: rangeStr(sg.ProcStart, sg.ProcEnd)}, true
					}))
			}
		}
	}
	return out
}
