package model

import (
	"maps"
	"slices"
)

// PlanDiff is what changed between two plans: per component, the workers
// added or removed (the world size changed) and the workers of the same
// rank that changed node, devices or environment.
type PlanDiff struct {
	// Components are the new plan's components in its order, then those
	// only the old plan has, in the old order.
	Components []ComponentDiff
	// Moved counts the workers that changed node or devices.
	Moved int
}

// ComponentDiff is one component's changes.
type ComponentDiff struct {
	Name string
	// InOld and InNew say which plans have the component; OldWorkers and
	// NewWorkers are its world sizes there (0 where it is absent).
	InOld, InNew           bool
	OldWorkers, NewWorkers int
	// Added and Removed are the ranks only the new, or only the old, plan
	// has, ascending.
	Added, Removed []int
	// Changed are the workers of both plans that differ, by rank.
	Changed []WorkerChange
	// Unchanged counts the workers of both plans that do not.
	Unchanged int
}

// WorkerChange is one worker that both plans have and that differs.
type WorkerChange struct {
	Rank     int
	Old, New *WorkerRecord
	// Node: the cluster node rank changed, or the host name where both
	// plans know it (a node rank can name another machine after the
	// inventory changed). Devices: the local hardware ranks or the visible
	// accelerators changed.
	Node, Devices bool
	Env           EnvChange
}

// Moved reports whether the worker changed node or devices.
func (c *WorkerChange) Moved() bool { return c.Node || c.Devices }

// EnvChange is the environment variables that differ, by name, sorted.
type EnvChange struct {
	Added, Removed, Changed []string
}

// Empty reports whether the environments are the same.
func (e *EnvChange) Empty() bool {
	return len(e.Added) == 0 && len(e.Removed) == 0 && len(e.Changed) == 0
}

// DiffPlans compares two plans' workers, component by component and rank
// by rank, in time linear in the workers and their variables.
func DiffPlans(old, new *PlanRecords) PlanDiff {
	var d PlanDiff
	var keys envKeys
	for i := range new.Components {
		nc := &new.Components[i]
		cd := keys.diffComponent(old.Component(nc.Name), nc)
		d.Components = append(d.Components, cd)
	}
	for i := range old.Components {
		if oc := &old.Components[i]; new.Component(oc.Name) == nil {
			d.Components = append(d.Components, keys.diffComponent(oc, nil))
		}
	}
	for i := range d.Components {
		for j := range d.Components[i].Changed {
			if d.Components[i].Changed[j].Moved() {
				d.Moved++
			}
		}
	}
	return d
}

// envKeys holds the sorted names of the last environments compared: the
// workers of a plan mostly have the same variables, and finding that
// again is linear where sorting them again is not.
type envKeys struct {
	old, new []string
}

// diffComponent compares one component; old or new is nil where that plan
// lacks it.
func (k *envKeys) diffComponent(old, new *ComponentRecords) ComponentDiff {
	var ow, nw []WorkerRecord
	cd := ComponentDiff{InOld: old != nil, InNew: new != nil}
	if old != nil {
		cd.Name, ow = old.Name, old.Workers
	}
	if new != nil {
		cd.Name, nw = new.Name, new.Workers
	}
	cd.OldWorkers, cd.NewWorkers = len(ow), len(nw)
	for r := range max(len(ow), len(nw)) {
		switch {
		case r >= len(ow):
			cd.Added = append(cd.Added, r)
		case r >= len(nw):
			cd.Removed = append(cd.Removed, r)
		default:
			if c, changed := k.diffWorker(r, &ow[r], &nw[r]); changed {
				cd.Changed = append(cd.Changed, c)
			} else {
				cd.Unchanged++
			}
		}
	}
	return cd
}

// diffWorker compares the worker of rank r in both plans.
func (k *envKeys) diffWorker(r int, old, new *WorkerRecord) (WorkerChange, bool) {
	c := WorkerChange{Rank: r, Old: old, New: new}
	c.Node = old.ClusterNodeRank != new.ClusterNodeRank ||
		(old.Hostname != "" && new.Hostname != "" && old.Hostname != new.Hostname)
	c.Devices = !slices.Equal(old.LocalHardwareRanks, new.LocalHardwareRanks) ||
		!slices.Equal(old.VisibleAccelerators, new.VisibleAccelerators)
	c.Env = k.diffEnv(old.Env, new.Env)
	return c, c.Node || c.Devices || !c.Env.Empty()
}

// diffEnv lists the variables only new has, only old has, and both have
// with other values.
func (k *envKeys) diffEnv(old, new map[string]string) EnvChange {
	var e EnvChange
	// Most workers keep their environment: telling that needs no sorting.
	if maps.Equal(old, new) {
		return e
	}
	k.new = sortedKeys(new, k.new)
	for _, key := range k.new {
		if ov, ok := old[key]; !ok {
			e.Added = append(e.Added, key)
		} else if ov != new[key] {
			e.Changed = append(e.Changed, key)
		}
	}
	if len(e.Added) == 0 && len(old) == len(new) {
		return e // the same names: none removed
	}
	k.old = sortedKeys(old, k.old)
	for _, key := range k.old {
		if _, ok := new[key]; !ok {
			e.Removed = append(e.Removed, key)
		}
	}
	return e
}

// sortedKeys is m's keys, sorted: last, when m has just those keys.
func sortedKeys(m map[string]string, last []string) []string {
	same := len(m) == len(last)
	for i := 0; same && i < len(last); i++ {
		_, same = m[last[i]]
	}
	if same {
		return last
	}
	return slices.Sorted(maps.Keys(m))
}

// Counts sums over the components the workers that changed (node, devices
// or environment), were added, and were removed.
func (d *PlanDiff) Counts() (changed, added, removed int) {
	for i := range d.Components {
		c := &d.Components[i]
		changed += len(c.Changed)
		added += len(c.Added)
		removed += len(c.Removed)
	}
	return changed, added, removed
}

// ComponentsChanged names the components only the new plan has (added)
// and only the old one has (removed).
func (d *PlanDiff) ComponentsChanged() (added, removed []string) {
	for i := range d.Components {
		switch c := &d.Components[i]; {
		case !c.InOld:
			added = append(added, c.Name)
		case !c.InNew:
			removed = append(removed, c.Name)
		}
	}
	return added, removed
}
