package solver

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/rlsolve/rlsolve/model"
)

// slime's rules (../shared/spec/slime.md) compiled like RLinf's: each given
// flag is a fact whose selector, when false, puts the flag back to its
// default; each rule is a predicate over the flags it reads, evaluated on
// the inventory's stable order. A conflict is then a minimal set of flags:
// with those flags as given, whatever the others are, the rule fails, and
// dropping any one of them lets it hold.

func init() {
	for _, c := range []string{model.CodeSlimeModes, model.CodeSlimeFit, model.CodeSlimeEngineDivides, model.CodeSlimeStraddle,
		model.CodeSlimeNodeSize, model.CodeSlimeGroups, model.CodeSlimePortRange, model.CodeSlimePortOverlap} {
		covered[c] = true
	}
}

// slimeViolation is a failed slime rule, explained on the given flags.
type slimeViolation struct {
	code, summary, why string
	// primary lists the flags the diagnostic prefers to point at.
	primary []model.SlimeKey
	label   string
	// absent labels the input's end when primary[0] is not given: the
	// conflict is with that flag's default.
	absent string
	roles  map[model.SlimeKey]string
	extra  []model.Label
	fixes  []slimeFix
}

// slimeFix sets a flag to a value (or drops it).
type slimeFix struct {
	key    model.SlimeKey
	value  int
	remove bool
}

type slimeRule struct {
	name  string
	keys  []model.SlimeKey
	check func(s model.SlimeSettings) *slimeViolation
}

type slimeSession struct {
	cfg    *model.SlimeConfig
	t      *model.SlimeTopology
	facts  []Fact
	factOf [model.SlimeNumKeys]int
	keyOf  []model.SlimeKey
	p      *problem
	rules  map[*rule]*slimeRule
}

// CheckSlime decides a slime layout on the stable order t and explains each
// conflict as a minimal set of flags (up to MaxConflicts).
func CheckSlime(cfg *model.SlimeConfig, t *model.SlimeTopology, opt Options) (*Result, error) {
	if opt.MaxConflicts == 0 {
		opt.MaxConflicts = 20
	}
	if opt.Budget == 0 {
		opt.Budget = 10 * time.Second
	}
	start := time.Now()
	deadline := start.Add(opt.Budget)
	s := &slimeSession{cfg: cfg, t: t, rules: map[*rule]*slimeRule{}}
	for k := range model.SlimeNumKeys {
		s.factOf[k] = -1
		if v := cfg.Values[k]; v.Set {
			s.factOf[k] = len(s.facts)
			s.keyOf = append(s.keyOf, k)
			s.facts = append(s.facts, Fact{Kind: FactSetting, Span: v.Span, What: v.Text, Name: k.Info().Key})
		}
	}
	s.p = newProblem(len(s.facts))
	for _, r := range s.slimeRules() {
		var scope []int
		for _, k := range r.keys {
			if f := s.factOf[k]; f >= 0 {
				scope = append(scope, f)
			}
		}
		r := r
		ru := &rule{name: r.name, scope: scope, check: func(p present) *violation {
			if r.check(s.settings(p)) == nil {
				return nil
			}
			return &violation{Code: r.name}
		}}
		s.rules[ru] = r
		s.p.add(ru)
	}
	conflicts, err := s.p.solve(opt.MaxConflicts, deadline)
	res := &Result{Stats: Stats{Facts: len(s.facts), Rules: len(s.p.rules), Evaluations: s.p.evals, Conflicts: len(conflicts)}}
	for _, c := range conflicts {
		res.Stats.LargestSet = max(res.Stats.LargestSet, len(c.facts))
		res.Diagnostics = append(res.Diagnostics, s.diagnostic(c, len(conflicts), opt, deadline))
	}
	res.Stats.Elapsed = time.Since(start)
	return res, err
}

func (s *slimeSession) settings(p present) model.SlimeSettings {
	return s.cfg.Settings(func(k model.SlimeKey) bool { f := s.factOf[k]; return f >= 0 && p(f) })
}

