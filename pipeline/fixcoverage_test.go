package pipeline_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// Why an error code has no fix: the reasons, shared by several codes.
const (
	whyChoice     = "the value it needs is the user's choice, which no edit of the config can know"
	whyMachine    = "the inventory describes the machines; rlsolve does not edit what they are"
	whyNotConfig  = "it is not about the config's text: there is nothing to edit"
	whyWhich      = "two settings disagree and which one is meant is unknown"
	whyComposeArg = "the composition the defaults list means is unknown"
)

// noFix lists every error code that has no fix, with the reason none can
// exist (or none rlsolve can write safely). Every other error code must
// show a fix with edits on some input of the corpora (TestFixCoverage).
var noFix = map[string]string{
	model.CodeSlimeScript:         "the script's text is the user's: what it should run instead (a variable's value, a file it reads) is theirs to give",
	model.CodeSlimeSGLangFile:     "the engine groups' file is the user's: its content or place is theirs to choose",
	model.CodeYAMLSyntax:          "the text is not YAML: the structure meant is unknown (a tab in the indentation is named in the message)",
	model.CodeDuplicateKey:        whyWhich + ": which of the key's two values is meant",
	model.CodeMissingField:        whyChoice + " (num_nodes, node_ranks, a label)",
	model.CodeLimit:               "the input is larger than rlsolve reads; no edit makes it what the user meant",
	model.CodeInvalidValue:        whyChoice + " (a positive num_nodes, a robot's real IP)",
	model.CodeUnresolvedInterp:    "the key or variable it refers to is missing, and with it the value",
	model.CodeFileRead:            whyNotConfig + " (an I/O failure)",
	model.CodeProcessLimit:        "rlsolve's own expansion limit: the config may well be what the user meant",
	model.CodeSolverBudget:        whyNotConfig + " (the solver's time ran out; nothing is known to be wrong)",
	model.CodeInternal:            whyNotConfig + " (a bug in rlsolve)",
	model.CodeDefaultsEntry:       whyComposeArg,
	model.CodeDefaultsNotFound:    whyComposeArg + ": the config it names may be missing from disk",
	model.CodeDefaultsConflict:    whyWhich + ": which of the composition's choices is meant",
	model.CodeOverride:            "the override is on the command line, which --fix cannot edit",
	model.CodeMandatoryMissing:    whyChoice + " (OmegaConf's `???`)",
	model.CodeRankSyntax:          whyChoice + ": the ranks meant",
	model.CodeResourceOrder:       "reordering the parts renumbers their processes; which order is meant is unknown",
	model.CodeEmptyRanks:          whyChoice + ": the missing ranks",
	model.CodeProcessAll:          whyChoice + ": how many processes `all` was to be",
	model.CodeNodeRanksRange:      whyWhich + ": the group's nodes or num_nodes",
	model.CodeReservedLabel:       "a new label changes what every node_group naming it means",
	model.CodeHardwareNodeOutside: whyChoice + ": the robot's node",
	model.CodeHardwareConflict:    whyWhich + ": which group owns the robot",
	model.CodeHardwareDuplicate:   "the copy is a robot config over several lines; rlsolve edits values and one-line items only",
	model.CodeHardwareExclusive:   whyWhich + ": hardware, or hardware_type/ignore_hardware",
	model.CodeMixedHardware:       whyChoice + ": the groups a process should use",
	model.CodeGroupsOverlap:       whyWhich + ": which group the shared node belongs to",
	model.CodeNeedsHardware:       whyChoice + ": which group has the hardware the strategy needs",
	model.CodeNoHardware:          whyChoice + ": which group has the hardware",
	model.CodeProcessHardwareDup:  whyWhich + ": whether the groups share the node by design",
	model.CodePackedDivisible:     whyChoice + ": the engine size or the GPU count, and with them the model's sharding (an actor's size has RLS-E0514's ranges)",
	model.CodeMixedTypedUntyped:   whyChoice + ": which kind of group the component means",
	model.CodeOneProcessOneNode:   whyChoice + ": how many processes are meant",
	model.CodeEmptyGroup:          whyChoice + ": the group's nodes",
	model.CodeMPMissing:           whyChoice + ": the missing component's GPUs (when the class is wrong, --mode hybrid is a flag, not an edit)",
	model.CodeMPNotContiguous:     whyChoice + ": which GPUs the component gives up",
	model.CodeMPCollocatedExtra:   whyChoice + ": drop the inference GPUs, or move the rollout apart",
	model.CodeMPAutoOrder:         whyChoice + ": every component's GPUs move",
	model.CodeMPSizes:             whyChoice + ": the GPU count or TP x PP, the model's sharding",
	model.CodeMAActorReward:       whyWhich + ": the actor's GPUs or the reward's",
	model.CodeMARolloutSubset:     whyWhich + ": the rollout's GPUs or the actor's",
	model.CodeMAExclusive:         whyWhich + ": which component gives up the shared GPUs",
	model.CodeMAExtraEngine:       whyChoice + ": the extra engine's section and sizes",
	model.CodeInventoryNodes:      whyMachine + "; lowering num_nodes changes the run",
	model.CodeInventoryInvalid:    whyMachine,
	model.CodeInventoryDuplicate:  whyMachine,
	model.CodeInventoryRankMix:    whyMachine,
	model.CodeInventoryDevices:    whyMachine,
	model.CodeSlimeValue:          whyChoice + ": the number the flag (or the shell variable) holds",
	model.CodeSlimeMissing:        whyChoice + ": how many GPUs the rollout gets",
	model.CodeSlimePortOverlap:    whyMachine + " (two nodes with one address)",
	model.CodeSuggestProfile:      "profile data are measurements, not choices",
	model.CodeSuggestBatch:        whyChoice + ": the batch and environment settings the cost model reads",
	model.CodeSuggestNone:         "no placement exists: there is nothing to edit towards",
	model.CodeSuggestProfiled:     "the profiled placement is a measurement",
	model.CodeLaunchNoHost:        whyMachine + " (Slurm host names)",
	model.CodeLaunchRayNodes:      whyMachine + " (the live Ray cluster)",
	model.CodeMemoryState:         whyChoice + ": the model, its sharding or the GPU",
	model.CodeMemoryFractions:     whyChoice + ": which engine's fraction shrinks",
	model.CodeMemoryInput:         "a model config.json or memory profile is a file rlsolve reads, not writes",
	model.CodePlanDocument:        whyNotConfig + " (a plan document read back by plan --diff or solve --from)",
	model.CodeNeedsSolve:          "the way out is a command, `rlsolve solve`, which writes the placements",
	model.CodeRequirementInvalid:  whyWhich + ": which of the requirement's keys is meant",
	model.CodeRequirementConflict: whyWhich + ": which of the requirements is meant",
	model.CodeSolvedRefused:       "the errors that come with it say what to change; solve's own placement is not the user's text",
	model.CodeWriteBackLayout:     whyChoice + ": how to lay the requirement out again",
	model.CodeUnplaceable:         "solve's, not check's: its fixes (a smaller count, another node group) are verified by solving again and tested in solver",
	model.CodeUnknownNode:         "a command-line flag, not the config, is wrong",
}

