package pipeline

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

func noInventory() Options { return Options{GPUsPerNode: -1} }

func codes(ds model.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// The layouts of slime.md: bundle counts, rollout offset, actor rank r on
// stable bundle r, engine i on bundles offset + i*g ... . The second part
// is slime's own placement-group cases (tests/test_placement_group.py, a
// 2 x 8 actor): colocate takes max(actor, rollout) bundles, the actor on
// the first; --rollout-num-gpus 0 starts routers only; external engines
// leave the rollout's bundles empty.
func TestSlimeLayoutsOfTheSpec(t *testing.T) {
	const a = "--actor-num-nodes 2 --actor-num-gpus-per-node 8 "
	for _, c := range []struct {
		flags           string
		bundles, offset int
		actor, engines  int
		mode            model.PlacementMode
	}{
		{"--debug-train-only --actor-num-nodes 2 --actor-num-gpus-per-node 4 --num-gpus-per-node 4", 8, 0, 8, 0, model.ModeTrainOnly},
		{"--debug-rollout-only --rollout-num-gpus 8 --rollout-num-gpus-per-engine 4", 8, 0, 0, 2, model.ModeRolloutOnly},
		{"--colocate --actor-num-nodes 2 --rollout-num-gpus-per-engine 2", 16, 0, 16, 8, model.ModeCollocated},
		{"--colocate --actor-num-nodes 1 --rollout-num-gpus 8", 8, 0, 8, 8, model.ModeCollocated},
		{"--actor-num-nodes 2 --actor-num-gpus-per-node 8 --rollout-num-gpus 8 --rollout-num-gpus-per-engine 2", 24, 16, 16, 4, model.ModeDisaggregated},
		{a + "--rollout-num-gpus 32", 48, 16, 16, 32, model.ModeDisaggregated},
		{a + "--rollout-num-gpus 32 --debug-train-only", 16, 0, 16, 0, model.ModeTrainOnly},
		{a + "--rollout-num-gpus 32 --load-debug-rollout-data /d/{rollout_id}.pt", 16, 0, 16, 0, model.ModeTrainOnly},
		{a + "--rollout-num-gpus 32 --debug-rollout-only", 32, 0, 0, 32, model.ModeRolloutOnly},
		{a + "--colocate --rollout-num-gpus 8", 16, 0, 16, 8, model.ModeCollocated},
		{a + "--colocate --rollout-num-gpus 32", 32, 0, 16, 32, model.ModeCollocated},
		{a + "--colocate --rollout-num-gpus 0", 16, 0, 16, 0, model.ModeCollocated},
		{a + "--rollout-num-gpus 0", 16, 16, 16, 0, model.ModeDisaggregated},
		{a + "--rollout-num-gpus 32 --rollout-external-engine-addrs 10.1.0.1:30000", 16, 16, 16, 0, model.ModeDisaggregated},
		{a + "--rollout-external --debug-rollout-only", 16, 0, 0, 0, model.ModeDisaggregated},
		{a + "--colocate --debug-rollout-only", 16, 0, 0, 16, model.ModeRolloutOnly},
	} {
		so := CheckSlime(c.flags, "", noInventory())
		if so.Failed() || so.Plan == nil || so.Plan.Plan == nil {
			t.Errorf("%s: %v", c.flags, so.Diagnostics)
			continue
		}
		l := so.Plan.Layout
		if l.NumBundles != c.bundles || l.RolloutOffset != c.offset || len(l.Engines) != c.engines || so.Plan.Plan.Mode != c.mode {
			t.Errorf("%s: %d bundles, offset %d, %d engines, %s", c.flags, l.NumBundles, l.RolloutOffset, len(l.Engines), so.Plan.Plan.Mode)
		}
		if a := so.Plan.Plan.Component("actor"); c.actor == 0 && a != nil || c.actor > 0 && (a == nil || a.Placements.Len() != c.actor) {
			t.Errorf("%s: actor %+v", c.flags, a)
		} else if a != nil {
			for r, b := range a.HardwareRanks {
				if b != r {
					t.Errorf("%s: actor rank %d on bundle %d", c.flags, r, b)
				}
			}
		}
		g := l.Settings.GPUsPerEngine
		for i, e := range l.Engines {
			if e.Parts[0].Bundles[0] != c.offset+i*g {
				t.Errorf("%s: engine %d starts at bundle %d", c.flags, i, e.Parts[0].Bundles[0])
			}
		}
		if len(so.Diagnostics) != 1 || so.Diagnostics[0].Code != model.NoteAssumedInventory {
			t.Errorf("%s: %v", c.flags, codes(so.Diagnostics))
		}
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return p
}

// A YAML file with slime: keys and an inventory; --slime flags win over it.
func TestSlimeYAMLAndFlags(t *testing.T) {
	p := writeFile(t, "s.yaml", `slime:
  actor_num_gpus_per_node: 2
  rollout_num_gpus: 6
  rollout_num_gpus_per_engine: 2
inventory:
  nodes:
    - ranks: 0-1
      hostnames: gb200-[0-1]
      ips: 10.0.0.[1-2]
      accelerators: {model: GB200, count: 4}
`)
	if o, so := Check(p, "", noInventory()); so == nil || o != so.Outcome {
		t.Fatal("not recognised as a slime file")
	}
	// Without --num-gpus-per-node slime assumes 8 GPUs per node: its rank
	// arithmetic puts engines 1 and 2 on engine 0's node (a warning, as
	// their engines fit in a node); rlsolve plans them where they run.
	so := CheckSlime("", p, noInventory())
	if so.Failed() || codes(so.Diagnostics)[0] != model.WarnSlimeRankNode || so.Diagnostics[0].Primary.File != p {
		t.Fatalf("%v", so.Diagnostics)
	}
	so = CheckSlime("--num-gpus-per-node 4", p, noInventory())
	if so.Failed() || so.Plan.Plan == nil {
		t.Fatalf("%v", so.Diagnostics)
	}
	if so.File != p || string(so.Sources[grammar.SlimeSource]) != "--num-gpus-per-node 4" {
		t.Errorf("file %q sources %v", so.File, so.Sources)
	}
	e := so.Plan.Layout.Engines
	if len(e) != 3 || e[0].DistInitAddr != "10.0.0.1:15004" || e[1].DistInitAddr != "10.0.0.2:15004" || e[2].DistInitAddr != "10.0.0.2:15035" {
		t.Errorf("engines %+v", e)
	}
	// Flags override the file's keys.
	so = CheckSlime("--num-gpus-per-node 4 --rollout-num-gpus 2", p, noInventory())
	if so.Failed() || len(so.Plan.Layout.Engines) != 1 {
		t.Errorf("override: %v", so.Diagnostics)
	}
	// Unreadable and missing files are I/O errors (exit 2).
	if so := CheckSlime("--colocate", filepath.Join(t.TempDir(), "none.yaml"), noInventory()); !so.IOError {
		t.Error("missing file")
	}
}

// Inventory precedence: --inventory, the file's, --gpus-per-node, assumed
// nodes of --num-gpus-per-node GPUs.
func TestSlimeInventoryChoice(t *testing.T) {
	so := CheckSlime("--rollout-num-gpus 8 --num-gpus-per-node 4", "", noInventory())
	if so.Failed() || len(so.Inventory.Nodes) != 4 || so.Inventory.Nodes[0].AccelCount != 4 || !so.Inventory.Assumed {
		t.Errorf("assumed: %+v %v", so.Inventory, so.Diagnostics)
	}
	// One-GPU engines fit on 4-GPU nodes whatever --num-gpus-per-node
	// says; slime's rank arithmetic (8 engines per node) is warned about.
	so = CheckSlime("--rollout-num-gpus 8", "", Options{GPUsPerNode: 4})
	if so.Failed() || !reflect.DeepEqual(codes(so.Diagnostics), []string{model.WarnSlimeRankNode, model.WarnSlimeActorSpread}) {
		t.Errorf("--gpus-per-node 4 with the default node size: %v", codes(so.Diagnostics))
	}
	inv := topology.Uniform(1, 8, "inv.yaml")
	so = CheckSlime("--rollout-num-gpus 8", "", Options{GPUsPerNode: 4, Inventory: inv})
	if !so.Failed() || codes(so.Diagnostics)[0] != model.CodeSlimeFit {
		t.Errorf("--inventory wins: %v", codes(so.Diagnostics))
	}
}

// The stable order: numeric IPv4 first, then host names, inventory order
// for ties.
func TestSlimeStableOrder(t *testing.T) {
	nodes := []model.Node{{IP: "10.0.0.66"}, {Hostname: "b"}, {IP: "10.0.0.7"}, {Hostname: "a"}, {IP: "9.1.1.1"}, {}, {}}
	if got, want := StableOrder(nodes), []int{4, 2, 0, 5, 6, 3, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// Every slime explanation's example triggers its own code.
func TestSlimeExplanationExamples(t *testing.T) {
	n := 0
	for _, e := range diag.Codes() {
		if !strings.HasPrefix(e.Code, "RLS-E07") && !strings.HasPrefix(e.Code, "RLS-W07") && !strings.HasPrefix(e.Code, "RLS-N07") {
			continue
		}
		n++
		p := writeFile(t, "example.yaml", e.Example)
		so := CheckSlime("", p, noInventory())
		if !slices.Contains(codes(so.Diagnostics), e.Code) {
			t.Errorf("%s example gives %v", e.Code, codes(so.Diagnostics))
		}
	}
	if n < 15 {
		t.Errorf("only %d slime explanations", n)
	}
}

// Random layouts on random inventories: the direct checks and the solver
// agree on which rules fail; every conflict's flags alone reproduce it;
// a valid layout plans every GPU of its placement group once.
func TestSlimeRandomAgreement(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	pick := func(xs ...int) int { return xs[rng.Intn(len(xs))] }
	for iter := 0; iter < 400; iter++ {
		var parts []string
		add := func(p float64, s string) {
			if rng.Float64() < p {
				parts = append(parts, s)
			}
		}
		add(0.6, fmt.Sprintf("--actor-num-nodes %d", pick(1, 2, 3)))
		add(0.6, fmt.Sprintf("--actor-num-gpus-per-node %d", pick(2, 4, 6, 8)))
		add(0.8, fmt.Sprintf("--rollout-num-gpus %d", pick(0, 2, 4, 6, 8, 12, 16)))
		add(0.6, fmt.Sprintf("--rollout-num-gpus-per-engine %d", pick(1, 2, 3, 4, 8, 16)))
		add(0.3, fmt.Sprintf("--num-gpus-per-node %d", pick(4, 8)))
		add(0.2, fmt.Sprintf("--sglang-dp-size %d", pick(1, 4000, 9000)))
		add(0.3, "--colocate")
		add(0.1, "--debug-train-only")
		add(0.1, "--debug-rollout-only")
		add(0.2, fmt.Sprintf("--prefill-num-servers %d", pick(1, 2, 3)))
		add(0.05, "--rollout-external-engine-addrs 10.9.0.1:30000")
		add(0.05, "--sglang-config /tmp/s.yaml")
		add(0.05, "--load-debug-rollout-data /d.pt")
		flags := strings.Join(parts, " ")
		g := pick(4, 8)
		nodes := make([]model.Node, pick(1, 2, 3, 4, 5))
		for i := range nodes {
			nodes[i] = model.Node{Rank: i, IP: fmt.Sprintf("10.0.%d.%d", rng.Intn(2), pick(1, 7, 66, 100)), AccelCount: g}
			if rng.Float64() < 0.1 {
				nodes[i].AccelCount = 8
			}
		}
		inv := &model.Inventory{Nodes: nodes, Source: "random"}
		so := CheckSlime(flags, "", Options{Inventory: inv})
		if so.Budget || so.IOError {
			t.Fatalf("%s: budget/io", flags)
		}
		// Expansion happens exactly when the solver accepts, and the plan
		// obeys the rules: every GPU once, port blocks disjoint and below
		// the ephemeral range.
		if so.Diagnostics.HasErrors() != (so.Plan == nil) {
			t.Fatalf("%s on %v: errors %v but plan %v", flags, nodes, so.Diagnostics, so.Plan != nil)
		}
		if so.Plan != nil {
			l := so.Plan.Layout
			seen := map[[2]int]bool{}
			for _, b := range l.Bundles {
				k := [2]int{b.Node, b.GPU}
				if seen[k] {
					t.Fatalf("%s: GPU %v twice", flags, k)
				}
				seen[k] = true
			}
			// Port blocks on one node never overlap and stay below 32768.
			byNode := map[int][][2]int{}
			for _, p := range l.Ports {
				if p.Last >= model.SlimeEphemeralFirst {
					t.Fatalf("%s: port %d", flags, p.Last)
				}
				for _, q := range byNode[p.Node] {
					if p.First <= q[1] && q[0] <= p.Last {
						t.Fatalf("%s: blocks overlap on node %d", flags, p.Node)
					}
				}
				byNode[p.Node] = append(byNode[p.Node], [2]int{p.First, p.Last})
			}
		}
	}
}

// FuzzCheckSlime: any flag string on a small inventory is checked without
// panicking, and a layout without errors has a plan.
func FuzzCheckSlime(f *testing.F) {
	for _, s := range []string{"--actor-num-nodes 2 --rollout-num-gpus 8 --rollout-num-gpus-per-engine 2", "--colocate", "--debug-rollout-only --rollout-num-gpus 3",
		"--rollout-num-gpus 16 --rollout-num-gpus-per-engine 16 --num-gpus-per-node 4", "--sglang-dp-size 1048576 --rollout-num-gpus 8"} {
		f.Add(s, uint8(2), uint8(4))
	}
	f.Fuzz(func(t *testing.T, flags string, n, g uint8) {
		inv := topology.Uniform(int(n%9), int(g%17), "fuzz")
		so := CheckSlime(flags, "", Options{Inventory: inv})
		if so.Diagnostics.HasErrors() == (so.Plan != nil) {
			t.Fatalf("%q: errors %v, plan %v", flags, so.Diagnostics.HasErrors(), so.Plan != nil)
		}
	})
}

// --sglang-config defines the engines in a file rlsolve does not read:
// the group and the actor are planned, with a note.
func TestSlimeSGLangConfig(t *testing.T) {
	so := CheckSlime("--actor-num-nodes 2 --colocate --sglang-config /tmp/x.yaml --rollout-num-gpus-per-engine 64", "", noInventory())
	if so.Failed() || so.Plan.Plan == nil || so.Plan.Layout.NumBundles != 16 || len(so.Plan.Layout.Engines) != 0 ||
		!slices.Contains(codes(so.Diagnostics), model.NoteSlimeSGLangConfig) {
		t.Fatalf("%v", so.Diagnostics)
	}
	so = CheckSlime("--colocate --sglang-config /tmp/x.yaml --prefill-num-servers 1", "", noInventory())
	if !so.Failed() || !slices.Contains(codes(so.Diagnostics), model.CodeSlimeGroups) {
		t.Errorf("with --prefill-num-servers: %v", so.Diagnostics)
	}
}

// --slime @FILE and @- read the command; the spans name the file.
func TestReadSlimeCommand(t *testing.T) {
	p := writeFile(t, "cmd.sh", "ray job submit -- python3 train.py \\\n  --actor-num-nodes x\n")
	text, src, d := grammar.ReadSlimeCommand("@"+p, nil, grammar.DefaultLimits)
	if d != nil || src != p || !strings.HasPrefix(text, "ray job") {
		t.Fatalf("%q %q %+v", text, src, d)
	}
	so := CheckSlime(text, "", Options{GPUsPerNode: -1, SlimeSource: src})
	if !so.Failed() || so.File != p || so.Diagnostics[0].Primary.File != p || so.Diagnostics[0].Primary.Line != 2 || so.Sources[p] == nil {
		t.Errorf("%+v", so.Diagnostics)
	}
	for _, arg := range []string{"@-", "-"} {
		text, src, d = grammar.ReadSlimeCommand(arg, strings.NewReader("--colocate"), grammar.DefaultLimits)
		if d != nil || src != "<stdin>" || text != "--colocate" {
			t.Errorf("%s: %q %q %+v", arg, text, src, d)
		}
	}
	if _, _, d := grammar.ReadSlimeCommand("@-", strings.NewReader(strings.Repeat("x", 100)), grammar.Limits{MaxStringBytes: 10}); d == nil || d.Code != model.CodeLimit {
		t.Errorf("long stdin: %+v", d)
	}
	if _, _, d := grammar.ReadSlimeCommand("@"+filepath.Join(t.TempDir(), "none"), nil, grammar.DefaultLimits); d == nil || d.Code != model.CodeFileRead {
		t.Errorf("missing file: %+v", d)
	}
	if text, src, d := grammar.ReadSlimeCommand("--colocate", nil, grammar.DefaultLimits); d != nil || src != grammar.SlimeSource || text != "--colocate" {
		t.Errorf("plain: %q %q", text, src)
	}
}