var (
	slimeLayoutKeys = []model.SlimeKey{model.SlimeActorNumNodes, model.SlimeActorGPUsPerNode, model.SlimeRolloutNumGPUs,
		model.SlimeColocate, model.SlimeTrainOnly, model.SlimeRolloutOnly, model.SlimeRolloutExternal, model.SlimeLoadDebugRollout, model.SlimeSGLangConfig}
)

func withKeys(base []model.SlimeKey, more ...model.SlimeKey) []model.SlimeKey {
	return append(append([]model.SlimeKey(nil), base...), more...)
}

// slimeRules are the rules of slime.md's last section. The later ones
// hold vacuously where an earlier one fails, so that one mistake is
// reported once.
func (s *slimeSession) slimeRules() []*slimeRule {
	t := s.t
	fits := func(x model.SlimeSettings) bool { total, _ := x.Bundles(); return total <= t.NumGPUs() }
	divides := model.SlimeSettings.EnginesDivide
	return []*slimeRule{
		{name: "one debug mode", keys: []model.SlimeKey{model.SlimeTrainOnly, model.SlimeRolloutOnly}, check: s.modes},
		{name: "placement group fits", keys: slimeLayoutKeys, check: s.fit},
		{name: "engines divide the rollout", keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine), check: s.divides},
		{name: "one source of engines", keys: []model.SlimeKey{model.SlimeRolloutExternal, model.SlimePrefillServers, model.SlimeSGLangConfig}, check: s.sources},
		{name: "decode GPUs remain", keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine, model.SlimePrefillServers), check: s.prefill},
		{name: "node size", keys: withKeys(slimeLayoutKeys, model.SlimeNumGPUsPerNode, model.SlimeRolloutGPUsPerEngine), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.nodeSize(x)
		}},
		{name: "engines on one node or whole nodes", keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.straddle(x)
		}},
		{name: "ports below the ephemeral range", keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine, model.SlimeDPSize, model.SlimeNumGPUsPerNode, model.SlimePrefillServers), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.portRange(x)
		}},
		{name: "port blocks disjoint", keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine, model.SlimeDPSize, model.SlimeNumGPUsPerNode, model.SlimePrefillServers), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.portOverlap(x)
		}},
	}
}

func (s *slimeSession) modes(x model.SlimeSettings) *slimeViolation {
	if !x.TrainOnly || !x.RolloutOnly {
		return nil
	}
	return &slimeViolation{code: model.CodeSlimeModes,
		summary: "--debug-train-only and --debug-rollout-only cannot both be given",
		why:     "slime checks --debug-train-only first and never places the rollout, so --debug-rollout-only would silently do nothing.",
		primary: []model.SlimeKey{model.SlimeRolloutOnly}, label: "contradicts --debug-train-only",
		roles: map[model.SlimeKey]string{model.SlimeTrainOnly: "places only the actor"},
		fixes: []slimeFix{{key: model.SlimeRolloutOnly, remove: true}, {key: model.SlimeTrainOnly, remove: true}}}
}

func (s *slimeSession) breakdown(x model.SlimeSettings) string {
	switch x.Mode() {
	case model.SlimeDisaggregatedMode:
		return fmt.Sprintf("%d actor + %d rollout", x.ActorGPUs(), x.Rollout())
	case model.SlimeRolloutOnlyMode:
		return fmt.Sprintf("%d rollout", x.Rollout())
	case model.SlimeColocateMode:
		return fmt.Sprintf("%d actor, %d rollout, shared", x.ActorGPUs(), x.Rollout())
	case model.SlimeExternalMode:
		return fmt.Sprintf("%d actor; the engines run outside Ray", x.ActorGPUs())
	}
	return fmt.Sprintf("%d actor", x.ActorGPUs())
}

