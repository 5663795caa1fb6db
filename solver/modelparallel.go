package solver

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

var mpNames = []string{"actor", "rollout", "inference", "actor_inference", "critic_inference", "reward", "critic"}

// mpRule is ModelParallel placement's validity (semantics §5.2): required
// components, contiguity, collocated or disaggregated, TP sizes, and the
// Packed layouts it launches (D1), over the placements and sizes involved.
func (s *session) mpRule() {
	var scope []int
	for _, n := range mpNames {
		if ei := s.entryOf(n); ei >= 0 {
			for _, f := range s.fs.segment[ei] {
				if !containsInt(scope, f) {
					scope = append(scope, f)
				}
			}
		}
	}
	for _, k := range []string{"actor_tp", "rollout_tp", "rollout_pp", "inference_tp", "auto_scheduler", "recompute_logprobs"} {
		if f, ok := s.fs.setting[k]; ok {
			scope = append(scope, f)
		}
	}
	if len(scope) > maxScope {
		scope = s.narrow(scope, s.mp)
	}
	s.p.add(&rule{name: "model-parallel placement", scope: scope, check: s.mp})
}

func (s *session) entryOf(name string) int {
	for ei := range s.cfg.Components {
		for _, n := range s.cfg.Components[ei].Names {
			if n == name && !s.cfg.Components[ei].Invalid {
				return ei
			}
		}
	}
	return -1
}

