package proptest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/longtest"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
)

// Properties of solve against exhaustive search over the same space: it
// finds a placement exactly when one exists, its objective value is the
// best there is, its placement holds, and every conflict it reports is
// minimal (it cannot hold, and without any one of its facts it can).

// svCase is a spec read into a space.
type svCase struct {
	yaml string
	sp   *rules.Space
	obj  solver.Objective
}

func svLoad(s svSpec) (*svCase, string) {
	text, inv, without := s.render()
	cfg, ds := grammar.LoadConfig("solve.yaml", []byte(text), grammar.DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		return nil, fmt.Sprintf("the generator wrote a config the grammar refuses:\n%s\n%v", text, ds)
	}
	sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid, Without: without})
	obj := solver.ObjectivePack
	if s.ObjectiveKind == 1 {
		obj = solver.ObjectiveSpread
	}
	return &svCase{yaml: fmt.Sprintf("%s# without %v, objective %s\n", text, without, obj), sp: sp, obj: obj}, ""
}

// svBest is the exhaustive answer: whether any placement holds under the
// facts present, and the best objective value; ok is false when the
// search gave up.
func svBest(sp *rules.Space, present []bool, obj solver.Objective) (found bool, best int, ok bool) {
	value := func(ch map[int][]rules.Device) int { return svValue(sp, ch, obj) }
	for v := 0; v <= 64; v++ {
		found, ok := brute(sp, present, v, value)
		if found || !ok {
			return found, v, ok
		}
	}
	return false, 0, true
}

// svExists is whether any placement holds under the facts present.
func svExists(sp *rules.Space, present []bool) (found, ok bool) { return brute(sp, present, 0, nil) }

// errGaveUp marks a case exhaustive search could not finish.
const errGaveUp = "gave up"

func svValue(sp *rules.Space, ch map[int][]rules.Device, obj solver.Objective) int {
	if obj == solver.ObjectivePack {
		return bruteNodesUsed(sp, ch)
	}
	most := 0
	for i, devs := range ch {
		if sp.Demands[i].Type == "" {
			continue
		}
		per := map[int]int{}
		for _, x := range devs {
			per[x.Node]++
			most = max(most, per[x.Node])
		}
	}
	return most
}

func svAll(sp *rules.Space) []bool {
	all := make([]bool, len(sp.Facts))
	for f := range all {
		all[f] = true
	}
	return all
}

func TestPropSolveExact(t *testing.T) {
	longtest.Skip(t, "300 solves, each against a brute force")
	var feasible, infeasible, refused, skipped int
	params := propParams(t)
	params.MinSuccessfulTests = propCount(t, 300)
	props := gopter.NewProperties(params)
	props.Property("solve finds the best placement exactly when one exists", prop.ForAll(func(s svSpec) string {
		c, bad := svLoad(s)
		if c == nil {
			return bad
		}
		if c.sp.Diagnostics.HasErrors() {
			refused++
			return ""
		}
		res, err := solver.Place(c.sp, solver.PlaceOptions{Objective: c.obj})
		if err != nil {
			return fmt.Sprintf("solve failed: %v\n%s", err, c.yaml)
		}
		exists, ok := svExists(c.sp, svAll(c.sp))
		best := 0
		if exists {
			_, best, ok = svBest(c.sp, svAll(c.sp), c.obj)
		}
		if !ok {
			skipped++
			return ""
		}
		placed := !res.Diagnostics.HasErrors()
		switch {
		case exists != placed:
			return fmt.Sprintf("exhaustive search says a placement exists: %v; solve placed: %v %v\n%s", exists, placed, res.Diagnostics, c.yaml)
		case !placed:
			msg := svCoresMinimal(c, res)
			if msg == errGaveUp {
				skipped++
				return ""
			}
			infeasible++
			return msg
		}
		feasible++
		if msg := svPassesCheck(s, c); msg != "" {
			return msg
		}
		if res.Value != best {
			return fmt.Sprintf("solve's %s value is %d, the best is %d\n%s%s", c.obj, res.Value, best, c.yaml, svShow(res))
		}
		return svHolds(c, res)
	}, genSolveSpec()))
	propRun(t, props)
	t.Logf("%d placed, %d infeasible (cores checked), %d refused before solving, %d too large to search", feasible, infeasible, refused, skipped)
	if feasible == 0 || infeasible == 0 {
		t.Errorf("the generator must give both outcomes: %d placed, %d infeasible", feasible, infeasible)
	}
}

