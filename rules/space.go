package rules

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Space is what solve places: the components that state requirements, as
// demands over the cluster's devices, the devices placed components
// already hold, and the facts a conflict is made of. It says what RLinf's
// rules demand of a placement (one node per process, whole engines on one
// node, collocated or disjoint GPUs); the solver decides where.
type Space struct {
	Class model.PlacementClass
	// Facts are the selectors of a conflict: requirement keys, node
	// groups, placed components and excluded nodes.
	Facts []Fact
	// Demands are the requirement entries, in file order.
	Demands []*Demand
	// Auto is AUTO mode's order, when the config asks for it (nil: none).
	Auto *AutoOrder
	// Taken maps a device a placed component holds to its fact.
	Taken map[Device]int
	// Down maps an excluded node to its fact.
	Down map[int]int
	// Unfit maps, per demand, the nodes whose GPUs cannot hold it to the
	// fact of its memory need (GPU memory known only).
	Unfit map[int]map[int]int
	// TypeBlocks lists, per hardware type ("" for nodes), every block of
	// the cluster: a demand whose node group is lifted may use any.
	TypeBlocks map[string][]Block
	// GroupFacts maps a configured group label to its node_ranks fact.
	GroupFacts map[string]int
	// Diagnostics are requirements that cannot be read together
	// (RLS-E1102): nothing is placed while there are any.
	Diagnostics model.Diagnostics

	cfg  *model.Config
	view *model.Cluster
	opt  SpaceOptions
}

// Device is one resource: a device of a type on a node (local index), or
// a node itself for type "".
type Device struct {
	Node  int
	Type  string
	Local int
}

// Block is one node's devices of one type as a demand's node groups list
// them: resource ranks First..First+Cap-1 of the demand's resolver.
type Block struct {
	Node  int
	Type  string
	First int
	Cap   int
	// Local0 is the node-local index of the block's first device: a node
	// whose NVLink islands the inventory knows is one block per island
	// for a demand with TP groups.
	Local0 int
	// Group is the label of the configured group the block comes from.
	Group string
}

// Device is the block's l-th device.
func (b Block) Device(l int) Device { return Device{Node: b.Node, Type: b.Type, Local: b.Local0 + l} }

// Demand is one requirement entry as the solver sees it.
type Demand struct {
	Entry int
	Name  string
	// Labels are the node groups the placement string counts in (none:
	// the default group), and WriteGroup says solve writes them as the
	// entry's node_group (adopted from the component it shares devices
	// with).
	Labels     []string
	WriteGroup bool
	// Type is the devices' hardware type; "" places processes on nodes,
	// which components share freely.
	Type   string
	Blocks []Block
	// Count is the devices (or nodes) wanted; 0 with With: the partner's.
	Count int
	// Whole is the whole nodes wanted (Count is then not used).
	Whole int
	// Unit is what each block's share must be a multiple of: the devices
	// of one process, or of one engine or TP group.
	Unit int
	// Procs is the process count when it is not Count/Unit (0).
	Procs int
	// PerDevice writes one process per device ("0-15"), as model-parallel
	// classes read GPU lists; Global asks for one contiguous range.
	PerDevice, Global bool
	// With is the demand whose devices this one shares (-1: none), or
	// WithPlaced the placed entry it copies (-1: none).
	With, WithPlaced int
	// Apart are demands this one must not share devices with beyond the
	// default (every demand keeps its own devices unless With says).
	Apart []int
	// Facts of the demand: its count key, node_group, with, and its own
	// devices (the requirement mapping); -1 when absent.
	CountFact, GroupFact, WithFact, OwnFact int
	// ApartFacts[j] is the apart_from item naming demand j.
	ApartFacts map[int]int
}

// SpaceOptions are what solve adds to the config: the class, the nodes it
// must not use, and the bounds of one build.
type SpaceOptions struct {
	Class model.PlacementClass
	// Without are node ranks solve must not use (--without-node).
	Without []int
	// Memory, when set, keeps components off GPUs too small for them.
	Memory *Memory
	// Counts are the GPU counts of components whose requirement says
	// `gpus: auto`, as the cost model chose them.
	Counts map[string]int
}

// FactKinds of a requirement's facts.
const (
	FactCount    FactKind = iota + 100 // gpus, processes or nodes (removed: any count)
	FactWith                           // with: (removed: devices of its own)
	FactApart                          // an apart_from item (removed: may share)
	FactOwn                            // a demand's own devices (removed: may share)
	FactPlaced                         // a placed component's devices (removed: free)
	FactExcluded                       // an excluded node (removed: usable)
	FactAuto                           // AUTO mode's order (removed: any order)
)

