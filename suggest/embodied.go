package suggest

import "math"

// emodel is rlsolve's embodied model: every cost is seconds per
// iteration, in both modes (the toolkit mixes units, spec W4).
//
//   - env on g GPUs: f_env(E/g), g must divide E (each env worker runs the
//     same number of environments) and E/g must not exceed the largest
//     profiled load;
//   - rollout on g GPUs: f_roll(ceil(E/g)), the busiest worker's load, with
//     g <= E (never more rollout GPUs than environments, spec W5);
//   - collocated: env and rollout take turns on all N GPUs, then the actor:
//     f_env(E/N) + f_roll(E/N) + actor;
//   - hybrid: env on [0, g), rollout on [g, N), actor on all N. With the
//     envs split into S pipeline stages (rollout.pipeline_stage_num), env
//     and rollout overlap as the reasoning pipeline does: per chunk t/S, so
//     (t_env + t_roll)/S + (S-1)/S * max(t_env, t_roll) + actor. With S = 1
//     nothing overlaps and the sum is paid.
//
// Profiles are read by Profile.At: measured points, linear in between, no
// extrapolation (in particular never at zero envs).
type emodel struct {
	in *Embodied
	cl *Cluster
	N  int
	// env and roll are the per-iteration times on g GPUs (+Inf: none).
	env, roll []float64
}

func newEModel(in *Embodied, cl *Cluster) *emodel {
	N := cl.GPUs
	m := &emodel{in: in, cl: cl, N: N, env: make([]float64, N+1), roll: make([]float64, N+1)}
	E := in.Envs
	for g := 0; g <= N; g++ {
		m.env[g], m.roll[g] = inf, inf
		if g == 0 || g > E {
			continue
		}
		if E%g == 0 {
			if v, ok := in.Env.At(E / g); ok {
				m.env[g] = v
			}
		}
		if v, ok := in.Rollout.At((E + g - 1) / g); ok {
			m.roll[g] = v
		}
	}
	return m
}

func (m *emodel) collocatedCost() float64 {
	return m.env[m.N] + m.roll[m.N] + m.in.ActorCost
}

func (m *emodel) splitCost(te, tr float64) float64 {
	S := float64(max(m.in.Stages, 1))
	return (te+tr)/S + (S-1)/S*max(te, tr) + m.in.ActorCost
}

// search enumerates collocated and every env | rollout split; each
// process holds one GPU, so every layout passes the check.
func (m *emodel) search(top *topK) (costed, kept int) {
	if c := m.collocatedCost(); !math.IsInf(c, 1) {
		costed++
		kept++
		top.push(cand{cost: c, colloc: true})
	}
	for g := 1; g < m.N; g++ {
		te, tr := m.env[g], m.roll[m.N-g]
		if math.IsInf(te, 1) || math.IsInf(tr, 1) {
			continue
		}
		costed++
		kept++
		top.push(cand{cost: m.splitCost(te, tr), sizes: [3]int{g, m.N - g}})
	}
	return costed, kept
}

func (m *emodel) stageCosts(c cand) ([]string, []float64) {
	if c.colloc {
		return []string{"env", "rollout", "actor"}, []float64{m.env[m.N], m.roll[m.N], m.in.ActorCost}
	}
	return []string{"env", "rollout", "actor"}, []float64{m.env[c.sizes[0]], m.roll[c.sizes[1]], m.in.ActorCost}
}