func (s *slimeSession) fit(x model.SlimeSettings) *slimeViolation {
	total, _ := x.Bundles()
	have := s.t.NumGPUs()
	if total <= have {
		return nil
	}
	v := &slimeViolation{code: model.CodeSlimeFit,
		summary: fmt.Sprintf("the %s layout needs %d GPUs (%s), but the inventory has %d", x.Mode(), total, s.breakdown(x), have),
		why:     "slime reserves one placement-group bundle {GPU: 1, CPU: 1} per GPU of the layout; Ray never schedules a group larger than the cluster, so slime would wait forever.",
		primary: []model.SlimeKey{model.SlimeRolloutNumGPUs, model.SlimeActorNumNodes, model.SlimeActorGPUsPerNode},
		label:   fmt.Sprintf("%d GPUs in all", total),
		roles:   s.roles(x)}
	if s.t.Span.Known() {
		v.extra = append(v.extra, model.Label{Span: s.t.Span, Message: fmt.Sprintf("%d GPUs on %d node(s)", have, len(s.t.Order))})
	}
	g := max(x.GPUsPerEngine, 1)
	switch x.Mode() {
	case model.SlimeDisaggregatedMode:
		if free := have - x.ActorGPUs(); free >= g {
			v.fixes = append(v.fixes, slimeFix{key: model.SlimeRolloutNumGPUs, value: free / g * g})
		}
		if n := (have - x.Rollout()) / max(x.ActorGPUsPerNode, 1); n >= 1 {
			v.fixes = append(v.fixes, slimeFix{key: model.SlimeActorNumNodes, value: n})
		}
	case model.SlimeRolloutOnlyMode:
		if have >= g {
			v.fixes = append(v.fixes, slimeFix{key: model.SlimeRolloutNumGPUs, value: have / g * g})
		}
	default:
		if n := have / max(x.ActorGPUsPerNode, 1); n >= 1 {
			v.fixes = append(v.fixes, slimeFix{key: model.SlimeActorNumNodes, value: n})
		}
	}
	return v
}

func (s *slimeSession) divides(x model.SlimeSettings) *slimeViolation {
	if x.EnginesDivide() {
		return nil
	}
	r, g := x.Rollout(), x.GPUsPerEngine
	v := &slimeViolation{code: model.CodeSlimeEngineDivides,
		summary: fmt.Sprintf("rollout_num_gpus %d is not a multiple of rollout_num_gpus_per_engine %d", r, g),
		why:     fmt.Sprintf("slime starts rollout_num_gpus // rollout_num_gpus_per_engine = %d engine(s); the other %d GPU(s) would get no engine.", r/g, r%g),
		primary: []model.SlimeKey{model.SlimeRolloutNumGPUs, model.SlimeRolloutGPUsPerEngine},
		label:   fmt.Sprintf("%d = %d x %d + %d", r, r/g, g, r%g),
		roles:   s.roles(x)}
	if r/g > 0 {
		v.fixes = append(v.fixes, slimeFix{key: model.SlimeRolloutNumGPUs, value: r / g * g})
	}
	v.fixes = append(v.fixes, slimeFix{key: model.SlimeRolloutNumGPUs, value: (r/g + 1) * g})
	for d := g - 1; d >= 1; d-- {
		if r%d == 0 {
			v.fixes = append(v.fixes, slimeFix{key: model.SlimeRolloutGPUsPerEngine, value: d})
			break
		}
	}
	return v
}

func (s *slimeSession) sources(x model.SlimeSettings) *slimeViolation {
	a, b, bad := x.SourcesConflict()
	if !bad {
		return nil
	}
	return &slimeViolation{code: model.CodeSlimeGroups,
		summary: fmt.Sprintf("slime refuses %s with %s", a.Info().Flag, b.Info().Flag),
		why: "The rollout's engines come from one place: external engines (--rollout-external-engine-addrs), a --sglang-config file, " +
			"or the flags (--prefill-num-servers splits them into prefill and decode); slime's argument validation asserts that only one is given.",
		primary: []model.SlimeKey{b, a}, label: "a second source of engines",
		roles: s.roles(x),
		fixes: []slimeFix{{key: b, remove: true}, {key: a, remove: true}}}
}