// slimeFixInputs exercise the slime rules' fixes, which need flags and an
// inventory that the explain examples do not give.
var slimeFixInputs = []struct{ flags, inv string }{
	{"--actor-num-node 2 --rollout-num-gpus 8", ""},
	{"--debug-train-only --debug-rollout-only --rollout-num-gpus 8", ""},
	{"--actor-num-nodes 1 --actor-num-gpus-per-node 8 --rollout-num-gpus 16", "nodes:\n  - ranks: 0-1\n    accelerators: {count: 8}\n"},
	{"--debug-rollout-only --rollout-num-gpus 6 --rollout-num-gpus-per-engine 4", ""},
	{"--debug-rollout-only --rollout-num-gpus 12 --rollout-num-gpus-per-engine 6", "nodes:\n  - ranks: 0-1\n    accelerators: {count: 8}\n"},
	{"--debug-rollout-only --rollout-num-gpus 8 --rollout-num-gpus-per-engine 8", "nodes:\n  - ranks: 0-1\n    accelerators: {count: 4}\n"},
	{"--debug-rollout-only --rollout-num-gpus 8 --rollout-num-gpus-per-engine 4 --prefill-num-servers 2", ""},
	{"--debug-rollout-only --rollout-num-gpus 8 --rollout-num-gpus-per-engine 4 --sglang-dp-size 9000", ""},
}

// TestFixCoverage: every error code either shows a fix with edits on some
// input (the goldens, the examples, every explain example, the fuzz
// corpora, slime flag strings), or is listed in noFix with the reason
// none can exist; and none that is listed shows one.
func TestFixCoverage(t *testing.T) {
	ins := fixInputs(t)
	for _, s := range slimeFixInputs {
		in := fixInput{name: grammar.SlimeSource, text: []byte(s.flags), slime: true}
		if s.inv != "" {
			inv, ds := grammar.LoadInventory("inventory.yaml", []byte(s.inv), grammar.DefaultLimits)
			if inv == nil || ds.HasErrors() {
				t.Fatalf("inventory %q: %v", s.inv, ds)
			}
			in.inv = inv
		}
		ins = append(ins, in)
	}
	withFix := map[string]bool{}
	for _, in := range ins {
		for _, d := range in.check(in.text) {
			for _, f := range d.Help {
				if d.Severity == model.SeverityError && len(f.Edits) > 0 {
					withFix[d.Code] = true
				}
			}
		}
	}
	var fixed, missing []string
	for _, e := range diag.Codes() {
		if !strings.HasPrefix(e.Code, "RLS-E") {
			continue
		}
		why, listed := noFix[e.Code]
		switch {
		case listed && why == "":
			t.Errorf("%s: listed without a reason", e.Code)
		case listed && withFix[e.Code]:
			t.Errorf("%s (%s) is listed as having no fix, but shows one: take it off the list", e.Code, e.Title)
		case !listed && !withFix[e.Code]:
			missing = append(missing, e.Code+" ("+e.Title+")")
		case !listed:
			fixed = append(fixed, e.Code)
		}
	}
	for code := range noFix {
		if _, ok := diag.Explain(code); !ok {
			t.Errorf("%s is listed but is no code", code)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("error codes with no fix on any input and no reason in noFix:\n  %s", strings.Join(missing, "\n  "))
	}
	t.Logf("%d error codes show fixes: %s; %d have none, each with its reason", len(fixed), strings.Join(fixed, " "), len(noFix))
}
