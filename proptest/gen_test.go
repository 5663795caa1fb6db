package proptest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/rlsolve/rlsolve/model"
)

// Generators of random configs. A case is a ptSpec: a plain structure of
// small integers built with gen.Struct and slices, so that gopter shrinks it
// field by field (fewer nodes, groups, parts; each choice towards index 0,
// the simplest). ptRender turns a spec into YAML text and an inventory; it
// accepts any spec, so every shrunk spec is still a config. Every choice is
// an index into a table whose first entry is the plain, valid one, and
// whose later entries are the near misses that make configs invalid.

// ptNode is one inventory node.
type ptNode struct{ GPUs int }

// ptVar is one env var: a key from a pool of three. A key the group
// already sets moves on to a free one unless Dup is 3 (a duplicate).
type ptVar struct{ Key, Dup int }

// ptEnv is one env_configs entry: a window of the group's nodes that
// starts after the previous entry's (Gap indexes ptGaps: a negative gap
// makes two entries share a node).
type ptEnv struct {
	Gap, Len int
	Vars     []ptVar
}

// ptGroup is one node group.
type ptGroup struct {
	Label   int // index into ptLabels (a used label moves on to a free one...)
	Dup     int // ...unless Dup is 5: then two groups share a label
	Lo, Len int // node_ranks window; Len 7 may run past the last node
	All     bool
	Envs    []ptEnv
	HW      int   // 3: Franka robots, 4: ignore_hardware, else plain
	Robots  []int // the Franka robots (node offsets in the group)
}

// ptPart is one placement part `a-b[:c-d]` (or `all`).
type ptPart struct {
	All    int // 11: `all` (first part only)
	Gap    int // index into ptGaps: where it starts after the previous part
	Width  int // resources; 23 overflows what is left
	Proc   int // index into ptProcs
	PShift int // index into ptShifts: where its process ranks start
}

// ptComp is one component_placement entry.
type ptComp struct {
	Name  int // index into ptNames
	Twin  int // 5: the key names two components ("a,b")
	Parts []ptPart
	NG    int // index into the node_group choices (see ptRender)
	NGRef int // which group the choice refers to
}

// ptMP is the model-parallel part of a spec.
type ptMP struct {
	Layout        int // index into ptLayouts: 0 collocated, 1 disaggregated, 2 disaggregated with inference, 3 random
	ASize, RSize  int // indices into ptFrac
	ISize         int
	Reward        int // 0 rollout's GPUs, 1 all, 2 actor's, 3 GPU 0
	Shift         int // index into ptShifts, applied to rollout's start
	ATP, RTP, ITP int // index into ptTPs (0: unset)
	Recompute     int // 0 unset, 1 true, 2 false
	Auto          int // 9: cluster.auto_scheduler: true
	NG            int // 5: actor names node_group: the first group
	Extra         int // 1: also place the first hybrid component
}

// ptSpec is one generated case.
type ptSpec struct {
	Nodes  []ptNode
	Groups []ptGroup
	Comps  []ptComp
	MP     bool
	M      ptMP
}

var (
	ptGPUs    = []int{4, 8, 2, 0, 1, 3, 4, 8, 6}
	ptLabels  = []string{"gpu", "arm", "cpu", "a800"}
	ptNear    = []string{"gpux", "Arm", "cpus", "a80"} // near misses of ptLabels
	ptKeys    = []string{"NCCL_SOCKET_IFNAME", "HF_HOME", "MY_FLAG"}
	ptNames   = []string{"actor", "rollout", "env", "agent", "reward"}
	ptGaps    = []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, -1}
	ptShifts  = []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1}
	ptProcs   = []int{0, 0, 0, 0, 1, 1, 2, 3, 5, 4} // process modes (see ptPlacement)
	ptTPs     = []int{0, 1, 2, 1, 2, 4, 3}
	ptFrac    = []int{8, 4, 4, 2, 6, 1} // eighths of the cluster's GPUs
	ptLayouts = []int{0, 1, 2, 0, 1, 2, 3}
	ptNGTable = []string{"", "", "", "", "", "", "", "", "", "", "group", "group", "node", "cluster", "two", "near", "mixed"}
)

