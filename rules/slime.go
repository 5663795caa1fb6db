package rules

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// slime's rules (../shared/spec/slime.md) as RLinf's are: each given flag
// is a fact whose absence puts the flag back to its default; each rule is
// a predicate over the flags it reads, evaluated on the inventory's stable
// order. A conflict is then a minimal set of flags: with those flags as
// given, whatever the others are, the rule fails, and dropping any one of
// them lets it hold.

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
	code  string
	keys  []model.SlimeKey
	check func(s model.SlimeSettings) *slimeViolation
}

type slimeSession struct {
	cfg *model.SlimeConfig
	t   *model.SlimeTopology
	opt SlimeOptions
	// maxBundles bounds the placement group rlsolve expands.
	maxBundles int
	set        *Set
	factOf     [model.SlimeNumKeys]int
	keyOf      []model.SlimeKey
}

// SlimeOptions bound a slime rule set and add its memory rule.
type SlimeOptions struct {
	// MaxBundles refuses a layout of more GPUs before it is expanded (0:
	// 4M).
	MaxBundles int
	// Memory, when set, adds the GPU memory rule (NewMemory).
	Memory *Memory
}

// Slime is the rule set of a slime layout on the stable order t.
func Slime(cfg *model.SlimeConfig, t *model.SlimeTopology, opt SlimeOptions) *Set {
	maxBundles := opt.MaxBundles
	if maxBundles <= 0 {
		maxBundles = 4 << 20
	}
	s := &slimeSession{cfg: cfg, t: t, opt: opt, maxBundles: maxBundles, set: &Set{Anchor: cfg.Span, Noun: "flags"}}
	for k := range model.SlimeNumKeys {
		s.factOf[k] = -1
		if v := cfg.Values[k]; v.Set {
			s.factOf[k] = s.set.add(Fact{Kind: FactSetting, Span: v.Span, What: v.Text, Name: k.Info().Key})
			s.keyOf = append(s.keyOf, k)
		}
	}
	for _, r := range s.slimeRules() {
		var reads []int
		for _, k := range r.keys {
			if f := s.factOf[k]; f >= 0 {
				reads = append(reads, f)
			}
		}
		r := r
		s.set.Rules = append(s.set.Rules, &Instance{Rule: &Rule{Name: r.name, Codes: []string{r.code}}, Name: r.name, Reads: reads,
			Check: func(p Present) *Violation { return s.violation(r.check(s.settings(p))) }})
	}
	if opt.Memory != nil {
		s.memoryRules()
	}
	return s.set
}

func (s *slimeSession) settings(p Present) model.SlimeSettings {
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
		{name: "the rollout's GPUs are given", code: model.CodeSlimeMissing, keys: slimeLayoutKeys, check: s.missing},
		{name: "layout within limits", code: model.CodeProcessLimit, keys: slimeLayoutKeys, check: s.limit},
		{name: "one debug mode", code: model.CodeSlimeModes, keys: []model.SlimeKey{model.SlimeTrainOnly, model.SlimeRolloutOnly}, check: s.modes},
		{name: "placement group fits", code: model.CodeSlimeFit, keys: slimeLayoutKeys, check: s.fit},
		{name: "engines divide the rollout", code: model.CodeSlimeEngineDivides, keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine), check: s.divides},
		{name: "one source of engines", code: model.CodeSlimeGroups, keys: []model.SlimeKey{model.SlimeRolloutExternal, model.SlimePrefillServers, model.SlimeSGLangConfig}, check: s.sources},
		{name: "decode GPUs remain", code: model.CodeSlimeGroups, keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine, model.SlimePrefillServers), check: s.prefill},
		{name: "node size", code: model.CodeSlimeNodeSize, keys: withKeys(slimeLayoutKeys, model.SlimeNumGPUsPerNode, model.SlimeRolloutGPUsPerEngine), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.nodeSize(x)
		}},
		{name: "engines on one node or whole nodes", code: model.CodeSlimeStraddle, keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.straddle(x)
		}},
		{name: "ports below the ephemeral range", code: model.CodeSlimePortRange, keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine, model.SlimeDPSize, model.SlimeNumGPUsPerNode, model.SlimePrefillServers), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.portRange(x)
		}},
		{name: "port blocks disjoint", code: model.CodeSlimePortOverlap, keys: withKeys(slimeLayoutKeys, model.SlimeRolloutGPUsPerEngine, model.SlimeDPSize, model.SlimeNumGPUsPerNode, model.SlimePrefillServers), check: func(x model.SlimeSettings) *slimeViolation {
			if !fits(x) || !divides(x) {
				return nil
			}
			return s.portOverlap(x)
		}},
	}
}

