package rules

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// The rules between two facts of the node groups: duplicate labels (D6), a
// node in two env_configs of a group, an env var key twice in a group
// (D11), one robot type on one node in two groups. Each is violated exactly
// when both facts are present.
var (
	ruleDuplicateLabel = &Rule{Name: "node group labels are unique", Codes: []string{model.CodeDuplicateLabel}}
	ruleEnvNode        = &Rule{Name: "a node is in one env_configs entry of its group", Codes: []string{model.CodeEnvNodeDuplicated}}
	ruleEnvVar         = &Rule{Name: "an env var is set once per node group", Codes: []string{model.CodeEnvVarDuplicated}}
	ruleRobotOwner     = &Rule{Name: "a robot is configured in one node group", Codes: []string{model.CodeHardwareConflict}}
)

func (b *builder) groupRules() {
	b.labelRules()
	for gi := range b.cfg.NodeGroups {
		b.envRules(gi)
	}
	b.robotRules()
}

func (b *builder) labelRules() {
	cfg, fs := b.cfg, b.fs
	for g1 := range cfg.NodeGroups {
		for g2 := g1 + 1; g2 < len(cfg.NodeGroups); g2++ {
			if cfg.NodeGroups[g1].Label == cfg.NodeGroups[g2].Label {
				la, lb := fs.groupLabel[g1], fs.groupLabel[g2]
				label := cfg.NodeGroups[g1].Label
				b.pair(ruleDuplicateLabel, la, lb, &Violation{Code: model.CodeDuplicateLabel, Primary: lb,
					Summary: fmt.Sprintf("two node groups are labelled %q", label),
					Why:     "RLinf looks groups up by label; it accepts the config but fails when the cluster starts (D6).",
					Roles:   map[int]string{la: "first defined here", lb: "second group with this label"},
					Fixes:   []Fix{b.renameLabelFix(g2)}})
			}
		}
	}
}

func (b *builder) envRules(gi int) {
	cfg, fs := b.cfg, b.fs
	g := &cfg.NodeGroups[gi]
	for j := range g.EnvConfigs {
		for k := j + 1; k < len(g.EnvConfigs); k++ {
			if common := commonNodes(g.EnvConfigs[j].NodeRanks, g.EnvConfigs[k].NodeRanks); len(common) > 0 {
				n := common[0]
				ej, ek := fs.env[gi][j], fs.env[gi][k]
				v := &Violation{Code: model.CodeEnvNodeDuplicated, Primary: ek,
					Summary: fmt.Sprintf("node %d is in two env_configs of node group %q", n, g.Label),
					Roles:   map[int]string{ej: fmt.Sprintf("env_configs[%d] covers node %d", j, n), ek: fmt.Sprintf("env_configs[%d] covers node %d too", k, n)}}
				for _, at := range []int{k, j} {
					if fix, ok := b.envRanksFix(gi, at, common); ok {
						v.Fixes = append(v.Fixes, fix)
					}
				}
				b.pair(ruleEnvNode, ej, ek, v)
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
			x, y := fs.envVar[gi][f.j][f.k], fs.envVar[gi][j][k]
			old := g.EnvConfigs[f.j].EnvVars[f.k]
			viol := &Violation{Code: model.CodeEnvVarDuplicated, Primary: y,
				Summary: fmt.Sprintf("env var %s is set twice in node group %q (%q and %q)", v.Key, g.Label, old.Value, v.Value),
				Why:     "RLinf allows each env var key once per node group, across all its env_configs, even for disjoint nodes (D11).",
				Roles:   map[int]string{x: fmt.Sprintf("sets it to %q", old.Value), y: fmt.Sprintf("...and this sets it to %q", v.Value)}}
			if fix, ok := b.envVarDeleteFix(gi, j, k); ok {
				viol.Fixes = []Fix{fix}
			}
			b.pair(ruleEnvVar, x, y, viol)
		}
	}
}

func (b *builder) robotRules() {
	cfg, fs := b.cfg, b.fs
	owner := map[robotKey]int{}
	for _, rc := range robotConfigs(cfg) {
		og, ok := owner[rc.key]
		if !ok {
			owner[rc.key] = rc.group
			continue
		}
		if og == rc.group {
			continue
		}
		x, y := fs.hardware[og][0], fs.hardware[rc.group][rc.index]
		for k, orc := range cfg.NodeGroups[og].Hardware.Configs {
			if orc.NodeRank == rc.key.node {
				x = fs.hardware[og][k]
				break
			}
		}
		g, o := &cfg.NodeGroups[rc.group], &cfg.NodeGroups[og]
		b.pair(ruleRobotOwner, x, y, &Violation{Code: model.CodeHardwareConflict, Primary: y,
			Summary: fmt.Sprintf("%s hardware on node %d is configured in two node groups, %q and %q", rc.key.typ, rc.key.node, o.Label, g.Label),
			Roles:   map[int]string{x: fmt.Sprintf("in group %q", o.Label), y: fmt.Sprintf("in group %q", g.Label)}})
	}
}

// robotKey is one robot type on one node.
type robotKey struct {
	node int
	typ  string
}

// robotConfig is one hardware config: its group, its index there, and the
// robot it configures.
type robotConfig struct {
	group, index int
	key          robotKey
}

// robotConfigs lists every hardware config of every group, in order.
func robotConfigs(cfg *model.Config) []robotConfig {
	var out []robotConfig
	for gi := range cfg.NodeGroups {
		g := &cfg.NodeGroups[gi]
		if g.Hardware == nil {
			continue
		}
		for k, rc := range g.Hardware.Configs {
			out = append(out, robotConfig{gi, k, robotKey{rc.NodeRank, g.Hardware.Type}})
		}
	}
	return out
}

// pair adds an instance that forbids facts x and y together.
func (b *builder) pair(r *Rule, x, y int, v *Violation) {
	b.set.Rules = append(b.set.Rules, &Instance{Rule: r, Name: r.Name, Reads: []int{x, y}, Together: true,
		Check: func(p Present) *Violation {
			if p(x) && p(y) {
				return v
			}
			return nil
		}})
}

// commonNodes are the ranks of b that a has too, in b's order.
func commonNodes(a, b []int) []int {
	set := map[int]bool{}
	for _, x := range a {
		set[x] = true
	}
	var out []int
	for _, x := range b {
		if set[x] {
			out = append(out, x)
		}
	}
	return out
}
