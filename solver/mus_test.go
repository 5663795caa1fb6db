package solver

import (
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Every reported conflict is a minimal unsatisfiable set of facts for its
// rule: (i) assuming exactly its facts (the others free) with only its
// rule active is UNSAT; (ii) dropping any one fact makes it SAT; (iii) no
// two conflicts are the same rule with the same facts. The configs are the
// rule-family cases of rules_test.go plus random ones.
//
// RLSOLVE_PROPTEST_SEED and RLSOLVE_PROPTEST_COUNT (see
// proptest/gopter_test.go) set the random configs' seed and number.

// musProblem compiles cfg as Check does, without solving.
func musProblem(cfg *model.Config, inv *model.Inventory, mp bool) *problem {
	p := newProblem(rules.Build(cfg, inv, rules.Options{Class: classOf(mp)}))
	for _, inst := range p.set.Rules {
		if inst.Check(rules.All) != nil {
			p.add(inst, nil)
		}
	}
	return p
}

// musAssume solves p with only rule ri active and exactly facts assumed:
// 1 SAT, -1 UNSAT.
func musAssume(t *testing.T, p *problem, ri int, facts []int) int {
	t.Helper()
	var assume []z.Lit
	for i, r := range p.rules {
		if i == ri {
			assume = append(assume, r.relax.Not())
		} else {
			assume = append(assume, r.relax)
		}
	}
	for _, f := range facts {
		assume = append(assume, p.sel[f])
	}
	res, err := p.try(assume, p.rules[ri:ri+1], cpuDeadlineIn(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// musCheck verifies the three properties on one config; it returns how
// many conflicts it checked.
func musCheck(t *testing.T, yaml string, cfg *model.Config, inv *model.Inventory, mp bool) int {
	t.Helper()
	solved := musProblem(cfg, inv, mp)
	conflicts, err := solved.solve(20, cpuDeadlineIn(10*time.Second))
	if err != nil {
		t.Fatalf("solve: %v\n%s", err, yaml)
	}
	// A fresh instance: solve() adds the found rules' relax literals as
	// unit clauses, which would make every check below trivially UNSAT.
	fresh := musProblem(cfg, inv, mp)
	seen := map[string]bool{}
	for _, c := range conflicts {
		ri := -1
		for i, r := range solved.rules {
			if r == c.rule {
				ri = i
			}
		}
		if ri < 0 || fresh.rules[ri].inst.Name != c.rule.inst.Name {
			t.Fatalf("rule %q not found in a fresh compile", c.rule.inst.Name)
		}
		what := func(fs []int) string {
			var out []string
			for _, f := range fs {
				out = append(out, fresh.set.Facts[f].What)
			}
			return strings.Join(out, "; ")
		}
		if got := musAssume(t, fresh, ri, c.facts); got != -1 {
			t.Errorf("not sufficient: rule %q with facts {%s} alone is SAT\n%s", c.rule.inst.Name, what(c.facts), yaml)
		}
		for k := range c.facts {
			rest := append(append([]int(nil), c.facts[:k]...), c.facts[k+1:]...)
			if got := musAssume(t, fresh, ri, rest); got != 1 {
				t.Errorf("not minimal: rule %q stays UNSAT without %q (facts {%s})\n%s", c.rule.inst.Name, fresh.set.Facts[c.facts[k]].What, what(c.facts), yaml)
			}
		}
		ids := append([]int(nil), c.facts...)
		sort.Ints(ids)
		key := fmt.Sprint(ri, ids)
		if seen[key] {
			t.Errorf("conflict reported twice: rule %q facts {%s}\n%s", c.rule.inst.Name, what(c.facts), yaml)
		}
		seen[key] = true
	}
	// Check reports the same conflicts, each with its facts as the primary
	// span and the labels.
	res, err := checkCfg(cfg, inv, mp, Options{NoFixes: true})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(res.Diagnostics) != len(conflicts) {
		t.Fatalf("Check gave %d diagnostics for %d conflicts\n%s", len(res.Diagnostics), len(conflicts), yaml)
	}
	shown := map[string]bool{}
	for _, d := range res.Diagnostics {
		key := fmt.Sprint(d.Code, d.Primary)
		for _, l := range d.Labels {
			key += " " + l.Span.String()
		}
		if shown[key] {
			t.Errorf("two diagnostics %s at %s with the same facts\n%s", d.Code, d.Primary, yaml)
		}
		shown[key] = true
	}
	for i, c := range conflicts {
		d := res.Diagnostics[i]
		if len(c.facts) == 0 {
			continue
		}
		// Labels beyond the facts are the violation's context (Extra),
		// spans it names that are no fact of the smallest set.
		extra := 0
		if v := c.rule.inst.Check(rules.All); v != nil {
			extra = len(v.Extra)
		}
		if n := len(d.Labels); n < len(c.facts)-1 || n > len(c.facts)-1+extra {
			t.Errorf("%s has %d labels for %d facts\n%s", d.Code, len(d.Labels), len(c.facts), yaml)
			continue
		}
		spans := map[model.Span]int{}
		for _, l := range d.Labels {
			spans[l.Span]++
		}
		primaryFound := false
		for _, f := range c.facts {
			sp := fresh.set.Facts[f].Span
			if spans[sp] > 0 {
				spans[sp]--
				continue
			}
			if !primaryFound && musWithin(d.Primary, sp) {
				primaryFound = true
				continue
			}
			t.Errorf("%s: fact %q (%s) is neither a label nor the primary %s\n%s", d.Code, fresh.set.Facts[f].What, sp, d.Primary, yaml)
		}
	}
	return len(conflicts)
}

// musWithin reports whether span a lies inside span b.
func musWithin(a, b model.Span) bool {
	before := func(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 <= c2 }
	return a.File == b.File && before(b.Line, b.Col, a.Line, a.Col) && before(a.EndLine, a.EndCol, b.EndLine, b.EndCol)
}

func TestConflictsAreMinimalTable(t *testing.T) {
	n := 0
	for _, c := range stCases {
		n += musCheck(t, c.yaml, stLoad(t, c.yaml), stInv(c.gpus...), c.mp)
	}
	if n < len(stCases) {
		t.Errorf("%d conflicts in %d cases", n, len(stCases))
	}
}

// musEnvInt reads an integer environment variable.
func musEnvInt(t *testing.T, name string, def int64) int64 {
	if s := os.Getenv(name); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", name, s, err)
		}
		return v
	}
	return def
}

// musRandom is a small random config: 1-3 nodes, up to two node groups
// (labels, env vars and robots drawn from small pools so that duplicates
// happen), 1-3 components of 1-3 parts, sometimes model-parallel.
func musRandom(r *rand.Rand) (string, []int, bool) {
	nodes := 1 + r.Intn(3)
	gpus := make([]int, nodes)
	total := 0
	for i := range gpus {
		gpus[i] = []int{4, 8, 2, 0}[r.Intn(4)]
		total += gpus[i]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n", nodes)
	mp := r.Intn(3) == 0
	if mp && r.Intn(6) == 0 {
		b.WriteString("  auto_scheduler: true\n")
	}
	labels := []string{"gpu", "arm", "cpu"}
	var groups []string
	if ng := r.Intn(3); ng > 0 {
		b.WriteString("  node_groups:\n")
		for g := 0; g < ng; g++ {
			l := labels[r.Intn(len(labels))]
			groups = append(groups, l)
			lo := r.Intn(nodes)
			hi := lo + r.Intn(nodes-lo)
			fmt.Fprintf(&b, "    - label: %s\n      node_ranks: \"%d-%d\"\n", l, lo, hi)
			if r.Intn(2) == 0 {
				b.WriteString("      env_configs:\n")
				for e := 0; e < 1+r.Intn(2); e++ {
					n := lo + r.Intn(hi-lo+1)
					fmt.Fprintf(&b, "        - node_ranks: \"%d\"\n          env_vars:\n            - %s: v%d\n", n, []string{"A", "B"}[r.Intn(2)], e)
				}
			}
			if r.Intn(4) == 0 {
				fmt.Fprintf(&b, "      hardware: {type: Franka, configs: [{node_rank: %d, robot_ip: 10.0.%d.1}]}\n", lo, g)
			}
		}
	}
	b.WriteString("  component_placement:\n")
	part := func(cursor int) (string, int) {
		start := cursor + []int{0, 0, 0, 1, -1}[r.Intn(5)]
		start = max(start, 0)
		w := 1 + r.Intn(max(total/2, 1)+1)
		s := fmt.Sprintf("%d-%d", start, start+w-1)
		switch r.Intn(5) {
		case 1:
			s += fmt.Sprintf(":0-%d", w*2-1)
		case 2:
			s += ":0"
		case 3:
			s += fmt.Sprintf(":0-%d", w)
		}
		return s, start + w
	}
	if mp {
		a := max(total/2, 1)
		switch r.Intn(3) {
		case 0:
			fmt.Fprintf(&b, "    actor,rollout: \"0-%d\"\n", a-1)
		case 1:
			fmt.Fprintf(&b, "    actor: \"0-%d\"\n    rollout: \"%d-%d\"\n", a-1, a, total-1)
		default:
			fmt.Fprintf(&b, "    actor: \"0-%d\"\n    rollout: \"%d-%d\"\n    inference: \"%d\"\n", a-1, a-1, total-2, total-1)
		}
		b.WriteString("    reward: \"0\"\n")
	}
	for c := 0; c < 1+r.Intn(3); c++ {
		var parts []string
		cursor := 0
		for k := 0; k < 1+r.Intn(3); k++ {
			p, next := part(cursor)
			parts = append(parts, p)
			cursor = next
		}
		pl := strings.Join(parts, ",")
		switch x := r.Intn(8); {
		case x == 0 && len(groups) > 0:
			fmt.Fprintf(&b, "    c%d: {node_group: %s, placement: %q}\n", c, groups[r.Intn(len(groups))], pl)
		case x == 1 && len(groups) > 0:
			fmt.Fprintf(&b, "    c%d: {node_group: %sx, placement: %q}\n", c, groups[0], pl)
		case x == 2:
			fmt.Fprintf(&b, "    c%d: {node_group: node, placement: %q}\n", c, pl)
		case x == 3 && len(groups) > 0:
			fmt.Fprintf(&b, "    c%d: {node_group: \"%s,node\", placement: %q}\n", c, groups[0], pl)
		default:
			fmt.Fprintf(&b, "    c%d: %q\n", c, pl)
		}
	}
	if mp {
		fmt.Fprintf(&b, "actor:\n  model:\n    tensor_model_parallel_size: %d\n", []int{1, 2, 4}[r.Intn(3)])
		fmt.Fprintf(&b, "rollout:\n  tensor_parallel_size: %d\n", []int{1, 2, 3}[r.Intn(3)])
		if r.Intn(3) == 0 {
			b.WriteString("algorithm:\n  recompute_logprobs: false\n")
		}
	}
	return b.String(), gpus, mp
}

func TestConflictsAreMinimalRandom(t *testing.T) {
	seed := musEnvInt(t, "RLSOLVE_PROPTEST_SEED", 20240601)
	count := int(musEnvInt(t, "RLSOLVE_PROPTEST_COUNT", 1000))
	r := rand.New(rand.NewSource(seed))
	conflicts, invalid := 0, 0
	for i := 0; i < count; i++ {
		yaml, gpus, mp := musRandom(r)
		cfg, _ := grammar.LoadConfig("r.yaml", []byte(yaml), grammar.DefaultLimits)
		if cfg == nil || cfg.NumNodes <= 0 {
			continue
		}
		n := musCheck(t, yaml, cfg, stInv(gpus...), mp)
		conflicts += n
		if n > 0 {
			invalid++
		}
		if t.Failed() {
			t.Fatalf("seed %d, case %d", seed, i)
		}
	}
	t.Logf("%d random configs (seed %d): %d with conflicts, %d conflicts checked", count, seed, invalid, conflicts)
	if invalid == 0 || invalid == count {
		t.Errorf("the random configs should be both valid and invalid (%d of %d invalid)", invalid, count)
	}
}