func (s *slimeSession) prefill(x model.SlimeSettings) *slimeViolation {
	if !x.PrefillLeavesNoDecode() {
		return nil
	}
	v := &slimeViolation{code: model.CodeSlimeGroups,
		summary: fmt.Sprintf("--prefill-num-servers %d takes %d of the rollout's %d GPUs (%d per engine), leaving none to decode",
			x.PrefillServers, x.PrefillGPUs(), x.Rollout(), x.GPUsPerEngine),
		why:     "slime builds a prefill group of prefill_num_servers x rollout_num_gpus_per_engine GPUs and gives the rest to a decode group, which it asserts is not empty.",
		primary: []model.SlimeKey{model.SlimePrefillServers, model.SlimeRolloutNumGPUs, model.SlimeRolloutGPUsPerEngine},
		label:   fmt.Sprintf("%d prefill GPUs", x.PrefillGPUs()),
		roles:   s.roles(x)}
	if g := max(x.GPUsPerEngine, 1); x.Rollout()/g > 1 {
		v.fixes = append(v.fixes, slimeFix{key: model.SlimePrefillServers, value: x.Rollout()/g - 1})
	}
	v.fixes = append(v.fixes, slimeFix{key: model.SlimePrefillServers, remove: true})
	return v
}

func (s *slimeSession) nodeSize(x model.SlimeSettings) *slimeViolation {
	m, bad := s.t.NodeMismatch(x)
	if !bad {
		return nil
	}
	n := s.t.Node(m.Pos)
	def := ""
	if !s.cfg.Values[model.SlimeNumGPUsPerNode].Set {
		def = " (the default)"
	}
	var on []string
	s.t.Positions(m.Start, m.End, func(pos, a, b int) bool {
		on = append(on, fmt.Sprintf("%d GPUs of %s", b-a, nodeName(s.t, pos)))
		return true
	})
	split := "slime starts it as one SGLang node, but it spans " + joinAnd(on)
	if x.GPUsPerEngine > x.NumGPUsPerNode {
		split = fmt.Sprintf("slime splits it into %d SGLang nodes of %d GPUs, but %s has %d", x.NodesPerEngine(), x.WorkerGPUs(), nodeName(s.t, m.Pos), n.AccelCount)
	}
	v := &slimeViolation{code: model.CodeSlimeNodeSize,
		summary: fmt.Sprintf("--num-gpus-per-node is %d%s, so rollout engine %d (bundles %d-%d, %d GPUs) is split wrongly: %s",
			x.NumGPUsPerNode, def, m.Engine, m.Start, m.End-1, x.GPUsPerEngine, split),
		why: "slime starts an engine as max(1, gpus_per_engine // num_gpus_per_node) SGLang nodes of min(gpus_per_engine, num_gpus_per_node) GPUs each; " +
			"an engine spanning nodes only runs when that split is its nodes. Engines within one node do not depend on --num-gpus-per-node.",
		primary: []model.SlimeKey{model.SlimeNumGPUsPerNode},
		label:   fmt.Sprintf("nodes have %d GPUs", n.AccelCount),
		absent:  fmt.Sprintf("no --num-gpus-per-node: slime assumes %d GPUs per node", x.NumGPUsPerNode),
		roles:   s.roles(x),
		fixes:   []slimeFix{{key: model.SlimeNumGPUsPerNode, value: n.AccelCount}}}
	if n.Span.Known() {
		v.extra = append(v.extra, model.Label{Span: n.Span, Message: fmt.Sprintf("%d GPUs", n.AccelCount)})
	}
	if n.AccelCount == 0 {
		v.fixes = nil
	}
	return v
}