func (s *slimeSession) missing(x model.SlimeSettings) *slimeViolation {
	if !x.RolloutMissing() {
		return nil
	}
	why := "slime has no default for the rollout's GPUs unless actor and rollout are colocated (then it is the actor's)."
	if n := len(s.cfg.Unexpanded); n > 0 {
		why += fmt.Sprintf(" The script never sets `%s` (RLS-W0704): --rollout-num-gpus, --colocate or --debug-train-only may be in it.",
			strings.Join(s.cfg.Unexpanded[:min(n, 3)], "`, `"))
	}
	return &slimeViolation{code: model.CodeSlimeMissing,
		summary: fmt.Sprintf("--rollout-num-gpus is required in %s mode", x.Mode()),
		why:     why,
		primary: []model.SlimeKey{model.SlimeRolloutOnly}, label: "the rollout needs a GPU count",
		roles: s.roles(x),
		fixes: []slimeFix{{key: model.SlimeRolloutNumGPUs, value: max(x.GPUsPerEngine, 1)}}}
}

func (s *slimeSession) limit(x model.SlimeSettings) *slimeViolation {
	total, _ := x.Bundles()
	if total <= s.maxBundles {
		return nil
	}
	return &slimeViolation{code: model.CodeProcessLimit,
		summary: fmt.Sprintf("the layout needs %d GPUs; rlsolve plans at most %d", total, s.maxBundles),
		primary: []model.SlimeKey{model.SlimeRolloutNumGPUs, model.SlimeActorNumNodes, model.SlimeActorGPUsPerNode},
		label:   "too many GPUs", roles: s.roles(x)}
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

// violation turns a slime rule's finding into the common form: roles by
// fact, the flags to point at in order of preference, and where to point
// when none of them is in the conflict.
func (s *slimeSession) violation(v *slimeViolation) *Violation {
	if v == nil {
		return nil
	}
	out := &Violation{Code: v.code, Summary: v.summary, Why: v.why, Primary: -1, Label: v.label,
		AnchorLabel: v.label + " (with the defaults)", Roles: map[int]string{}, Extra: v.extra}
	for k, msg := range v.roles {
		if f := s.factOf[k]; f >= 0 {
			out.Roles[f] = msg
		}
	}
	for _, k := range v.primary {
		if f := s.factOf[k]; f >= 0 {
			out.Prefer = append(out.Prefer, f)
		}
	}
	if v.absent != "" && len(v.primary) > 0 {
		// The flag the fix changes is wrong whatever it is set to, so it
		// is not in the minimal set; point at it, or where it would go.
		out.Else, out.ElseLabel = s.cfg.Span, v.absent
		switch cv := s.cfg.Values[v.primary[0]]; {
		case cv.Set:
			out.Else, out.ElseLabel = cv.Span, v.label
		case s.cfg.Appendable:
			out.Else = s.cfg.End
		}
	}
	for _, f := range v.fixes {
		f := f
		out.Fixes = append(out.Fixes, func() (model.Fix, *Set, bool) {
			edited := *s.cfg
			edited.Flags = maps.Clone(s.cfg.Flags)
			fix, ok := s.applyFix(&edited, f)
			if !ok {
				return model.Fix{}, nil, false
			}
			return fix, Slime(&edited, s.t, s.opt), true
		})
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
		for _, name := range flagNames(info) {
			delete(cfg.Flags, name)
		}
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
	for _, name := range flagNames(info)[1:] {
		delete(cfg.Flags, name)
	}
	cfg.SetFlag(flagNames(info)[0], text, old.Span)
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
