package suggest

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// noCost says why the model has no cost for stage name on g GPUs, in the
// numbers of the rule, and where the setting it comes from is.
func (p *problem) noCost(name string, g int) (string, model.Span) {
	if p.em != nil {
		return p.em.noCost(name, g, p.spec)
	}
	return p.rm.noCost(name, g, p.spec)
}

func (m *rmodel) noCost(name string, g int, s *Spec) (string, model.Span) {
	w, mp, tp := m.wA, m.mpA, "actor.model.tensor_model_parallel_size"
	switch name {
	case "rollout":
		w, mp, tp = m.wR, m.mpR, "rollout.tensor_parallel_size"
	case "inference":
		w, mp, tp = m.wI, m.mpI, "inference.model.tensor_model_parallel_size"
	}
	switch {
	case g > w:
		return fmt.Sprintf("%s was profiled on %d GPUs, and the model gives no component more GPUs than it was profiled on", name, w), s.placedAt(name)
	case g%mp != 0:
		return fmt.Sprintf("%d GPUs are not whole model-parallel groups of the %s (%d GPUs each)", g, name, mp), s.at(tp)
	}
	in := m.in
	return fmt.Sprintf("%d GPUs make %d data-parallel replicas of the %s, and a minibatch of %d groups (rollout_batch_size %d / n_minibatches %d) does not split evenly over them",
		g, g/mp, name, in.RolloutBatch/in.Minibatches, in.RolloutBatch, in.Minibatches), s.at("data.rollout_batch_size")
}

func (m *emodel) noCost(name string, g int, s *Spec) (string, model.Span) {
	E := m.in.Envs
	envs := s.at("data.env_num")
	if _, ok := s.spans["data.env_num"]; !ok {
		envs = s.at("env.train.total_num_envs")
	}
	curve, most := "rollout_profile_data", m.in.Rollout.Max()
	if name == "env" {
		curve, most = "env_profile_data", m.in.Env.Max()
	}
	switch {
	case g > E:
		return fmt.Sprintf("%d GPUs for %d environments: %s gets at most one GPU per environment", g, E, name), envs
	case name == "env" && E%g != 0:
		return fmt.Sprintf("%d GPUs do not divide the %d environments (every env worker runs as many)", g, E), envs
	}
	return fmt.Sprintf("%d environments per GPU on %d GPUs is more than the largest load %s profiled (%d)", (E+g-1)/g, g, curve, most), s.at("profile_data")
}