// BuildSpace is the placing space of a config whose entries may state
// requirements.
func BuildSpace(cfg *model.Config, inv *model.Inventory, opt SpaceOptions) *Space {
	s := &Space{Class: opt.Class, cfg: cfg, opt: opt, Taken: map[Device]int{}, Down: map[int]int{}, Unfit: map[int]map[int]int{}, GroupFacts: map[string]int{}, TypeBlocks: map[string][]Block{}}
	nodes := inv.Nodes
	if cfg.NumNodes > 0 && cfg.NumNodes < len(nodes) {
		nodes = nodes[:cfg.NumNodes]
	}
	s.view = model.NewCluster(&model.Inventory{Nodes: nodes, Source: inv.Source}, cfg)
	s.excluded(opt.Without)
	s.groupFacts()
	s.typeBlocks()
	s.placed()
	index := map[string]int{}
	for ei := range cfg.Components {
		if e := &cfg.Components[ei]; e.Requirement != nil {
			for _, n := range e.Names {
				index[n] = len(s.Demands)
			}
			s.Demands = append(s.Demands, s.demand(ei))
		}
	}
	if len(s.Demands) == 0 {
		s.Diagnostics.Errorf(model.CodeRequirementConflict, cfg.ComponentsSpan, "", "no component states a requirement: there is nothing to solve").Help =
			[]model.Fix{{Message: "give a component what it needs instead of a placement, e.g. `actor: {gpus: 8}`; `rlsolve check` judges placements"}}
	}
	for _, d := range s.Demands {
		s.relations(d, index)
	}
	s.checkWith()
	s.memoryFit(opt.Memory)
	s.mpUnplaced()
	if !s.Diagnostics.HasErrors() {
		s.autoOrder()
	}
	return s
}

func (s *Space) fact(f Fact) int {
	s.Facts = append(s.Facts, f)
	return len(s.Facts) - 1
}

// excluded marks the nodes solve must not use: those the flag names and
// those the inventory reports down.
func (s *Space) excluded(without []int) {
	for _, r := range without {
		if r >= 0 && r < len(s.view.Nodes) {
			s.Down[r] = s.fact(Fact{Kind: FactExcluded, Index: r, What: fmt.Sprintf("node %d is excluded (--without-node %d)", r, r)})
		}
	}
	for i := range s.view.Nodes {
		if n := &s.view.Nodes[i]; n.Down {
			if _, ok := s.Down[i]; !ok {
				s.Down[i] = s.fact(Fact{Kind: FactExcluded, Index: i, Span: n.Span, What: fmt.Sprintf("node %d is down in the inventory", i)})
			}
		}
	}
}

// groupFacts gives each configured group that has nodes its node_ranks
// fact: lifting it lets the group's demands use any node.
func (s *Space) groupFacts() {
	for gi := range s.cfg.NodeGroups {
		g := &s.cfg.NodeGroups[gi]
		cg := s.view.Group(g.Label)
		if cg == nil {
			continue
		}
		s.GroupFacts[g.Label] = s.fact(Fact{Kind: FactGroupRanks, Group: gi, Span: g.RanksSpan,
			What: fmt.Sprintf("node group %s is %s: %d %s", g.Label, nodesText(cg.Nodes), cg.ResourceCount(), model.HardwareUnit(cg.HardwareType))})
	}
}

// typeBlocks lists every node's devices per type, in node order.
func (s *Space) typeBlocks() {
	for _, g := range []string{"cluster", "node"} {
		r, _ := s.view.Resolve([]string{g})
		if r == nil {
			continue
		}
		t := r.Groups[0].HardwareType
		s.TypeBlocks[t] = s.blocks(r)
	}
	seen := map[string]bool{}
	for _, g := range s.view.Groups {
		t := g.HardwareType
		if t == "" || t == model.HardwareAccelerator || seen[t] {
			continue
		}
		seen[t] = true
		for _, n := range s.view.Nodes {
			if c := s.view.Count(n.Rank, t); c > 0 {
				s.TypeBlocks[t] = append(s.TypeBlocks[t], Block{Node: n.Rank, Type: t, Cap: c})
			}
		}
	}
}

