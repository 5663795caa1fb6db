package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// ClassChoice is the placement class of a run and why.
type ClassChoice struct {
	Class model.PlacementClass
	// Why names what the config says that decided it.
	Why string
	// At is the key that decided it (the cluster section when none did).
	At model.Span
}

// wideseekData is the dataset type of the WideSeek-R1 (multi-agent) runs.
const wideseekData = "wideseek_r1"

// hybridTasks are the task types of the entry points that use
// HybridComponentPlacement: embodied training and evaluation, SFT (Megatron
// SFT with TP sizes included), reward-model training, offline RL.
var hybridTasks = []string{"embodied", "embodied_eval", "sft", "offline", "reward", "offline_rl"}

// Class infers the placement class from what the config says of its run
// (semantics §10): RLinf picks the class in each entry point, and each
// entry point's configs say which they are.
func Class(cfg *model.Config) ClassChoice {
	run := &cfg.Run
	task := run.TaskType.Value
	multi, multiWhy := multiAgent(cfg)
	switch {
	case run.DataEpisodes.Set:
		return ClassChoice{model.ClassBase, "runner.num_data_episodes: a data-collection run", run.DataEpisodes.Span}
	case task == "reasoning_eval" && multi:
		return ClassChoice{model.ClassMultiAgentEval, "runner.task_type: reasoning_eval, and " + multiWhy, run.TaskType.Span}
	case task == "reasoning_eval":
		return ClassChoice{model.ClassModelParallelEval, "runner.task_type: reasoning_eval", run.TaskType.Span}
	case (task == "reasoning" || task == "coding_online_rl") && multi:
		return ClassChoice{model.ClassMultiAgent, fmt.Sprintf("runner.task_type: %s, and %s", task, multiWhy), run.TaskType.Span}
	case task == "reasoning" || task == "coding_online_rl":
		return ClassChoice{model.ClassModelParallel, "runner.task_type: " + task, run.TaskType.Span}
	case slices.Contains(hybridTasks, task):
		return ClassChoice{model.ClassHybrid, "runner.task_type: " + task, run.TaskType.Span}
	case run.TaskType.Set:
		return ClassChoice{model.ClassHybrid, fmt.Sprintf("runner.task_type: %s is not a reasoning run", task), run.TaskType.Span}
	case multi:
		return ClassChoice{model.ClassMultiAgent, "no runner.task_type, and " + multiWhy, cfg.ComponentsSpan}
	case cfg.ModelParallel.Present:
		at := cfg.ModelParallel.ActorTP.Span
		if !cfg.ModelParallel.ActorTP.Set {
			at = cfg.ModelParallel.RolloutTP.Span
		}
		return ClassChoice{model.ClassModelParallel, "no runner.task_type, and the config sets TP sizes", at}
	}
	return ClassChoice{model.ClassHybrid, "no runner.task_type and no TP sizes", cfg.ClusterSpan}
}

// multiAgent says whether a reasoning config is one of the multi-agent
// (wideseek) runs: an agentloop workflow, wideseek's dataset (its eval
// configs name no workflow; wideseek's eval.py still uses the multi-agent
// class), or extra rollout engines.
func multiAgent(cfg *model.Config) (bool, string) {
	if w := cfg.Run.Workflow; w.Set {
		return true, fmt.Sprintf("agentloop.workflow: %s (a multi-agent run)", w.Value)
	}
	if t := cfg.Run.DataType; t.Value == wideseekData {
		return true, fmt.Sprintf("data.type: %s (run by wideseek's multi-agent entry points)", t.Value)
	}
	for _, e := range cfg.Components {
		for _, n := range e.Names {
			if strings.HasPrefix(n, "rollout_") {
				return true, fmt.Sprintf("component %s (an extra rollout engine of a multi-agent run)", n)
			}
		}
	}
	return false, ""
}

// ClassNote is the note that names the class and why.
func ClassNote(c ClassChoice) model.Diagnostic {
	return model.Diagnostic{Code: model.NoteClass, Severity: model.SeverityNote, Primary: c.At, PrimaryLabel: "decides the class",
		Summary: fmt.Sprintf("placement class: %s (%s); --mode overrides it", c.Class.RLinfClass(), c.Why)}
}