// ptSlice is a slice of lo..hi elements that shrinks by dropping elements
// (not below lo) and by shrinking each one.
func ptSlice(lo, hi int, elem gopter.Gen, t reflect.Type) gopter.Gen {
	g := gen.SliceOf(elem, t)
	return func(p *gopter.GenParameters) *gopter.GenResult {
		q := *p
		q.MinSize, q.MaxSize = lo, hi+1
		r := g(&q)
		r.Sieve = func(v any) bool { return reflect.ValueOf(v).Len() >= lo }
		return r
	}
}

func ptGenNode() gopter.Gen {
	return gen.Struct(reflect.TypeOf(ptNode{}), map[string]gopter.Gen{"GPUs": gen.IntRange(0, len(ptGPUs)-1)})
}

func ptGenGroup() gopter.Gen {
	v := gen.Struct(reflect.TypeOf(ptVar{}), map[string]gopter.Gen{"Key": gen.IntRange(0, 2), "Dup": gen.IntRange(0, 3)})
	env := gen.Struct(reflect.TypeOf(ptEnv{}), map[string]gopter.Gen{
		"Gap": gen.IntRange(0, len(ptGaps)-1), "Len": gen.IntRange(0, 2), "Vars": ptSlice(0, 2, v, reflect.TypeOf(ptVar{})),
	})
	return gen.Struct(reflect.TypeOf(ptGroup{}), map[string]gopter.Gen{
		"Label":  gen.IntRange(0, len(ptLabels)-1),
		"Dup":    gen.IntRange(0, 5),
		"Lo":     gen.IntRange(0, 3),
		"Len":    gen.IntRange(0, 7),
		"All":    gen.Bool(),
		"Envs":   ptSlice(0, 2, env, reflect.TypeOf(ptEnv{})),
		"HW":     gen.IntRange(0, 4),
		"Robots": ptSlice(1, 2, gen.IntRange(0, 3), reflect.TypeOf(0)),
	})
}

func ptGenComp() gopter.Gen {
	part := gen.Struct(reflect.TypeOf(ptPart{}), map[string]gopter.Gen{
		"All": gen.IntRange(0, 11), "Gap": gen.IntRange(0, len(ptGaps)-1), "Width": gen.IntRange(0, 23),
		"Proc": gen.IntRange(0, len(ptProcs)-1), "PShift": gen.IntRange(0, len(ptShifts)-1),
	})
	return gen.Struct(reflect.TypeOf(ptComp{}), map[string]gopter.Gen{
		"Name":  gen.IntRange(0, len(ptNames)-1),
		"Twin":  gen.IntRange(0, 5),
		"Parts": ptSlice(1, 3, part, reflect.TypeOf(ptPart{})),
		"NG":    gen.IntRange(0, len(ptNGTable)-1),
		"NGRef": gen.IntRange(0, 3),
	})
}

func ptGenMP() gopter.Gen {
	return gen.Struct(reflect.TypeOf(ptMP{}), map[string]gopter.Gen{
		"Layout": gen.IntRange(0, len(ptLayouts)-1), "ASize": gen.IntRange(0, len(ptFrac)-1), "RSize": gen.IntRange(0, len(ptFrac)-1), "ISize": gen.IntRange(0, len(ptFrac)-1),
		"Reward": gen.IntRange(0, 3), "Shift": gen.IntRange(0, len(ptShifts)-1),
		"ATP": gen.IntRange(0, len(ptTPs)-1), "RTP": gen.IntRange(0, len(ptTPs)-1), "ITP": gen.IntRange(0, len(ptTPs)-1),
		"Recompute": gen.IntRange(0, 2), "Auto": gen.IntRange(0, 9), "NG": gen.IntRange(0, 7), "Extra": gen.IntRange(0, 1),
	})
}

// ptGenSpec generates hybrid configs (mp false) or model-parallel ones.
func ptGenSpec(mp bool) gopter.Gen {
	return gen.Struct(reflect.TypeOf(ptSpec{}), map[string]gopter.Gen{
		"Nodes":  ptSlice(1, 4, ptGenNode(), reflect.TypeOf(ptNode{})),
		"Groups": ptSlice(0, 2, ptGenGroup(), reflect.TypeOf(ptGroup{})),
		"Comps":  ptSlice(1, 3, ptGenComp(), reflect.TypeOf(ptComp{})),
		"MP":     gen.Const(mp),
		"M":      ptGenMP(),
	})
}