// setting reads a size or flag under p: a removed size is 1, a removed
// auto_scheduler false, a removed recompute_logprobs true (the defaults).
func (s *session) setting(p present, name string) (int, int) {
	mp := &s.cfg.ModelParallel
	f, ok := s.fs.setting[name]
	on := ok && p(f)
	val := map[string]model.IntFact{"actor_tp": mp.ActorTP, "rollout_tp": mp.RolloutTP, "rollout_pp": mp.RolloutPP, "inference_tp": mp.InferenceTP}
	switch name {
	case "auto_scheduler":
		return b2i(on && mp.AutoScheduler.Value), f
	case "recompute_logprobs":
		return b2i(!on || mp.RecomputeLogprobs.Value), f
	case "inference_tp":
		if !on {
			a, _ := s.setting(p, "actor_tp")
			return a, -1
		}
	}
	if !on {
		return 1, -1
	}
	return val[name].Value, f
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *session) mp(p present) *violation {
	lists := map[string][]int{}
	segs := map[string][]int{}
	for _, n := range mpNames {
		ei := s.entryOf(n)
		if ei < 0 {
			continue
		}
		v, pr := s.entry(ei, p, allRules)
		if v != nil {
			return nil // the entry's own rule reports it
		}
		if pr == nil || len(pr.hw) == 0 {
			continue
		}
		lists[n] = pr.hw
		for _, f := range s.fs.segment[ei] {
			if p(f) {
				segs[n] = append(segs[n], f)
			}
		}
	}
	roles := map[int]string{}
	mark := func(n, role string) {
		for _, f := range segs[n] {
			roles[f] = role
		}
	}
	primary := func(n string) int {
		if l := segs[n]; len(l) > 0 {
			return l[len(l)-1]
		}
		return -1
	}
	// A component missing from the config is a conflict of its own; one
	// only deselected here just takes its checks away (deselecting a fact
	// never makes a violation, so that cores stay meaningful).
	for _, n := range []string{"actor", "rollout", "reward"} {
		if s.entryOf(n) < 0 {
			return &violation{Code: model.CodeMPMissing, Primary: -1, Roles: roles,
				Summary: fmt.Sprintf("model-parallel placement needs a `%s` component", n),
				Why:     "RLinf's ModelParallelComponentPlacement requires actor, rollout and reward GPUs."}
		}
	}
	infer := "inference"
	if lists[infer] == nil && lists["actor_inference"] != nil {
		infer = "actor_inference"
	}
	for _, n := range []string{"actor", "rollout", infer, "critic_inference", "critic"} {
		if l := lists[n]; l != nil && l[len(l)-1]-l[0]+1 != len(l) {
			mark(n, fmt.Sprintf("%s GPUs %s", n, model.RangeText(l)))
			return &violation{Code: model.CodeMPNotContiguous, Primary: primary(n), Roles: roles,
				Summary: fmt.Sprintf("%s GPUs %s must be one contiguous range under model-parallel placement", n, model.RangeText(l))}
		}
	}
	actor, rollout, inf := lists["actor"], lists["rollout"], lists[infer]
	if actor == nil || rollout == nil {
		return nil
	}
	if s.cluster().NumAccelerators() == 0 {
		return &violation{Code: model.CodeNeedsHardware, Primary: -1, Roles: roles,
			Summary: "model-parallel placement packs components onto GPUs, but the inventory has none",
			Why:     "RLinf's ModelParallel placement uses Packed strategies over the cluster's GPUs."}
	}
	numGPUs := s.cluster().NumAccelerators()
	auto, autoF := s.setting(p, "auto_scheduler")
	last := func(l []int) int { return l[len(l)-1] }
	atp, atpF := s.setting(p, "actor_tp")
	rtp, rtpF := s.setting(p, "rollout_tp")
	rpp, rppF := s.setting(p, "rollout_pp")
	if auto == 1 && lists["critic"] == nil {
		ok := actor[0] == 0 && last(actor)+1 == rollout[0]
		if inf != nil {
			ok = ok && last(rollout)+1 == inf[0] && last(inf) == numGPUs-1
		} else {
			ok = ok && last(rollout) == numGPUs-1
		}
		if !ok {
			mark("actor", "actor")
			mark("rollout", "rollout")
			mark(infer, "inference")
			roles[autoF] = "AUTO mode"
			return &violation{Code: model.CodeMPAutoOrder, Primary: autoF, Roles: roles,
				Summary: fmt.Sprintf("AUTO mode needs actor, rollout and inference in that order, from GPU 0 to the last GPU (%d)", numGPUs-1)}
		}
		if v := s.tpSizes(p, actor, rollout, atp, atpF, rtp, rtpF, segs, roles); v != nil {
			return v
		}
		gpus := rollout
		if s.cfg.ModelParallel.UsePreProcessPolicy.Value {
			// The rollout also takes the actor's GPUs before it (semantics §5.2).
			if (last(actor)-actor[0]+1)%rtp != 0 {
				mark("actor", fmt.Sprintf("%d GPUs", len(actor)))
				roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
				return &violation{Code: model.CodeMPSizes, Primary: primary("actor"), Roles: roles,
					Summary: fmt.Sprintf("with use_pre_process_policy the actor's %d GPUs must be divisible by rollout TP %d", len(actor), rtp)}
			}
			gpus = make([]int, 0, last(actor)+1+len(rollout))
			for g := 0; g <= last(actor); g++ {
				gpus = append(gpus, g)
			}
			gpus = append(gpus, rollout...)
		}
		return s.rolloutEngines(p, gpus, rtp, rtpF, rpp, rppF, segs, roles, primary("rollout"))
	}
	if slices.Equal(actor, rollout) {
		for _, n := range []string{infer, "critic_inference"} {
			if lists[n] != nil {
				mark(n, n+" GPUs")
				mark("actor", "actor and rollout share these GPUs: collocated")
				return &violation{Code: model.CodeMPCollocatedExtra, Primary: primary(n), Roles: roles,
					Summary: fmt.Sprintf("%s GPUs must not be given in collocated mode", n)}
			}
		}
		if v := s.tpSizes(p, actor, rollout, atp, atpF, rtp, rtpF, segs, roles); v != nil {
			return v
		}
		stride := 1
		if atp > rtp {
			if atp%rtp != 0 {
				roles[atpF], roles[rtpF] = fmt.Sprintf("actor TP %d", atp), fmt.Sprintf("rollout TP %d", rtp)
				primary := rtpF
				if primary < 0 {
					primary = atpF
				}
				return &violation{Code: model.CodeMPTPDivisible, Primary: primary, Roles: roles,
					Summary: fmt.Sprintf("actor TP size %d must be divisible by rollout TP size %d in collocated mode", atp, rtp),
					Why:     "Collocated rollout engines interleave inside each actor TP group (stride = actor TP / rollout TP).",
					Fixes:   tpFixes(atp, rtp)}
			}
			stride = atp / rtp
		}
		if len(rollout)%(rtp*stride) != 0 {
			mark("rollout", fmt.Sprintf("%d GPUs", len(rollout)))
			roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
			if stride > 1 {
				roles[atpF] = fmt.Sprintf("actor TP %d (stride %d)", atp, stride)
			}
			return &violation{Code: model.CodePackedDivisible, Primary: primary("rollout"), Roles: roles,
				Summary: fmt.Sprintf("rollout's %d GPUs are not divisible by rollout TP x stride = %d x %d", len(rollout), rtp, stride)}
		}
		return s.packedSpans(p, "rollout", rollout, rtp, stride, segs, roles)
	}
	pairs := [][2]string{{"actor", "rollout"}, {"actor", infer}, {"rollout", infer}, {"critic", "actor"},
		{"critic", "rollout"}, {"critic", "critic_inference"}, {"rollout", "critic_inference"}}
	for _, pr := range pairs {
		if overlap(lists[pr[0]], lists[pr[1]]) {
			mark(pr[0], pr[0])
			mark(pr[1], fmt.Sprintf("%s overlaps %s", pr[1], pr[0]))
			return &violation{Code: model.CodeMPMode, Primary: primary(pr[1]), Roles: roles,
				Summary: fmt.Sprintf("%s and %s share some GPUs but not all: neither collocated nor disaggregated", pr[0], pr[1]),
				Why:     "Model-parallel placement is collocated (actor and rollout on exactly the same GPUs) or disaggregated (disjoint GPUs); reward may overlap anything.",
				Fixes:   []candidateFix{s.moveAfterFix(pr[1], lists[pr[0]], lists[pr[1]], numGPUs)}}
		}
	}
	if inf != nil {
		itp, itpF := s.setting(p, "inference_tp")
		if itp > len(inf) {
			mark(infer, fmt.Sprintf("%d GPUs", len(inf)))
			roles[itpF] = fmt.Sprintf("inference TP %d", itp)
			return &violation{Code: model.CodeMPTPTooLarge, Primary: primary(infer), Roles: roles,
				Summary: fmt.Sprintf("inference TP size %d is larger than its %d GPUs", itp, len(inf))}
		}
		if rc, rcF := s.setting(p, "recompute_logprobs"); rc == 0 {
			mark(infer, "inference GPUs")
			roles[rcF] = "disables inference"
			return &violation{Code: model.CodeMPRecompute, Primary: primary(infer), Roles: roles,
				Summary: "algorithm.recompute_logprobs is false, which disables inference, but inference GPUs are given"}
		}
	}
	if v := s.tpSizes(p, actor, rollout, atp, atpF, rtp, rtpF, segs, roles); v != nil {
		return v
	}
	return s.rolloutEngines(p, rollout, rtp, rtpF, rpp, rppF, segs, roles, primary("rollout"))
}