func (s *slimeSession) straddle(x model.SlimeSettings) *slimeViolation {
	st, bad := s.t.Straddler(x)
	if !bad {
		return nil
	}
	var where []string
	s.t.Positions(st.Start, st.End, func(pos, a, b int) bool {
		na, _ := s.t.NodeRange(pos)
		where = append(where, fmt.Sprintf("GPU(s) %s of %s", gpuRange(s.t, pos, a-na, b-a), nodeName(s.t, pos)))
		return true
	})
	g := x.GPUsPerEngine
	v := &slimeViolation{code: model.CodeSlimeStraddle,
		summary: fmt.Sprintf("rollout engine %d (bundles %d-%d) straddles nodes: %s", st.Engine, st.Start, st.End-1, joinAnd(where)),
		why: "An SGLang engine's tensor-parallel group runs on one node, or on whole nodes when gpus_per_engine is a multiple of the node size " +
			"and the engine starts at a node's first GPU; a part-node span has no dist_init_addr slime can give it.",
		primary: []model.SlimeKey{model.SlimeRolloutGPUsPerEngine, model.SlimeRolloutNumGPUs},
		label:   fmt.Sprintf("%d GPUs per engine", g),
		roles:   s.roles(x)}
	for d := g - 1; d >= 1 && len(v.fixes) < 2; d-- {
		if x.Rollout()%d == 0 {
			v.fixes = append(v.fixes, slimeFix{key: model.SlimeRolloutGPUsPerEngine, value: d})
		}
	}
	return v
}

func (s *slimeSession) portRange(x model.SlimeSettings) *slimeViolation {
	eph, _ := s.t.PortProblems(x)
	if eph == nil {
		return nil
	}
	np := eph.At
	v := &slimeViolation{code: model.CodeSlimePortRange,
		summary: fmt.Sprintf("the rollout ports on %s run from %d to %d, into the ephemeral range %d-%d: ports for %d engine(s), then %d dist_init_addr block(s) of 30 + dp size %d",
			nodeName(s.t, eph.Pos), np.Base, eph.Last, model.SlimeEphemeralFirst, model.SlimeEphemeralLast, np.Served, np.Blocks, x.DPSize),
		why: "slime allocates each node's ports from 15000 up: HTTP and NCCL ports for every engine it serves there (counted from the flags), then a dist_init_addr block per engine; " +
			"the kernel hands out ports in the ephemeral range to outgoing connections at any time, so a server port there can be taken before the engine binds it.",
		primary: []model.SlimeKey{model.SlimeDPSize, model.SlimeRolloutNumGPUs},
		label:   fmt.Sprintf("%d ports per dist_init_addr block", x.DistBlock()),
		roles:   s.roles(x)}
	if dp := (model.SlimeEphemeralFirst-np.Dist)/max(np.Blocks, 1) - model.SlimeDistInitBlockBase; dp >= 1 && dp < x.DPSize {
		v.fixes = append(v.fixes, slimeFix{key: model.SlimeDPSize, value: dp})
	}
	return v
}

func (s *slimeSession) portOverlap(x model.SlimeSettings) *slimeViolation {
	_, ov := s.t.PortProblems(x)
	if ov == nil {
		return nil
	}
	a, b := s.t.Node(ov.Pos), s.t.Node(ov.Other)
	v := &slimeViolation{code: model.CodeSlimePortOverlap,
		summary: fmt.Sprintf("engines on node %d and node %d both take ports from %d on %s: the two nodes have the same address", a.Rank, b.Rank, model.SlimePortStart, a.Address()),
		why:     "Ports are planned per node from a cursor at 15000, so two inventory nodes that are one machine plan overlapping port blocks.",
		primary: []model.SlimeKey{model.SlimeRolloutNumGPUs},
		label:   "places engines on both",
		roles:   s.roles(x)}
	for _, n := range []*model.Node{a, b} {
		if n.Span.Known() {
			v.extra = append(v.extra, model.Label{Span: n.Span, Message: fmt.Sprintf("node %d is %s", n.Rank, n.Address())})
		}
	}
	return v
}

