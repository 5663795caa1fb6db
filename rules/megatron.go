package rules

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// The actor's Megatron sizes (D21): Megatron-LM's parallel state asserts
// that the world size is a multiple of TP x PP x CP, so an actor whose
// GPUs are not is refused when it starts, minutes after RLinf accepted
// the placement. The actor is Megatron wherever its TP, PP or CP sizes are
// set: the model-parallel classes, and Hybrid runs of Megatron SFT. The
// eval classes and the base class start no actor, so D21 is not theirs.
var ruleActorParallel = &Rule{Name: "actor GPUs a multiple of TP x PP x CP", Codes: []string{model.CodeActorParallel}}

// actorParallelRule adds the rule's instance over the actor's placement
// parts, its node_group and its TP, PP and CP sizes.
func (b *builder) actorParallelRule() {
	mp := &b.cfg.ModelParallel
	ei := b.entryOf("actor")
	if ei < 0 || !(mp.ActorTP.Set || mp.ActorPP.Set || mp.ActorCP.Set) || brokenLabels(b.cfg, ei) || !b.actorLaunched() {
		return
	}
	reads := append([]int(nil), b.fs.segment[ei]...)
	if ng := b.fs.nodeGroup[ei]; ng >= 0 {
		reads = append(reads, ng)
	}
	for _, k := range []string{"actor_tp", "actor_pp", "actor_cp", "auto_scheduler"} {
		if f, ok := b.fs.setting[k]; ok {
			reads = append(reads, f)
		}
	}
	b.set.Rules = append(b.set.Rules, &Instance{Rule: ruleActorParallel, Name: ruleActorParallel.Name, Reads: reads,
		Check: func(p Present) *Violation { return b.actorParallel(ei, p) }})
}

// actorLaunched reports whether the class's entry point starts the actor:
// the eval classes and the base class do not (they run no training).
func (b *builder) actorLaunched() bool {
	return !b.evalClass() && b.opt.Class != model.ClassBase
}

// autoMode reports whether the actor runs in AUTO mode under p
// (auto_scheduler on, no critic, a model-parallel class): RLinf's Megatron
// worker then starts it on every GPU of the cluster.
func (b *builder) autoMode(p Present) bool {
	auto, _ := b.setting(p, "auto_scheduler")
	return auto == 1 && b.mpClass() && b.entryOf("critic") < 0
}

// mpClass reports whether the class re-places the actor with Packed over
// its GPUs (one process per GPU).
func (b *builder) mpClass() bool {
	c := b.opt.Class
	return c != model.ClassHybrid && c != model.ClassBase && c != ""
}

// actorWorld is the actor's world size under p: its GPUs under the
// model-parallel classes, its processes otherwise; 0 when the entry's own
// rules fail (they say why).
func (b *builder) actorWorld(ei int, p Present) (int, []model.Part) {
	v, parts := b.entry(ei, p, allRules)
	if v != nil || len(parts) == 0 {
		return 0, nil
	}
	if b.autoMode(p) {
		return b.cluster().NumAccelerators(), parts
	}
	if b.mpClass() {
		return len(model.HardwareRanks(parts)), parts
	}
	n := 0
	for _, pt := range parts {
		n += pt.Processes()
	}
	return n, parts
}

func (b *builder) actorParallel(ei int, p Present) *Violation {
	world, parts := b.actorWorld(ei, p)
	tp, tpF := b.setting(p, "actor_tp")
	pp, ppF := b.setting(p, "actor_pp")
	cp, cpF := b.setting(p, "actor_cp")
	size := tp * pp * cp
	if world == 0 || size <= 0 || world%size == 0 || b.mpClass() && tp > world {
		return nil // a TP size past the GPUs is RLS-E0506's
	}
	roles := map[int]string{}
	unit := "processes"
	if b.mpClass() {
		unit = "GPUs"
	}
	auto := b.autoMode(p)
	last := -1
	for _, f := range b.fs.segment[ei] {
		if p(f) {
			roles[f], last = fmt.Sprintf("actor: %d %s", world, unit), f
		}
	}
	// The message names the sizes that make the product, each a located
	// fact (a size of 1, set or not, changes nothing).
	var names, values []string
	for _, z := range []struct {
		name string
		v, f int
	}{{"TP", tp, tpF}, {"PP", pp, ppF}, {"CP", cp, cpF}} {
		if z.f >= 0 && z.v > 1 {
			roles[z.f] = fmt.Sprintf("%s %d", z.name, z.v)
			names, values = append(names, z.name), append(values, fmt.Sprint(z.v))
		}
	}
	sizes := fmt.Sprintf("its %s size %s", names[0], values[0])
	if len(names) > 1 {
		sizes = fmt.Sprintf("%s = %s = %d", strings.Join(names, " x "), strings.Join(values, " x "), size)
	}
	v := &Violation{Code: model.CodeActorParallel, Primary: last, Roles: roles,
		Summary: fmt.Sprintf("actor has %d %s, not a multiple of %s: Megatron refuses to start it", world, unit, sizes),
		Why: "Megatron-LM's parallel state asserts that the world size is a multiple of TP x PP x CP; RLinf accepts the " +
			"placement, and the actor fails when it starts, minutes into the run (D21).",
		Fixes: b.actorRangeFixes(ei, parts, world, size, unit)}
	if auto {
		// The actor's own range does not set its size in AUTO mode: no
		// range fix can help, the cluster's size or the sizes must change.
		if _, f := b.setting(p, "auto_scheduler"); f >= 0 {
			roles[f] = "AUTO mode"
		}
		v.Summary = fmt.Sprintf("in AUTO mode the actor starts on all %d GPUs of the cluster, not a multiple of %s: Megatron refuses to start it", world, sizes)
		v.Fixes = nil
	}
	return v
}

// actorRangeFixes give the actor's one placement part (one process per
// resource) the nearest world sizes that are multiples of size: fewer
// GPUs, then more; the solver keeps those that fit.
func (b *builder) actorRangeFixes(ei int, parts []model.Part, world, size int, unit string) []Fix {
	e := &b.cfg.Components[ei]
	if len(parts) != 1 || len(e.Segments) != 1 || e.Segments[0].HasProcesses || parts[0].Resources() != world {
		return nil
	}
	start := parts[0].ResStart
	// The key's other components get the same range: the message names
	// them, so that the fix changes nothing it does not say.
	var others []string
	for _, n := range e.Names {
		if n != "actor" {
			others = append(others, n)
		}
	}
	also := ""
	if len(others) > 0 {
		verb := "share"
		if len(others) == 1 {
			verb = "shares"
		}
		also = fmt.Sprintf("; %s %s the key and get%s the same GPUs", joinAnd(others), verb, strings.TrimPrefix(verb, "share"))
	}
	var out []Fix
	for _, n := range []int{world / size * size, (world/size + 1) * size} {
		if n > 0 {
			out = append(out, b.rangeFix(ei, 0, start, start+n-1, fmt.Sprintf("give the actor %d %s (a multiple of %d)%s", n, unit, size, also)))
		}
	}
	return out
}
