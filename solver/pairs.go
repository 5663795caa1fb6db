package solver

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// pairRules are the rules between two facts of the node groups: duplicate
// labels (D6), a node in two env_configs of a group, an env var key twice in
// a group (D11), one robot type on one node in two groups, identical robots.
func (s *session) pairRules() {
	cfg, fs := s.cfg, s.fs
	for a := range cfg.NodeGroups {
		for b := a + 1; b < len(cfg.NodeGroups); b++ {
			if cfg.NodeGroups[a].Label == cfg.NodeGroups[b].Label {
				la, lb := fs.groupLabel[a], fs.groupLabel[b]
				label := cfg.NodeGroups[a].Label
				s.pair("duplicate label", la, lb, &violation{Code: model.CodeDuplicateLabel, Primary: lb,
					Summary: fmt.Sprintf("two node groups are labelled %q", label),
					Why:     "RLinf looks groups up by label; it accepts the config but fails when the cluster starts (D6).",
					Roles:   map[int]string{la: "first defined here", lb: "second group with this label"}})
			}
		}
	}
	for gi := range cfg.NodeGroups {
		g := &cfg.NodeGroups[gi]
		for j := range g.EnvConfigs {
			for k := j + 1; k < len(g.EnvConfigs); k++ {
				if n, ok := commonNode(g.EnvConfigs[j].NodeRanks, g.EnvConfigs[k].NodeRanks); ok {
					ej, ek := fs.env[gi][j], fs.env[gi][k]
					s.pair("env node", ej, ek, &violation{Code: model.CodeEnvNodeDuplicated, Primary: ek,
						Summary: fmt.Sprintf("node %d is in two env_configs of node group %q", n, g.Label),
						Roles:   map[int]string{ej: fmt.Sprintf("env_configs[%d] covers node %d", j, n), ek: fmt.Sprintf("env_configs[%d] covers node %d too", k, n)}})
				}
			}
		}
		type at struct{ j, k int }
		first := map[string]at{}
		for j := range g.EnvConfigs {
			for k, v := range g.EnvConfigs[j].EnvVars {
				f, ok := first[v.Key]
				if !ok {
					first[v.Key] = at{j, k}
					continue
				}
				a, b := fs.envVar[gi][f.j][f.k], fs.envVar[gi][j][k]
				old := g.EnvConfigs[f.j].EnvVars[f.k]
				s.pair("env var", a, b, &violation{Code: model.CodeEnvVarDuplicated, Primary: b,
					Summary: fmt.Sprintf("env var %s is set twice in node group %q (%q and %q)", v.Key, g.Label, old.Value, v.Value),
					Why:     "RLinf allows each env var key once per node group, across all its env_configs, even for disjoint nodes (D11).",
					Roles:   map[int]string{a: fmt.Sprintf("sets it to %q", old.Value), b: fmt.Sprintf("...and this sets it to %q", v.Value)}})
			}
		}
	}
	type robot struct {
		node int
		typ  string
	}
	owner := map[robot]int{}
	for gi := range cfg.NodeGroups {
		g := &cfg.NodeGroups[gi]
		if g.Hardware == nil {
			continue
		}
		for k, rc := range g.Hardware.Configs {
			key := robot{rc.NodeRank, g.Hardware.Type}
			if og, ok := owner[key]; ok && og != gi {
				a, b := fs.hardware[og][0], fs.hardware[gi][k]
				for ok2, orc := range cfg.NodeGroups[og].Hardware.Configs {
					if orc.NodeRank == rc.NodeRank {
						a = fs.hardware[og][ok2]
						break
					}
				}
				s.pair("robot owner", a, b, &violation{Code: model.CodeHardwareConflict, Primary: b,
					Summary: fmt.Sprintf("%s hardware on node %d is configured in two node groups, %q and %q", g.Hardware.Type, rc.NodeRank, cfg.NodeGroups[og].Label, g.Label),
					Roles:   map[int]string{a: fmt.Sprintf("in group %q", cfg.NodeGroups[og].Label), b: fmt.Sprintf("in group %q", g.Label)}})
				continue
			}
			owner[key] = gi
		}
	}
}

// pair adds a rule that forbids facts a and b together.
func (s *session) pair(name string, a, b int, v *violation) {
	s.p.add(&rule{name: name, scope: []int{a, b}, check: func(p present) *violation {
		if p(a) && p(b) {
			return v
		}
		return nil
	}})
}

func commonNode(a, b []int) (int, bool) {
	set := map[int]bool{}
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		if set[x] {
			return x, true
		}
	}
	return 0, false
}
