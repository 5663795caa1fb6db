package model

import (
	"reflect"
	"testing"
)

// worker is a record on node n with devices hw (visible as the same
// numbers) and the environment of the key, value pairs in env.
func worker(rank, node int, host string, hw []int, env ...string) WorkerRecord {
	vis := make([]string, len(hw))
	for i, h := range hw {
		vis[i] = string(rune('0' + h))
	}
	e := map[string]string{}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return WorkerRecord{Placement: Placement{Rank: rank, ClusterNodeRank: node, LocalHardwareRanks: hw, VisibleAccelerators: vis}, Hostname: host, Env: e}
}

func records(comps ...ComponentRecords) *PlanRecords { return &PlanRecords{Components: comps} }

func comp(name string, ws ...WorkerRecord) ComponentRecords {
	return ComponentRecords{Name: name, Workers: ws}
}

// summary is what a test compares of a component's diff: the change of
// each changed worker as flags and keys.
type summary struct {
	Name                   string
	InOld, InNew           bool
	OldWorkers, NewWorkers int
	Added, Removed         []int
	Changed                []change
	Unchanged              int
}

type change struct {
	Rank          int
	Node, Devices bool
	Env           EnvChange
}

func summarize(d PlanDiff) []summary {
	var out []summary
	for _, c := range d.Components {
		s := summary{c.Name, c.InOld, c.InNew, c.OldWorkers, c.NewWorkers, c.Added, c.Removed, nil, c.Unchanged}
		for _, w := range c.Changed {
			s.Changed = append(s.Changed, change{w.Rank, w.Node, w.Devices, w.Env})
		}
		out = append(out, s)
	}
	return out
}

func TestDiffPlans(t *testing.T) {
	a0 := worker(0, 0, "gpu-0", []int{0}, "RANK", "0")
	a1 := worker(1, 0, "gpu-0", []int{1}, "RANK", "1")
	tests := []struct {
		name     string
		old, new *PlanRecords
		want     []summary
		moved    int
	}{{
		name: "identical plans",
		old:  records(comp("actor", a0, a1)),
		new:  records(comp("actor", a0, a1)),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 2, NewWorkers: 2, Unchanged: 2}},
	}, {
		name: "node moved",
		old:  records(comp("actor", a0, a1)),
		new:  records(comp("actor", a0, worker(1, 1, "gpu-1", []int{1}, "RANK", "1"))),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 2, NewWorkers: 2, Unchanged: 1,
			Changed: []change{{Rank: 1, Node: true}}}},
		moved: 1,
	}, {
		name: "same node rank, another machine",
		old:  records(comp("actor", a0)),
		new:  records(comp("actor", worker(0, 0, "gpu-9", []int{0}, "RANK", "0"))),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 1, NewWorkers: 1,
			Changed: []change{{Rank: 0, Node: true}}}},
		moved: 1,
	}, {
		name: "a host name only one plan knows is no move",
		old:  records(comp("actor", a0)),
		new:  records(comp("actor", worker(0, 0, "", []int{0}, "RANK", "0"))),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 1, NewWorkers: 1, Unchanged: 1}},
	}, {
		name: "devices changed",
		old:  records(comp("actor", a0, a1)),
		new:  records(comp("actor", worker(0, 0, "gpu-0", []int{2, 3}, "RANK", "0"), a1)),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 2, NewWorkers: 2, Unchanged: 1,
			Changed: []change{{Rank: 0, Devices: true}}}},
		moved: 1,
	}, {
		name: "visible accelerators alone changed",
		old:  records(comp("actor", a0)),
		new: func() *PlanRecords {
			w := worker(0, 0, "gpu-0", []int{0}, "RANK", "0")
			w.VisibleAccelerators = []string{"1"}
			return records(comp("actor", w))
		}(),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 1, NewWorkers: 1,
			Changed: []change{{Rank: 0, Devices: true}}}},
		moved: 1,
	}, {
		name: "env added, removed and changed",
		old:  records(comp("actor", worker(0, 0, "gpu-0", []int{0}, "RANK", "0", "GONE", "x", "SAME", "s"))),
		new:  records(comp("actor", worker(0, 0, "gpu-0", []int{0}, "RANK", "7", "NEW", "y", "SAME", "s"))),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 1, NewWorkers: 1,
			Changed: []change{{Rank: 0, Env: EnvChange{Added: []string{"NEW"}, Removed: []string{"GONE"}, Changed: []string{"RANK"}}}}}},
	}, {
		name: "ranks added",
		old:  records(comp("actor", a0)),
		new:  records(comp("actor", a0, a1, worker(2, 1, "gpu-1", []int{0}))),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 1, NewWorkers: 3, Added: []int{1, 2}, Unchanged: 1}},
	}, {
		name: "ranks removed",
		old:  records(comp("actor", a0, a1)),
		new:  records(comp("actor", a0)),
		want: []summary{{Name: "actor", InOld: true, InNew: true, OldWorkers: 2, NewWorkers: 1, Removed: []int{1}, Unchanged: 1}},
	}, {
		name: "components added and removed, new order first",
		old:  records(comp("reward", a0), comp("actor", a0, a1)),
		new:  records(comp("actor", a0, a1), comp("rollout", a0)),
		want: []summary{
			{Name: "actor", InOld: true, InNew: true, OldWorkers: 2, NewWorkers: 2, Unchanged: 2},
			{Name: "rollout", InNew: true, NewWorkers: 1, Added: []int{0}},
			{Name: "reward", InOld: true, OldWorkers: 1, Removed: []int{0}},
		},
	}, {
		name: "empty plans",
		old:  records(),
		new:  records(),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DiffPlans(tt.old, tt.new)
			if got := summarize(d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diff\n got %+v\nwant %+v", got, tt.want)
			}
			if d.Moved != tt.moved {
				t.Errorf("moved = %d, want %d", d.Moved, tt.moved)
			}
			for _, c := range d.Components {
				for _, w := range c.Changed {
					if w.Old.Rank != w.Rank || w.New.Rank != w.Rank {
						t.Errorf("%s/%d points at records of ranks %d and %d", c.Name, w.Rank, w.Old.Rank, w.New.Rank)
					}
				}
			}
		})
	}
}

func TestDiffCounts(t *testing.T) {
	old := records(comp("actor", worker(0, 0, "", []int{0}), worker(1, 0, "", []int{1})), comp("reward", worker(0, 0, "", nil)))
	new := records(comp("actor", worker(0, 1, "", []int{0}), worker(1, 0, "", []int{1}, "X", "1"), worker(2, 0, "", []int{2})),
		comp("env", worker(0, 0, "", nil), worker(1, 0, "", nil)))
	d := DiffPlans(old, new)
	changed, added, removed := d.Counts()
	if changed != 2 || added != 3 || removed != 1 || d.Moved != 1 {
		t.Errorf("changed, added, removed, moved = %d, %d, %d, %d; want 2, 3, 1, 1", changed, added, removed, d.Moved)
	}
	in, out := d.ComponentsChanged()
	if !reflect.DeepEqual(in, []string{"env"}) || !reflect.DeepEqual(out, []string{"reward"}) {
		t.Errorf("components added %v, removed %v; want [env], [reward]", in, out)
	}
}