// ptGenAny mixes hybrid (3 in 5) and model-parallel configs.
func ptGenAny() gopter.Gen {
	h, m := ptGenSpec(false), ptGenSpec(true)
	return func(p *gopter.GenParameters) *gopter.GenResult {
		if p.Rng.Intn(5) < 3 {
			return h(p)
		}
		return m(p)
	}
}

// ptCase is a rendered spec.
type ptCase struct {
	YAML string
	Inv  *model.Inventory
	Mode model.PlacementClass
}

// ptGroupInfo is what rendering knows about a group, to size placements.
type ptGroupInfo struct {
	label string
	nodes []int
	total int // resources: GPUs, robots, or nodes when it has no type
}

func ptRange(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

// ptRender turns a spec into a config and an inventory.
func ptRender(s ptSpec) ptCase {
	n := max(len(s.Nodes), 1)
	gpus := make([]int, n)
	inv := &model.Inventory{Source: "proptest", Nodes: make([]model.Node, n)}
	total := 0
	for i := range gpus {
		if i < len(s.Nodes) {
			gpus[i] = ptGPUs[ptMod(s.Nodes[i].GPUs, len(ptGPUs))]
		}
		total += gpus[i]
		inv.Nodes[i] = model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: gpus[i]}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n", n)
	if s.MP && s.M.Auto == 9 {
		b.WriteString("  auto_scheduler: true\n")
	}
	var groups []ptGroupInfo
	if len(s.Groups) > 0 {
		b.WriteString("  node_groups:\n")
	}
	usedLabel := map[string]bool{}
	for gi, g := range s.Groups {
		li := ptMod(g.Label, len(ptLabels))
		for k := 0; k < len(ptLabels) && usedLabel[ptLabels[li]] && g.Dup != 5; k++ {
			li = (li + 1) % len(ptLabels)
		}
		label := ptLabels[li]
		usedLabel[label] = true
		lo := ptMod(g.Lo, n)
		hi := min(lo+g.Len%3, n-1)
		if g.Len == 7 {
			hi = lo + 3 // may run past the last node
		}
		text := ptRange(lo, hi)
		if g.All {
			lo, hi, text = 0, n-1, "all"
		}
		var nodes []int
		for r := lo; r <= min(hi, n-1); r++ {
			nodes = append(nodes, r)
		}
		fmt.Fprintf(&b, "    - label: %q\n      node_ranks: %q\n", label, text)
		info := ptGroupInfo{label: label, nodes: nodes}
		usedKey := map[string]bool{}
		cursor := 0
		var envs strings.Builder
		for _, e := range g.Envs {
			a := max(cursor+ptGaps[ptMod(e.Gap, len(ptGaps))], 0)
			z := min(a+e.Len, len(nodes)-1)
			if a >= len(nodes) {
				break
			}
			cursor = z + 1
			fmt.Fprintf(&envs, "        - node_ranks: %q\n", ptRange(nodes[a], nodes[z]))
			var vars strings.Builder
			for vi, v := range e.Vars {
				ki := ptMod(v.Key, len(ptKeys))
				for k := 0; k < len(ptKeys) && usedKey[ptKeys[ki]] && v.Dup != 3; k++ {
					ki = (ki + 1) % len(ptKeys)
				}
				if usedKey[ptKeys[ki]] && v.Dup != 3 {
					continue
				}
				usedKey[ptKeys[ki]] = true
				fmt.Fprintf(&vars, "            - %s: \"v%d\"\n", ptKeys[ki], vi)
			}
			if vars.Len() > 0 {
				envs.WriteString("          env_vars:\n")
				envs.WriteString(vars.String())
			}
		}
		if envs.Len() > 0 {
			b.WriteString("      env_configs:\n")
			b.WriteString(envs.String())
		}
		switch {
		case g.HW == 3 && len(g.Robots) > 0:
			b.WriteString("      hardware:\n        type: Franka\n        configs:\n")
			for k, r := range g.Robots {
				fmt.Fprintf(&b, "          - node_rank: %d\n            robot_ip: \"10.0.%d.%d\"\n", nodes[ptMod(r, len(nodes))], gi, k)
			}
			info.total = len(g.Robots)
		case g.HW == 4:
			b.WriteString("      ignore_hardware: true\n")
			info.total = len(nodes)
		default:
			for _, r := range nodes {
				info.total += gpus[r]
			}
			if info.total == 0 {
				info.total = len(nodes)
			}
		}
		groups = append(groups, info)
	}
	b.WriteString("  component_placement:\n")
	used := map[string]bool{}
	pick := func(i int) string {
		for k := 0; k < len(ptNames); k++ {
			nm := ptNames[ptMod(i+k, len(ptNames))]
			if !used[nm] && (!s.MP || !ptIsMP(nm)) {
				used[nm] = true
				return nm
			}
		}
		return ""
	}
	comps := s.Comps
	var mpSizes [3]int
	if s.MP {
		comps = nil
		if s.M.Extra == 1 && len(s.Comps) > 0 {
			comps = s.Comps[:1]
		}
		mpSizes = ptRenderMP(&b, s, total, groups)
	}
	for _, c := range comps {
		name := pick(c.Name)
		if name == "" {
			continue
		}
		if c.Twin == 5 {
			if other := pick(c.Name + 1); other != "" {
				name += "," + other
			}
		}
		ng, capacity := ptNodeGroup(c, groups, total, n)
		placement := ptPlacement(c.Parts, capacity)
		if ng == "" {
			fmt.Fprintf(&b, "    %q: %q\n", name, placement)
		} else {
			fmt.Fprintf(&b, "    %q: {node_group: %q, placement: %q}\n", name, ng, placement)
		}
	}
	mode := model.ClassHybrid
	if s.MP {
		mode = model.ClassModelParallel
		ptRenderMPKeys(&b, s.M, mpSizes)
	}
	return ptCase{YAML: b.String(), Inv: inv, Mode: mode}
}

func ptIsMP(name string) bool { return name == "actor" || name == "rollout" || name == "reward" }

func ptMod(x, n int) int {
	if n <= 0 {
		return 0
	}
	return ((x % n) + n) % n
}

// ptNodeGroup is a component's node_group value and the resources it
// selects (as far as rendering can tell).
func ptNodeGroup(c ptComp, groups []ptGroupInfo, total, n int) (string, int) {
	clusterCap := total
	if clusterCap == 0 {
		clusterCap = n // a CPU-only cluster counts nodes
	}
	choice := ptNGTable[ptMod(c.NG, len(ptNGTable))]
	if len(groups) == 0 && choice != "node" && choice != "cluster" {
		choice = ""
	}
	switch choice {
	case "group":
		g := groups[ptMod(c.NGRef, len(groups))]
		return g.label, g.total
	case "near":
		g := groups[ptMod(c.NGRef, len(groups))]
		for i, l := range ptLabels {
			if l == g.label {
				return ptNear[i], g.total
			}
		}
	case "node":
		return "node", n
	case "cluster":
		return "cluster", clusterCap
	case "two":
		a, z := groups[ptMod(c.NGRef, len(groups))], groups[ptMod(c.NGRef+1, len(groups))]
		return a.label + "," + z.label, a.total + z.total
	case "mixed":
		g := groups[ptMod(c.NGRef, len(groups))]
		return g.label + ",node", g.total + n
	}
	return "", clusterCap
}

// ptPlacement builds parts that mostly fit capacity resources: each part
// starts where the previous one ended (plus a gap from ptGaps) and takes a
// share of what is left; the process modes are implicit, one per
// resource, two per resource, one for all, one too many (often not
// divisible), one per two resources.
func ptPlacement(parts []ptPart, capacity int) string {
	var out []string
	cursor, lastProc := 0, -1
	for i, p := range parts {
		left := len(parts) - i
		var res string
		var start, end int
		if p.All == 11 && i == 0 {
			res, start, end = "all", 0, max(capacity, 1)-1
		} else {
			start = cursor
			if len(out) > 0 {
				start = max(cursor+ptGaps[ptMod(p.Gap, len(ptGaps))], 0)
			}
			maxW := max(1, (capacity-cursor)/left)
			w := 1 + ptMod(p.Width, maxW)
			if p.Width == 23 {
				w = maxW + 1 // past what is left
			} else if start+w > capacity {
				if start >= capacity && len(out) > 0 {
					continue // nothing left for this part
				}
				w = max(capacity-start, 1)
			}
			end = start + w - 1
			res = ptRange(start, end)
		}
		nres := end - start + 1
		shift := ptShifts[ptMod(p.PShift, len(ptShifts))]
		ps := max(lastProc+1+shift, 0)
		np := 0
		switch ptProcs[ptMod(p.Proc, len(ptProcs))] {
		case 1:
			np = nres
		case 2:
			np = 2 * nres
		case 3:
			np = 1
		case 4:
			np = nres + 1
		case 5:
			np = nres
			if nres%2 == 0 {
				np = nres / 2
			}
		}
		if np == 0 {
			out = append(out, res)
			lastProc += nres
		} else {
			out = append(out, res+":"+ptRange(ps, ps+np-1))
			lastProc = ps + np - 1
		}
		cursor = end + 1
	}
	return strings.Join(out, ",")
}

// ptRenderMP writes actor, rollout, reward (and inference) placements
// that are collocated, disaggregated or random, sized to the cluster.
func ptRenderMP(b *strings.Builder, s ptSpec, total int, groups []ptGroupInfo) (sizes [3]int) {
	m := s.M
	t := max(total, 1)
	size := func(i int) int { return max(t*ptFrac[ptMod(i, len(ptFrac))]/8, 1) }
	a := size(m.ASize)
	shift := ptShifts[ptMod(m.Shift, len(ptShifts))]
	type rng struct{ lo, hi int }
	var actor, rollout rng
	var infer *rng
	layout := ptLayouts[ptMod(m.Layout, len(ptLayouts))]
	if t <= 1 {
		layout = 0 // one GPU can only be shared
	}
	switch layout {
	case 0:
		actor = rng{0, a - 1}
		rollout = rng{max(shift, 0), a - 1 + shift}
	case 1, 2:
		if a >= t && t > 1 {
			a = t / 2
		}
		actor = rng{0, a - 1}
		r := max(min(size(m.RSize), t-a), 1)
		rollout = rng{max(a+shift, 0), a + r - 1 + shift}
		if layout == 2 && a+r >= t && r > 1 {
			r--
			rollout.hi--
		}
		if layout == 2 && a+r < t {
			i := max(min(size(m.ISize), t-a-r), 1)
			infer = &rng{a + r, a + r + i - 1}
		}
		if m.Auto == 9 { // AUTO wants the last component to end at the last GPU
			if infer != nil {
				infer.hi = max(infer.hi, t-1)
			} else {
				rollout.hi = max(rollout.hi, t-1)
			}
		}
	default:
		lo := m.RSize % t
		actor = rng{lo, lo + a - 1}
		lo = m.ISize % t
		rollout = rng{lo, min(lo+size(m.RSize), t) - 1}
	}
	reward := rollout
	switch m.Reward {
	case 1:
		reward = rng{0, t - 1}
	case 2:
		reward = actor
	case 3:
		reward = rng{0, 0}
	}
	if m.NG == 5 && len(groups) > 0 {
		fmt.Fprintf(b, "    actor: {node_group: %q, placement: %q}\n", groups[0].label, ptRange(actor.lo, actor.hi))
	} else {
		fmt.Fprintf(b, "    actor: %q\n", ptRange(actor.lo, actor.hi))
	}
	fmt.Fprintf(b, "    rollout: %q\n", ptRange(rollout.lo, rollout.hi))
	if infer != nil {
		fmt.Fprintf(b, "    inference: %q\n", ptRange(infer.lo, infer.hi))
	}
	fmt.Fprintf(b, "    reward: %q\n", ptRange(reward.lo, reward.hi))
	sizes = [3]int{actor.hi - actor.lo + 1, rollout.hi - rollout.lo + 1, 0}
	if infer != nil {
		sizes[2] = infer.hi - infer.lo + 1
	}
	return sizes
}

// ptRenderMPKeys writes the TP sizes and recompute_logprobs. A TP size
// of 1, 2 or 4 is lowered to fit its component's GPUs (sizes: actor,
// rollout, inference); 3 is kept, to make TP rules fail.
func ptRenderMPKeys(b *strings.Builder, m ptMP, sizes [3]int) {
	tp := func(i, size int) int {
		t := ptTPs[ptMod(i, len(ptTPs))]
		for t != 3 && t > 1 && t > size {
			t /= 2
		}
		return t
	}
	if t := tp(m.ATP, sizes[0]); t > 0 {
		fmt.Fprintf(b, "actor:\n  model:\n    tensor_model_parallel_size: %d\n", t)
	}
	if t := tp(m.RTP, sizes[1]); t > 0 {
		fmt.Fprintf(b, "rollout:\n  tensor_parallel_size: %d\n", t)
	}
	if t := tp(m.ITP, max(sizes[2], 1)); t > 0 {
		fmt.Fprintf(b, "inference:\n  model:\n    tensor_model_parallel_size: %d\n", t)
	}
	switch m.Recompute {
	case 1:
		b.WriteString("algorithm:\n  recompute_logprobs: true\n")
	case 2:
		b.WriteString("algorithm:\n  recompute_logprobs: false\n")
	}
}

// ptInjections are known-invalid additions for the independence property:
// each touches its own component or group of ptIndependentBase and is
// reported with its own code.
var ptInjections = []struct {
	code  string
	comps string // lines under component_placement
	group string // a node_groups entry (or extra env_configs of group gpu)
	env   string // extra env_configs entries of group gpu
}{
	{code: model.CodeRankOutOfRange, comps: "    c_oor: \"0-8\"\n"},
	{code: model.CodeEnvVarDuplicated, env: "        - node_ranks: \"1\"\n          env_vars:\n            - HF_HOME: \"/b\"\n"},
	{code: model.CodeResourceOrder, comps: "    c_order: \"4-5,0-1\"\n"},
	{code: model.CodeUnknownGroup, comps: "    c_unknown: {node_group: \"gpux\", placement: \"0\"}\n"},
	{code: model.CodeNotDivisible, comps: "    c_div: \"0-2:0-1\"\n"},
	{code: model.CodeDuplicateLabel, group: "    - label: \"dup\"\n      node_ranks: \"0\"\n    - label: \"dup\"\n      node_ranks: \"1\"\n"},
	{code: model.CodeProcessOrder, comps: "    c_porder: \"0-1:0-1,2-3:3-4\"\n"},
	{code: model.CodeSpansNodes, comps: "    c_span: \"2-5:0\"\n"},
}

// ptIndependent renders the base config (2 nodes x 4 GPUs, valid) with the
// injections picked by picks (each pick chooses among those left, so they
// are distinct); it returns the YAML and the codes expected.
func ptIndependent(picks []int) (string, []string) {
	left := make([]int, len(ptInjections))
	for i := range left {
		left[i] = i
	}
	var comps, groups, env strings.Builder
	var codes []string
	for _, p := range picks {
		if len(left) == 0 {
			break
		}
		k := ptMod(p, len(left))
		inj := ptInjections[left[k]]
		left = append(left[:k], left[k+1:]...)
		comps.WriteString(inj.comps)
		groups.WriteString(inj.group)
		env.WriteString(inj.env)
		codes = append(codes, inj.code)
	}
	y := "cluster:\n  num_nodes: 2\n  node_groups:\n" +
		"    - label: \"gpu\"\n      node_ranks: \"0-1\"\n      env_configs:\n" +
		"        - node_ranks: \"0\"\n          env_vars:\n            - HF_HOME: \"/a\"\n" + env.String() +
		groups.String() +
		"  component_placement:\n    actor: \"0-3\"\n    rollout: {node_group: \"gpu\", placement: \"4-7\"}\n" + comps.String()
	return y, codes
}