// blocks lists a resolver's blocks: each group's nodes in order.
func (s *Space) blocks(r *model.Resolver) []Block {
	var out []Block
	first := 0
	for _, g := range r.Groups {
		for _, n := range g.Nodes {
			c := 1
			if g.HardwareType != "" {
				c = s.view.Count(n, g.HardwareType)
			}
			if c > 0 {
				out = append(out, Block{Node: n, Type: g.HardwareType, First: first, Cap: c, Group: g.Label})
			}
			first += c
		}
	}
	return out
}

// placedOn is the resource ranks placed entry ei holds and the groups
// they are ranks of; r is nil for a requirement, and for a placement that
// does not read (check says what is wrong with it).
func (s *Space) placedOn(ei int) (ranks []int, r *model.Resolver) {
	e := &s.cfg.Components[ei]
	if e.Requirement != nil || e.Invalid || len(e.Segments) == 0 {
		return nil, nil
	}
	r, _ = s.view.Resolve(e.NodeGroups)
	if r == nil || !r.Typed || !inRange(e, r.Total) {
		return nil, nil
	}
	var parts []model.Part
	last := -1
	for si := range e.Segments {
		p := model.ResolvePart(&e.Segments[si], si, r.Total, last)
		parts, last = append(parts, p), p.ProcEnd
	}
	return model.HardwareRanks(parts), r
}

// placedRanks is collocated's view of an entry in the space: a placed
// entry's ranks, nil for a requirement; ok is false for a placement that
// does not read.
func (s *Space) placedRanks(ei int) ([]int, bool) {
	if s.cfg.Components[ei].Requirement != nil {
		return nil, true
	}
	ranks, r := s.placedOn(ei)
	return ranks, r != nil
}

// placed records the devices the placed entries hold: solve gives them to
// no demand but the ones that share them (with).
func (s *Space) placed() {
	for ei := range s.cfg.Components {
		e := &s.cfg.Components[ei]
		ranks, r := s.placedOn(ei)
		if r == nil {
			continue // a requirement, or check says what is wrong with it
		}
		f := s.fact(Fact{Kind: FactPlaced, Entry: ei, Span: e.PlacementSpan,
			What: fmt.Sprintf("%s holds %d %s (%s)", names(e), len(ranks), r.Unit(), e.Placement)})
		for _, h := range ranks {
			w := r.Locate(h)
			s.Taken[Device{Node: w.Node, Type: w.Group.HardwareType, Local: w.Local}] = f
		}
	}
}

// Copied is what a demand that shares a placed component's devices
// writes: that component's placement and node groups.
func (s *Space) Copied(d *Demand) (string, []string) {
	e := &s.cfg.Components[d.WithPlaced]
	return e.Placement, e.NodeGroups
}

// Anchor is where a conflict without located facts points.
func (s *Space) Anchor() model.Span { return s.cfg.ComponentsSpan }

// Variant is a copy of the space with demand i edited, for fixes that
// re-solving must confirm.
func (s *Space) Variant(i int, edit func(*Demand)) *Space {
	c := *s
	c.Demands = append([]*Demand(nil), s.Demands...)
	d := *s.Demands[i]
	edit(&d)
	c.Demands[i] = &d
	return &c
}

// GroupBlocks are the blocks of a node group as a demand of type t would
// use them; ok is false when the group has no devices of that type.
func (s *Space) GroupBlocks(label, t string) ([]Block, bool) {
	r, _ := s.view.Resolve([]string{label})
	if r == nil || r.Groups[0].HardwareType != t {
		return nil, false
	}
	return s.blocks(r), true
}

// Labels lists the node groups RLinf knows in this config: the configured
// ones with nodes, then cluster and node.
func (s *Space) Labels() []string {
	var out []string
	for _, g := range s.view.Groups {
		out = append(out, g.Label)
	}
	return out
}

func nodesText(nodes []int) string {
	if len(nodes) == 1 {
		return fmt.Sprintf("node %d", nodes[0])
	}
	return "nodes " + model.CompactRanks(nodes, ",")
}

// Processes is how many processes demand i places on n devices: as it
// says, else one per unit, else (sharing devices and saying nothing more)
// as many as the demand it shares them with.
func (s *Space) Processes(i, n int) int {
	d := s.Demands[i]
	switch {
	case d.PerDevice:
		return n
	case d.Procs > 0:
		return d.Procs
	case d.CountFact >= 0 || d.With < 0 || d.Unit > 1:
		return n / max(1, d.Unit)
	}
	return s.Processes(d.With, n)
}
