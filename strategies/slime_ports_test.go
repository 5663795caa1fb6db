package strategies

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// Ports in slime's order (_allocate_rollout_engine_addr_and_ports_normal):
// per node, every served engine's HTTP and NCCL ports (and a prefill
// engine's bootstrap port) first, then each engine's dist_init_addr block
// of 30 + dp size; a decode group starts at the highest port the prefill
// group reached. The expected ports are what slime's own function returns
// for these flags with every port free (its code run with Ray stubbed).
func TestSlimePortsInSlimesOrder(t *testing.T) {
	type w struct {
		kind                   string
		node, gpu              int
		http, nccl, boot, dist int
		distNode               int
	}
	R := func(kind string, node, gpu, http, boot, dist, distNode int) w {
		return w{kind, node, gpu, http, http + 1, boot, dist, distNode}
	}
	for _, c := range []struct {
		name  string
		kv    map[model.SlimeKey]int
		nodes int
		gpus  int
		want  []w
	}{
		// slime.md: 8 GPUs, 4 engines of 2.
		{"spec example", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 2}, 1, 8,
			[]w{R("regular", 0, 0, 15000, 0, 15008, 0), R("regular", 0, 2, 15002, 0, 15039, 0), R("regular", 0, 4, 15004, 0, 15070, 0), R("regular", 0, 6, 15006, 0, 15101, 0)}},
		// 4 one-GPU engines on a default 8-GPU node: ports for 8 engines.
		{"served from the flags", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 4}, 1, 8,
			[]w{R("regular", 0, 0, 15000, 0, 15016, 0), R("regular", 0, 1, 15002, 0, 15047, 0), R("regular", 0, 2, 15004, 0, 15078, 0), R("regular", 0, 3, 15006, 0, 15109, 0)}},
		{"dp size 4", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 4, model.SlimeDPSize: 4}, 1, 8,
			[]w{R("regular", 0, 0, 15000, 0, 15004, 0), R("regular", 0, 4, 15002, 0, 15038, 0)}},
		{"prefill and decode", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 2, model.SlimePrefillServers: 1}, 1, 8,
			[]w{R("prefill", 0, 0, 15000, 15002, 15012, 0), R("decode", 0, 2, 15136, 0, 15144, 0), R("decode", 0, 4, 15138, 0, 15175, 0), R("decode", 0, 6, 15140, 0, 15206, 0)}},
		// Engines of 16 GPUs: every worker takes HTTP and NCCL ports on its
		// node, the engine one block on its first node.
		{"engines spanning nodes", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 32, model.SlimeRolloutGPUsPerEngine: 16, model.SlimeDPSize: 2}, 4, 8,
			[]w{R("regular", 0, 0, 15000, 0, 15002, 0), R("regular", 1, 0, 15000, 0, 15002, 0), R("regular", 2, 0, 15000, 0, 15002, 2), R("regular", 3, 0, 15000, 0, 15002, 2)}},
		{"prefill spanning nodes", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 32, model.SlimeRolloutGPUsPerEngine: 16, model.SlimePrefillServers: 1}, 4, 8,
			[]w{R("prefill", 0, 0, 15000, 15002, 15003, 0), R("prefill", 1, 0, 15000, 15002, 15003, 0), R("decode", 2, 0, 15034, 0, 15036, 2), R("decode", 3, 0, 15034, 0, 15036, 2)}},
		// Disaggregated, 4-GPU engines: a prefill group over two nodes, the
		// decode group starting mid-node.
		{"decode mid-node", map[model.SlimeKey]int{model.SlimeActorNumNodes: 1, model.SlimeRolloutNumGPUs: 16, model.SlimeRolloutGPUsPerEngine: 4, model.SlimePrefillServers: 3}, 3, 8,
			[]w{R("prefill", 1, 0, 15000, 15002, 15006, 1), R("prefill", 1, 4, 15003, 15005, 15037, 1), R("prefill", 2, 0, 15000, 15002, 15006, 2), R("decode", 2, 4, 15068, 0, 15072, 2)}},
		{"4-GPU nodes", map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 2, model.SlimeNumGPUsPerNode: 4}, 2, 4,
			[]w{R("regular", 0, 0, 15000, 0, 15004, 0), R("regular", 0, 2, 15002, 0, 15035, 0), R("regular", 1, 0, 15000, 0, 15004, 1), R("regular", 1, 2, 15002, 0, 15035, 1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, ds := mustPlan(t, slimeCfg(c.kv), uniformTopo(c.nodes, c.gpus))
			var got []w
			for _, e := range r.Layout.Engines {
				for _, p := range e.Parts {
					got = append(got, w{e.WorkerType, p.Node, p.GPUs[0], p.HTTPPort, p.NCCLPort, p.BootstrapPort, e.DistFirst, e.Parts[0].Node})
				}
				if e.DistLast-e.DistFirst+1 != model.SlimeDistInitBlockBase+max(c.kv[model.SlimeDPSize], 1) {
					t.Errorf("engine %d block %d-%d", e.Index, e.DistFirst, e.DistLast)
				}
				if want := fmt.Sprintf("10.0.0.%d:%d", e.Parts[0].Node+1, e.DistFirst); e.DistInitAddr != want {
					t.Errorf("engine %d dist_init_addr %s, want %s", e.Index, e.DistInitAddr, want)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("workers\n got %v\nwant %v", got, c.want)
			}
			for _, d := range ds {
				if d.Code == model.WarnSlimeRankNode {
					t.Errorf("slime's arithmetic agrees with the stable order here: %s", d.Summary)
				}
			}
		})
	}
}

// No two ports planned on one node coincide, whatever the layout.
func TestSlimePortsDisjoint(t *testing.T) {
	checked := 0
	for i := range 30 {
		actor, gpe, pre := []int{4, 8}[i%2], []int{1, 2, 4, 8, 16}[i/2%5], i/10
		kv := map[model.SlimeKey]int{model.SlimeActorGPUsPerNode: actor, model.SlimeRolloutNumGPUs: 48, model.SlimeRolloutGPUsPerEngine: gpe, model.SlimeDPSize: 3}
		if pre > 0 {
			kv[model.SlimePrefillServers] = pre
		}
		r, _ := slimeCheck(t, slimeCfg(kv), uniformTopo(7, 8))
		if r == nil {
			continue // large engines straddle where the rollout starts mid-node
		}
		checked++
		used := map[[2]int]string{}
		for _, b := range r.Layout.Ports {
			for p := b.First; p <= b.Last; p++ {
				k := [2]int{b.Pos, p}
				if prev, dup := used[k]; dup {
					t.Fatalf("%v: port %d on node %d taken by %s and engine %d %s", kv, p, b.Pos, prev, b.Engine, b.Kind)
				}
				used[k] = fmt.Sprintf("engine %d %s", b.Engine, b.Kind)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d layouts planned", checked)
	}
}