// roles describes what each flag contributes, on the given settings.
func (s *slimeSession) roles(x model.SlimeSettings) map[model.SlimeKey]string {
	return map[model.SlimeKey]string{
		model.SlimeActorNumNodes:        fmt.Sprintf("the actor on %d node(s)", x.ActorNodes),
		model.SlimeActorGPUsPerNode:     fmt.Sprintf("%d actor GPUs per node", x.ActorGPUsPerNode),
		model.SlimeRolloutNumGPUs:       fmt.Sprintf("%d rollout GPUs", x.RolloutGPUs),
		model.SlimeRolloutGPUsPerEngine: fmt.Sprintf("%d GPUs per engine", x.GPUsPerEngine),
		model.SlimeNumGPUsPerNode:       fmt.Sprintf("slime assumes %d GPUs per node", x.NumGPUsPerNode),
		model.SlimeDPSize:               fmt.Sprintf("%d ports per dist_init_addr block", x.DistBlock()),
		model.SlimeColocate:             "actor and rollout share the GPUs",
		model.SlimeTrainOnly:            "only the actor is placed",
		model.SlimeRolloutOnly:          "only the rollout is placed",
		model.SlimePrefillServers:       fmt.Sprintf("%d prefill engine(s)", x.PrefillServers),
		model.SlimeRolloutExternal:      "the engines run outside Ray",
		model.SlimeLoadDebugRollout:     "only the actor is placed",
		model.SlimeSGLangConfig:         "the engine groups come from a file",
	}
}

func nodeName(t *model.SlimeTopology, pos int) string {
	n := t.Node(pos)
	if a := n.Address(); a != "" {
		return fmt.Sprintf("node %d (%s)", n.Rank, a)
	}
	return fmt.Sprintf("node %d", n.Rank)
}

func gpuRange(t *model.SlimeTopology, pos, local, n int) string {
	a, b := t.GPUID(pos, local), t.GPUID(pos, local+n-1)
	if n == 1 {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := ""
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			out += " and "
		default:
			out += ", "
		}
		out += x
	}
	return out
}

