package proptest

import (
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
)

// The node-level encoding (units per node, devices laid out after the
// solve) against the device encoding on the same small spaces: both place
// or neither does, with the same objective value, which is exhaustive
// search's best; both placements hold; the node encoding's is proven
// optimal wherever the device encoding's is. Half the cases are read as
// a model-parallel class, so that actor, rollout and reward are each one
// contiguous range over the cluster; half on nodes of twice the GPUs, so
// that more of them place (exhaustive search is too slow there: those
// compare the encodings only).

// nodeEncCase is a solve spec, the class its space is read in, and
// whether its nodes have twice the GPUs.
type nodeEncCase struct {
	Spec      svSpec
	MP, Roomy bool
}

func genNodeEncCase() gopter.Gen {
	return gopter.CombineGens(genSolveSpec(), gen.Bool(), gen.Bool()).Map(func(vs []any) nodeEncCase {
		return nodeEncCase{Spec: vs[0].(svSpec), MP: vs[1].(bool), Roomy: vs[2].(bool)}
	})
}

// load reads the case into a fresh space (each Place gets its own).
func (n nodeEncCase) load() (*svCase, string) {
	if n.Roomy {
		nodes := make([]svNode, len(n.Spec.Nodes))
		for i, nd := range n.Spec.Nodes {
			nodes[i] = svNode{GPUs: 2 * nd.GPUs}
		}
		n.Spec.Nodes = nodes
	}
	c, bad := svLoad(n.Spec)
	if c == nil || !n.MP {
		return c, bad
	}
	text, inv, without := n.Spec.render()
	cfg, _ := grammar.LoadConfig("solve.yaml", []byte(text), grammar.DefaultLimits)
	c.sp = rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassModelParallel, Without: without})
	c.yaml += "# read as model-parallel\n"
	return c, ""
}

func TestPropNodeEncodingAgrees(t *testing.T) {
	// placed counts the cases the node encoding placed, searched those
	// exhaustive search finished; irregular those placed by devices.
	var placed, irregular, infeasible, searched int
	params := propParams(t)
	params.MinSuccessfulTests = propCount(t, 300)
	props := gopter.NewProperties(params)
	props.Property("the node encoding places as the device encoding does", prop.ForAll(func(n nodeEncCase) string {
		c, bad := n.load()
		if c == nil {
			return bad
		}
		if c.sp.Diagnostics.HasErrors() {
			return ""
		}
		dc, _ := n.load()
		node, err := solver.Place(c.sp, solver.PlaceOptions{Objective: c.obj})
		if err != nil {
			return fmt.Sprintf("node encoding: %v\n%s", err, c.yaml)
		}
		dev, err := solver.Place(dc.sp, solver.PlaceOptions{Objective: c.obj, DeviceEncoding: true})
		if err != nil {
			return fmt.Sprintf("device encoding: %v\n%s", err, c.yaml)
		}
		switch {
		case node.Diagnostics.HasErrors():
			infeasible++ // explained, by devices
		case node.Stats.Encoding == "node":
			placed++
		default:
			irregular++
		}
		return nodeEncAgree(c, dc, node, dev, !n.Roomy, &searched)
	}, genNodeEncCase()))
	propRun(t, props)
	t.Logf("%d placed by nodes, %d by devices (irregular), %d infeasible; %d against exhaustive search", placed, irregular, infeasible, searched)
	if placed == 0 {
		t.Errorf("the generator must give regular spaces that place")
	}
}

// nodeEncAgree compares the two answers, and both with exhaustive search.
func nodeEncAgree(c, dc *svCase, node, dev *solver.Placement, search bool, searched *int) string {
	okNode, okDev := !node.Diagnostics.HasErrors(), !dev.Diagnostics.HasErrors()
	switch {
	case okNode != okDev:
		return fmt.Sprintf("node encoding placed: %v, device encoding placed: %v\n%s", okNode, okDev, c.yaml)
	case !okNode:
		return ""
	case node.Value != dev.Value:
		return fmt.Sprintf("%s value: node encoding %d, device encoding %d\n%s%s%s", c.obj, node.Value, dev.Value, c.yaml, svShow(node), svShow(dev))
	case dev.Optimal && !node.Optimal:
		return fmt.Sprintf("the device encoding proved its value optimal, the node encoding did not\n%s", c.yaml)
	}
	if msg := svHolds(c, node); msg != "" {
		return "node encoding: " + msg
	}
	if msg := svHolds(dc, dev); msg != "" {
		return "device encoding: " + msg
	}
	if !search {
		return ""
	}
	found, best, ok := svBest(c.sp, svAll(c.sp), c.obj)
	if !ok {
		return ""
	}
	*searched++
	if !found || best != node.Value {
		return fmt.Sprintf("exhaustive search: found %v, best %d; the encodings' value %d\n%s%s", found, best, node.Value, c.yaml, svShow(node))
	}
	return ""
}