// rolloutEngines checks the disaggregated (and AUTO) rollout: engines of
// len/dp GPUs, dp = len / (TP*PP), each on one node.
func (s *session) rolloutEngines(p present, gpus []int, rtp, rtpF, rpp, rppF int, segs map[string][]int, roles map[int]string, primary int) *violation {
	mark := func(role string) {
		for _, f := range segs["rollout"] {
			roles[f] = role
		}
	}
	dp := len(gpus) / (rtp * rpp)
	if dp == 0 {
		mark(fmt.Sprintf("%d GPUs", len(gpus)))
		roles[rtpF], roles[rppF] = fmt.Sprintf("TP %d", rtp), fmt.Sprintf("PP %d", rpp)
		return &violation{Code: model.CodeMPSizes, Primary: primary, Roles: roles,
			Summary: fmt.Sprintf("rollout has %d GPUs, fewer than TP x PP = %d", len(gpus), rtp*rpp)}
	}
	nhpp := len(gpus) / dp
	if len(gpus)%nhpp != 0 {
		mark(fmt.Sprintf("%d GPUs", len(gpus)))
		roles[rtpF] = fmt.Sprintf("TP %d", rtp)
		return &violation{Code: model.CodePackedDivisible, Primary: primary, Roles: roles,
			Summary: fmt.Sprintf("rollout's %d GPUs make %d engines of %d GPUs with some left over", len(gpus), dp, nhpp)}
	}
	return s.packedSpans(p, "rollout", gpus, nhpp, 1, segs, roles)
}

func (s *session) tpSizes(p present, actor, rollout []int, atp, atpF, rtp, rtpF int, segs map[string][]int, roles map[int]string) *violation {
	for _, c := range []struct {
		name string
		tp   int
		f    int
		n    []int
	}{{"actor", atp, atpF, actor}, {"rollout", rtp, rtpF, rollout}} {
		if c.tp > len(c.n) {
			for _, f := range segs[c.name] {
				roles[f] = fmt.Sprintf("%d GPUs", len(c.n))
			}
			roles[c.f] = fmt.Sprintf("%s TP %d", c.name, c.tp)
			return &violation{Code: model.CodeMPTPTooLarge, Primary: c.f, Roles: roles,
				Summary: fmt.Sprintf("%s TP size %d is larger than its %d GPUs", c.name, c.tp, len(c.n))}
		}
	}
	return nil
}

// packedSpans checks that each Packed process of a model-parallel component
// stays on one node (D1): process i holds first + (i/stride)*B + i%stride +
// k*stride for k < nhpp, with B = nhpp*stride.
func (s *session) packedSpans(p present, name string, gpus []int, nhpp, stride int, segs map[string][]int, roles map[int]string) *violation {
	r, _ := s.cluster().Resolve(nil)
	if r == nil || gpus[len(gpus)-1] >= r.Total {
		return nil
	}
	b := nhpp * stride
	for i := 0; i < len(gpus)/nhpp; i++ {
		base := gpus[0] + (i/stride)*b + i%stride
		first := r.Locate(base)
		last := r.Locate(base + (nhpp-1)*stride)
		if first.Node != last.Node {
			for _, f := range segs[name] {
				roles[f] = fmt.Sprintf("%s process %d gets GPUs on nodes %d and %d", name, i, first.Node, last.Node)
			}
			pf := -1
			if l := segs[name]; len(l) > 0 {
				pf = l[0]
			}
			return &violation{Code: model.CodeSpansNodes, Primary: pf, Roles: roles,
				Summary: fmt.Sprintf("%s process %d would span nodes %d and %d", name, i, first.Node, last.Node),
				Why:     "RLinf's Packed check is off by one and would accept it (D1); a process runs on one node."}
		}
	}
	return nil
}

func overlap(a, b []int) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	set := map[int]bool{}
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		if set[x] {
			return true
		}
	}
	return false
}

func containsInt(l []int, x int) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}