// diagnostic renders a conflict on the flags as given: the minimal set's
// flags are the spans, the message describes the layout as configured.
func (s *slimeSession) diagnostic(c conflict, found int, opt Options, deadline time.Time) model.Diagnostic {
	r := s.rules[c.rule]
	v := r.check(s.cfg.Settings(nil))
	if v == nil {
		// The set alone violates the rule; describe that.
		in := map[int]bool{}
		for _, f := range c.facts {
			in[f] = true
		}
		v = r.check(s.settings(func(f int) bool { return in[f] }))
	}
	if v == nil {
		return model.Diagnostic{Code: model.CodeSlimeFlag, Severity: model.SeverityError, Summary: "conflict in " + r.name, Primary: s.cfg.Span}
	}
	d := model.Diagnostic{Code: v.code, Severity: model.SeverityError, Summary: v.summary, Why: v.why}
	facts := append([]int(nil), c.facts...)
	sort.SliceStable(facts, func(i, j int) bool {
		a, b := s.facts[facts[i]].Span, s.facts[facts[j]].Span
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	primary := -1
	for _, k := range v.primary {
		if f := s.factOf[k]; f >= 0 && containsInt(facts, f) {
			primary = f
			break
		}
	}
	var at model.Span
	atLabel := v.absent
	if primary < 0 && v.absent != "" && len(v.primary) > 0 {
		// The flag the fix changes is wrong whatever it is set to, so it
		// is not in the minimal set; point at it, or where it would go.
		switch cv := s.cfg.Values[v.primary[0]]; {
		case cv.Set:
			at, atLabel = cv.Span, v.label
		case s.cfg.Appendable:
			at = s.cfg.End
		default:
			at = s.cfg.Span
		}
	} else if primary < 0 && len(facts) > 0 {
		primary = facts[len(facts)-1]
	}
	role := func(f int) string {
		if msg, ok := v.roles[s.keyOf[f]]; ok {
			return msg
		}
		return s.facts[f].What
	}
	switch {
	case at.Known():
		d.Primary, d.PrimaryLabel = at, atLabel
	case primary >= 0:
		d.Primary = s.facts[primary].Span
		d.PrimaryLabel = v.label
		if !containsKey(v.primary, s.keyOf[primary]) {
			d.PrimaryLabel = role(primary)
		}
	default:
		d.Primary = s.cfg.Span
		d.PrimaryLabel = v.label + " (with the defaults)"
	}
	for _, f := range facts {
		if f != primary {
			d.Labels = append(d.Labels, model.Label{Span: s.facts[f].Span, Message: role(f)})
		}
	}
	d.Labels = append(d.Labels, v.extra...)
	if len(facts) >= 2 && d.Why == "" {
		d.Why = fmt.Sprintf("These %d flags cannot all hold; dropping any one of them removes this conflict.", len(facts))
	}
	if !opt.NoFixes {
		d.Help = s.verifiedFixes(v, found, opt, deadline)
	}
	return d
}

// verifiedFixes keeps up to three fixes whose edited flags no longer have
// this conflict and have fewer conflicts than before.
func (s *slimeSession) verifiedFixes(v *slimeViolation, found int, opt Options, deadline time.Time) []model.Fix {
	var out []model.Fix
	for _, f := range v.fixes {
		if len(out) == 3 || time.Until(deadline) <= 0 {
			break
		}
		edited := *s.cfg
		fix, ok := s.applyFix(&edited, f)
		if !ok {
			continue
		}
		res, err := CheckSlime(&edited, s.t, Options{MaxConflicts: opt.MaxConflicts, Budget: time.Until(deadline), NoFixes: true})
		if err != nil {
			continue
		}
		gone := true
		for _, nd := range res.Diagnostics {
			if nd.Code == v.code {
				gone = false
			}
		}
		if gone && len(res.Diagnostics) < found {
			out = append(out, fix)
		}
	}
	return out
}

// applyFix edits cfg and returns the fix as the user would make it.
func (s *slimeSession) applyFix(cfg *model.SlimeConfig, f slimeFix) (model.Fix, bool) {
	info := f.key.Info()
	old := cfg.Values[f.key]
	yaml := !cfg.Appendable
	if f.remove {
		if !old.Set {
			return model.Fix{}, false
		}
		cfg.Values[f.key] = model.SlimeValue{}
		if yaml && info.Bool {
			return model.Fix{Message: fmt.Sprintf("set `%s: false`", info.Key), Edits: []model.Edit{{Span: old.ValueSpan, NewText: "false"}}}, true
		}
		if yaml {
			return model.Fix{Message: fmt.Sprintf("remove `%s`", old.Text)}, true
		}
		return model.Fix{Message: fmt.Sprintf("drop `%s`", old.Text), Edits: []model.Edit{{Span: old.Span, NewText: ""}}}, true
	}
	if old.Set && old.Value == f.value {
		return model.Fix{}, false
	}
	cfg.Values[f.key] = model.SlimeValue{Set: true, Value: f.value, Span: old.Span, ValueSpan: old.ValueSpan}
	text := strconv.Itoa(f.value)
	switch {
	case old.Set && yaml:
		return model.Fix{Message: fmt.Sprintf("use `%s: %d`", info.Key, f.value), Edits: []model.Edit{{Span: old.ValueSpan, NewText: text}}}, true
	case old.Set:
		return model.Fix{Message: fmt.Sprintf("use `%s %d`", info.Flag, f.value), Edits: []model.Edit{{Span: old.ValueSpan, NewText: text}}}, true
	case yaml:
		return model.Fix{Message: fmt.Sprintf("add `%s: %d` under slime:", info.Key, f.value)}, true
	}
	return model.Fix{Message: fmt.Sprintf("add `%s %d`", info.Flag, f.value),
		Edits: []model.Edit{{Span: s.cfg.End, NewText: fmt.Sprintf(" %s %d", info.Flag, f.value)}}}, true
}

func containsKey(ks []model.SlimeKey, k model.SlimeKey) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
