package strategies

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// rankMap is one parsed component_placement entry (semantics §2.3-2.5):
// contiguous resource and process ranges per segment.
type rankMap struct {
	entry  *model.ComponentEntry
	labels []string
	res    *model.Resolver
	segs   []segRange
	// procRes[i] is process i's resource range [start, start+n).
	procStart []int
	procN     []int
	worldSize int
	hwRanks   []int
	strategy  model.Strategy
}

type segRange struct {
	rs, re, ps, pe int
	seg            *model.Segment
	firstProc      int // index of its first process in worker order
}

func (pl *planner) parseEntry(e *model.ComponentEntry) *rankMap {
	rm := &rankMap{entry: e, labels: e.NodeGroups}
	if len(rm.labels) == 0 {
		rm.labels = []string{"cluster"}
	}
	what := strings.Join(e.Names, ",")
	for _, l := range rm.labels {
		if pl.cfg.Broken["group:"+l] {
			return nil // the group's own error is reported already
		}
	}
	// Resolve labels one by one so each missing one is reported at its span.
	ok := true
	for j, l := range rm.labels {
		if _, f := pl.c.resolve([]string{l}); f != nil {
			sp := e.PlacementSpan
			if j < len(e.NodeGroupSpans) {
				sp = e.NodeGroupSpans[j]
			}
			d := pl.errAt(f.Code, sp, "not a node group", "%s: %s", what, f.Msg)
			var names []string
			for _, g := range pl.c.Groups {
				names = append(names, g.Label)
			}
			d.Why = "The labels RLinf knows are the configured node groups with at least one node, plus `cluster` (all nodes, with their GPUs) and `node` (all nodes, CPU only)."
			if s := fuzzy.Nearest(l, names); s != "" {
				d.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", s), Edits: []model.Edit{{Span: sp, NewText: s}}}}
			} else {
				d.Help = []model.Fix{{Message: "known labels: " + strings.Join(names, ", ")}}
			}
			ok = false
		}
	}
	if !ok || e.Invalid {
		return nil
	}
	r, _ := pl.c.resolve(rm.labels)
	rm.res = r
	if !r.Typed && len(r.Groups) > 1 {
		var typed, untyped []string
		for _, g := range r.Groups {
			if g.HardwareType == "" {
				untyped = append(untyped, g.Label)
			} else {
				typed = append(typed, g.Label)
			}
		}
		if len(typed) > 0 {
			d := pl.errAt(model.CodeMixedTypedUntyped, e.NodeGroupSpan, "mixes hardware and CPU-only groups",
				"%s: node_group mixes groups with hardware (%s) and without (%s)", what, strings.Join(typed, ", "), strings.Join(untyped, ", "))
			d.Why = "RLinf then numbers GPUs and nodes in one sequence and fails at launch (overlapping nodes or an index error), minutes into the run (D5)."
			d.Help = []model.Fix{{Message: "place GPU workers and CPU workers as separate components"}}
			return nil
		}
	}
	total := r.Total
	unit := r.Unit()
	lastRes, lastProc, firstProc := -1, -1, -1
	var resStarts []int
	procCount := 0
	for si := range e.Segments {
		s := &e.Segments[si]
		rs, re := s.ResStart, s.ResEnd
		if s.AllResources {
			rs, re = 0, total-1
		}
		if total == 0 {
			d := pl.errAt(model.CodeNoHardware, s.ResSpan, "nothing to place on", "%s: node group(s) %s have no %s", what, strings.Join(rm.labels, ","), unit)
			d.Help = pl.noHardwareHelp(r)
			return nil
		}
		for _, x := range []int{rs, re} {
			if x > total-1 {
				d := pl.errAt(model.CodeRankOutOfRange, s.NumberSpan(x == rs && !s.AllResources), fmt.Sprintf("%d is past the last rank %d", x, total-1),
					"%s: resource rank %d is outside the %s of node group(s) %s", what, x, countText(total, unit), strings.Join(rm.labels, ","))
				if rs <= total-1 {
					fix := fmt.Sprintf("%d-%d", rs, total-1)
					if rs == total-1 {
						fix = fmt.Sprint(rs)
					}
					d.Help = []model.Fix{{Message: fmt.Sprintf("shrink the range to fit: `%s`", fix), Edits: []model.Edit{{Span: s.ResSpan, NewText: fix}}}}
				}
				return nil
			}
		}
		if lastRes >= 0 && rs <= lastRes {
			i := sort.SearchInts(resStarts, re+1) - 1 // last earlier segment starting at or before re
			if i >= 0 && rm.segs[i].re >= rs {
				d := pl.errAt(model.CodeDuplicateResource, s.ResSpan, "overlaps an earlier part", "%s: resource ranks %d-%d are given twice", what, max(rs, rm.segs[i].rs), min(re, rm.segs[i].re))
				d.Labels = []model.Label{{Span: rm.segs[i].seg.ResSpan, Message: "already placed here"}}
				return nil
			}
			d := pl.errAt(model.CodeResourceOrder, s.ResSpan, "comes after a higher rank", "%s: resource ranks must be ascending across parts, but %d follows %d", what, rs, lastRes)
			d.Labels = []model.Label{{Span: rm.segs[len(rm.segs)-1].seg.ResSpan, Message: "the previous part"}}
			return nil
		}
		nres := re - rs + 1
		ps, pe := lastProc+1, lastProc+nres
		if s.HasProcesses {
			ps, pe = s.ProcStart, s.ProcEnd
		}
		if pe-ps+1 > pl.opt.MaxProcesses || procCount+(pe-ps+1) > pl.opt.MaxProcesses {
			pl.errAt(model.CodeLimit, s.ProcSpan, "too many processes", "%s: %d processes in one component; the limit is %d", what, procCount+pe-ps+1, pl.opt.MaxProcesses)
			return nil
		}
		if lastProc >= 0 {
			// Earlier parts hold firstProc..lastProc without gaps; only an
			// overlap with them is a duplicate, anything else is out of order.
			if ps <= lastProc && pe >= firstProc {
				d := pl.errAt(model.CodeDuplicateProcess, s.ProcSpan, "already used", "%s: process rank %d is given twice", what, ps)
				d.Labels = []model.Label{{Span: rm.segs[len(rm.segs)-1].seg.ProcSpan, Message: "earlier part"}}
				return nil
			}
			if ps != lastProc+1 {
				d := pl.errAt(model.CodeProcessOrder, s.ProcSpan, fmt.Sprintf("expected %d", lastProc+1),
					"%s: process ranks must continue without gaps: this part starts at %d, after %d", what, ps, lastProc)
				fix := fmt.Sprintf("%d-%d", lastProc+1, lastProc+1+pe-ps)
				if pe == ps {
					fix = fmt.Sprint(lastProc + 1)
				}
				d.Help = []model.Fix{{Message: fmt.Sprintf("renumber this part: `%s`", fix), Edits: []model.Edit{{Span: s.ProcSpan, NewText: fix}}}}
				return nil
			}
		} else if ps != 0 {
			w := pl.warnAt(model.WarnProcessOffset, s.ProcSpan, "does not start at 0", "%s: process ranks start at %d; RLinf renumbers them from 0", what, ps)
			w.Why = "RLinf accepts this and relabels the workers 0.. (its docs say process ranks must start at 0) (D4)."
		}
		np := pe - ps + 1
		if np%nres != 0 && nres%np != 0 {
			d := pl.errAt(model.CodeNotDivisible, s.Span, fmt.Sprintf("%d processes on %d %s", np, nres, unit),
				"%s: %d processes cannot be spread evenly over %d %s", what, np, nres, unit)
			d.Why = "Each part must give every process the same number of resources, or every resource the same number of processes."
			return nil
		}
		rm.segs = append(rm.segs, segRange{rs: rs, re: re, ps: ps, pe: pe, seg: s, firstProc: procCount})
		resStarts = append(resStarts, rs)
		procCount += np
		if firstProc < 0 {
			firstProc = ps
		}
		lastRes, lastProc = re, pe
	}
	if pl.totalProcs+procCount > pl.opt.MaxTotalProcesses {
		pl.errAt(model.CodeLimit, e.PlacementSpan, "too many processes", "the config places more than %d processes in all", pl.opt.MaxTotalProcesses)
		return nil
	}
	pl.totalProcs += procCount
	rm.worldSize = procCount
	rm.procStart = make([]int, 0, procCount)
	rm.procN = make([]int, 0, procCount)
	for _, sg := range rm.segs {
		nres, np := sg.re-sg.rs+1, sg.pe-sg.ps+1
		for x := sg.rs; x <= sg.re; x++ {
			rm.hwRanks = append(rm.hwRanks, x)
		}
		if nres >= np {
			k := nres / np
			for i := 0; i < np; i++ {
				rm.procStart = append(rm.procStart, sg.rs+i*k)
				rm.procN = append(rm.procN, k)
			}
		} else {
			m := np / nres
			for i := 0; i < np; i++ {
				rm.procStart = append(rm.procStart, sg.rs+i/m)
				rm.procN = append(rm.procN, 1)
			}
		}
	}
	if !r.Typed {
		for i, n := range rm.procN {
			if n != 1 {
				sg := rm.segOf(i)
				d := pl.errAt(model.CodeOneProcessOneNode, sg.seg.Span, fmt.Sprintf("worker %d gets %d nodes", i, n),
					"%s: worker %d would be given %d nodes, but a process runs on one node", what, i, n)
				d.Why = "On a group without GPUs (or robots) each resource is a whole node."
				return nil
			}
		}
		rm.strategy = model.Strategy{Kind: model.StrategyNode, NodeGroups: rm.labels, NodeRanks: append([]int(nil), rm.procStart...)}
	} else {
		backing := make([]int, 0, len(rm.hwRanks))
		lists := make([][]int, len(rm.procStart))
		for i, st := range rm.procStart {
			from := len(backing)
			for k := 0; k < rm.procN[i]; k++ {
				backing = append(backing, st+k)
			}
			lists[i] = backing[from:len(backing):len(backing)]
		}
		rm.strategy = model.Strategy{Kind: model.StrategyFlexible, NodeGroups: rm.labels, HardwareRanks: lists}
	}
	return rm
}

// segOf returns the segment that holds worker i.
func (rm *rankMap) segOf(i int) segRange {
	j := sort.Search(len(rm.segs), func(k int) bool { return rm.segs[k].firstProc > i }) - 1
	if j < 0 {
		j = 0
	}
	return rm.segs[j]
}

func (pl *planner) noHardwareHelp(r *model.Resolver) []model.Fix {
	for _, g := range r.Groups {
		if g.HardwareType != "" && g.HardwareType != model.HardwareAccelerator {
			return []model.Fix{{Message: fmt.Sprintf("declare the robots: add `hardware: {%s: N}` to the inventory node, or list them in the group's hardware.configs", g.HardwareType)}}
		}
	}
	return []model.Fix{{Message: "check the inventory: these nodes have no GPUs (use --inventory or --gpus-per-node)"}}
}

// countText is "the 8 GPUs (0-7)", or "the only node (0)" for one.
func countText(n int, unit string) string {
	if n == 1 {
		return fmt.Sprintf("only %s (rank 0)", strings.TrimSuffix(unit, "s"))
	}
	return fmt.Sprintf("%d %s (0-%d)", n, unit, n-1)
}
