package strategies

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Options tune expansion.
type Options struct {
	// Class is the placement class that reads the config (default: hybrid).
	Class model.PlacementClass
}

// Result is a plan with the cluster it was made on.
type Result struct {
	Plan    *model.Plan
	Cluster *Cluster
}

// Expand expands every component of a config that the solver accepted
// (rules.Build judged by solver.Check) into its workers. It judges
// nothing: a failure here means the rules let through what RLinf's
// strategies refuse, and is returned as an internal error.
func Expand(cfg *model.Config, inv *model.Inventory, opt Options) (*Result, error) {
	nodes := inv.Nodes
	if cfg.NumNodes > 0 {
		if len(nodes) < cfg.NumNodes {
			return nil, fmt.Errorf("expand: the inventory has %d nodes, num_nodes is %d", len(nodes), cfg.NumNodes)
		}
		nodes = nodes[:cfg.NumNodes]
	}
	c := NewCluster(&model.Inventory{Nodes: nodes, Source: inv.Source}, cfg)
	plan := &model.Plan{}
	if opt.Class != model.ClassBase {
		plan.Mode = model.ModeHybrid
	}
	for ei := range cfg.Components {
		e := &cfg.Components[ei]
		rm, err := c.rankMap(e)
		if err != nil {
			return nil, fmt.Errorf("expand %s: %w", names(e), err)
		}
		for _, name := range e.Names {
			plan.Components = append(plan.Components, model.ComponentPlan{Name: name, Entry: ei,
				RankMapWorldSize: rm.worldSize, HardwareRanks: rm.hwRanks, NodeGroups: rm.labels, Strategy: rm.strategy})
		}
	}
	var err error
	switch opt.Class {
	case model.ClassModelParallel, model.ClassMultiAgent:
		plan.Mode, err = modelParallel(cfg, c, plan, opt.Class)
	case model.ClassModelParallelEval, model.ClassMultiAgentEval:
		plan.Mode, err = evaluation(cfg, plan, opt.Class)
	}
	if err != nil {
		return nil, fmt.Errorf("expand: %w", err)
	}
	if err := c.placeAll(plan); err != nil {
		return nil, err
	}
	return &Result{Plan: plan, Cluster: c}, nil
}

// placeAll runs every component's strategy; strategies shared by several
// names of one entry are placed once.
func (c *Cluster) placeAll(plan *model.Plan) error {
	type key struct {
		entry int
		s     string
	}
	done := map[key]model.Placements{}
	for i := range plan.Components {
		cp := &plan.Components[i]
		k := key{cp.Entry, fmt.Sprintf("%v", cp.Strategy.Kind) + strategyKey(&cp.Strategy)}
		if ps, ok := done[k]; ok {
			cp.Placements = ps
			continue
		}
		ps, f := place(c, &cp.Strategy)
		if f != nil {
			return fmt.Errorf("expand %s: %w", cp.Name, f)
		}
		cp.Placements = ps
		done[k] = ps
	}
	return nil
}

func strategyKey(s *model.Strategy) string {
	if s.Kind == model.StrategyPacked {
		return fmt.Sprintf("%d-%d/%d/%d", s.Start, s.End, s.HardwarePerProcess, s.Stride)
	}
	return ""
}

// place runs a strategy record on the cluster (workers isolated, as
// RLinf's WorkerGroup launches them by default).
func place(c *Cluster, s *model.Strategy) (model.Placements, *Failure) {
	switch s.Kind {
	case model.StrategyPacked:
		return Packed{Start: s.Start, End: s.End, HardwarePerProcess: s.HardwarePerProcess, Stride: s.Stride, NodeGroups: s.NodeGroups}.Place(c, true)
	case model.StrategyFlexible:
		return Flexible{HardwareRanks: s.HardwareRanks(), NodeGroups: s.NodeGroups}.Place(c, true)
	default:
		return Node{NodeRanks: s.NodeRanks(), NodeGroups: s.NodeGroups}.Place(c, true)
	}
}