// svPassesCheck solves the spec the ordinary way: the file with the
// placements written in passes check.
func svPassesCheck(s svSpec, c *svCase) string {
	text, inv, without := s.render()
	obj := solver.ObjectivePack
	if s.ObjectiveKind == 1 {
		obj = solver.ObjectiveSpread
	}
	sv := pipeline.Solve("solve.yaml", []byte(text), pipeline.SolveOptions{Options: pipeline.Options{Inventory: inv}, Objective: obj, Without: without})
	if sv.Text == nil || sv.Verified == nil || sv.Verified.Failed() {
		return fmt.Sprintf("the placement does not pass check through the ordinary path: %v\n%s", sv.Diagnostics, c.yaml)
	}
	return ""
}

// svCoresMinimal checks every reported conflict: its facts alone cannot
// hold, and each of them is needed.
func svCoresMinimal(c *svCase, res *solver.Placement) string {
	if len(res.Cores) == 0 {
		return fmt.Sprintf("infeasible without a conflict\n%s", c.yaml)
	}
	for _, core := range res.Cores {
		present := make([]bool, len(c.sp.Facts))
		for _, f := range core {
			present[f] = true
		}
		if found, ok := svExists(c.sp, present); !ok {
			return errGaveUp
		} else if found {
			return fmt.Sprintf("conflict %v holds after all\n%s", svFacts(c.sp, core), c.yaml)
		}
		for _, f := range core {
			present[f] = false
			found, ok := svExists(c.sp, present)
			present[f] = true
			if !ok {
				return errGaveUp
			}
			if !found {
				return fmt.Sprintf("conflict %v is not minimal: it still cannot hold without %q\n%s", svFacts(c.sp, core), c.sp.Facts[f].What, c.yaml)
			}
		}
	}
	return ""
}

// svHolds checks solve's placement against the space's constraints, as
// exhaustive search reads them.
func svHolds(c *svCase, res *solver.Placement) string {
	has := func(f int) bool { return f >= 0 }
	chosen := map[int][]rules.Device{}
	for i, p := range res.Placed {
		d := c.sp.Demands[i]
		r := c.sp.Root(i)
		if r != i || d.WithPlaced >= 0 {
			continue
		}
		devs := svDevices(d, p.Ranks)
		if !slices.ContainsFunc(bruteOptions(c.sp, i, has), func(o []rules.Device) bool { return svSame(o, devs) }) {
			return fmt.Sprintf("%s's devices %v are not a valid choice\n%s%s", d.Name, devs, c.yaml, svShow(res))
		}
		if !bruteApart(c.sp, i, devs, chosen, has) {
			return fmt.Sprintf("%s shares devices it must not\n%s%s", d.Name, c.yaml, svShow(res))
		}
		chosen[i] = devs
	}
	return ""
}

// svDevices maps resource ranks of a demand's groups to devices.
func svDevices(d *rules.Demand, ranks []int) []rules.Device {
	var out []rules.Device
	for _, r := range ranks {
		for _, b := range d.Blocks {
			if r >= b.First && r < b.First+b.Cap {
				out = append(out, b.Device(r-b.First))
			}
		}
	}
	return out
}

func svSame(a, b []rules.Device) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[rules.Device]bool{}
	for _, x := range a {
		in[x] = true
	}
	for _, x := range b {
		if !in[x] {
			return false
		}
	}
	return true
}

func svFacts(sp *rules.Space, core []int) []string {
	var out []string
	for _, f := range core {
		out = append(out, sp.Facts[f].What)
	}
	return out
}

func svShow(res *solver.Placement) string {
	s := "solve placed:\n"
	for _, p := range res.Placed {
		s += fmt.Sprintf("  %s: %v %q\n", p.Name, p.Labels, p.Placement)
	}
	return s
}
