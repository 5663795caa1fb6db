package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// solveOn8 solves a config on an assumed cluster of 8-GPU nodes.
func solveOn8(file string, data []byte) *pipeline.Solved {
	return pipeline.Solve(file, data, pipeline.SolveOptions{Options: pipeline.Options{GPUsPerNode: 8}})
}

// TestSolveWriteBack solves each testdata/solve/NAME.yaml on 8-GPU nodes
// and compares the config written back with NAME.want.yaml (-update
// rewrites them; read the diff). Beside the golden it requires what the
// write-back promises whatever the case: the result checks; every input
// line that holds no requirement key is in the output, in order, byte for
// byte (but for a placement written into a flow mapping), and every other
// output line is a placement or node_group written; solving the output
// again gives it unchanged; and the same input with CRLF line endings
// gives the same output with CRLF.
func TestSolveWriteBack(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "solve", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range inputs {
		if strings.HasSuffix(in, ".want.yaml") {
			continue
		}
		n++
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			s := solveOn8("config.yaml", data)
			if s.Text == nil {
				t.Fatalf("nothing placed: %v", s.Diagnostics)
			}
			if s.Verified.Diagnostics.HasErrors() {
				t.Fatalf("the result does not check: %v", s.Verified.Diagnostics)
			}
			compareGolden(t, strings.TrimSuffix(in, ".yaml")+".want.yaml", s.Text)
			keptInOrder(t, data, s)
			// The requirements stay: the written file is solved again
			// to the same placements (issue 25 item 7).
			if again := solveOn8("config.yaml", s.Text); !bytes.Equal(again.Text, s.Text) {
				t.Errorf("solving the written file again:\n%s\nwant it unchanged (%v)", again.Text, again.Diagnostics)
			}

			crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
			c := solveOn8("config.yaml", crlf)
			if want := bytes.ReplaceAll(s.Text, []byte("\n"), []byte("\r\n")); !bytes.Equal(c.Text, want) {
				t.Errorf("with CRLF line endings:\n%q\nwant\n%q", c.Text, want)
			}
		})
	}
	if n < 3 {
		t.Fatalf("only %d cases under testdata/solve", n)
	}
}

// written and writtenGroup match what solve adds to a line: a placement
// (and the node group it chose) before a flow mapping's first key.
var (
	written      = regexp.MustCompile(`placement: "[^"]*", `)
	writtenGroup = regexp.MustCompile(`node_group: [^,{}]+, placement: "[^"]*", `)
)

// keptInOrder diffs the input and the output line by line: solve only
// adds, so every input line is in the output, in order, byte for byte,
// once the placements written into flow mappings are taken out; every
// other output line is a placement or node_group written.
func keptInOrder(t *testing.T, in []byte, s *pipeline.Solved) {
	t.Helper()
	inLines := strings.Split(string(in), "\n")
	next := 0
	for _, l := range strings.Split(string(s.Text), "\n") {
		switch trimmed := strings.TrimSpace(l); {
		case next < len(inLines) && (written.ReplaceAllString(l, "") == inLines[next] || writtenGroup.ReplaceAllString(l, "") == inLines[next]):
			next++
		case strings.HasPrefix(trimmed, "placement: \"") || strings.HasPrefix(trimmed, "node_group: "):
		default:
			t.Errorf("output line %q is neither kept from the input nor a placement written", l)
		}
	}
	if next < len(inLines) {
		t.Errorf("input line %q is missing from the output (or out of order)", inLines[next])
	}
}

// TestSolveRefusesLayouts: layouts solve cannot edit in place are refused
// with RLS-E1107 at the key concerned, and nothing is printed or written;
// RLinf facts that no placement can keep (a node_group model-parallel
// placement ignores) with RLS-E1104.
func TestSolveRefusesLayouts(t *testing.T) {
	const head = "cluster:\n  num_nodes: 4\n  node_groups:\n    - {label: a800, node_ranks: 0-1}\n  component_placement:\n"
	for _, c := range []struct {
		name, placement string
		line, col       int
		says            string
		code            string
	}{
		{"one mapping for two components", "    actor: &a {gpus: 8}\n    x: *a\n", 7, 5, "x's requirement is the mapping of actor (a YAML alias)", model.CodeWriteBackLayout},
		{"model-parallel ignores node_group", "    actor: {gpus: 8, node_group: a800}\n    rollout: {with: actor}\n    reward: {with: actor}\nrunner:\n  task_type: reasoning\n", 6, 34, "ModelParallelComponentPlacement ignores node_group", model.CodeRequirementConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := solveOn8("c.yaml", []byte(head+c.placement))
			if s.Text != nil {
				t.Fatalf("written anyway:\n%s", s.Text)
			}
			var got *model.Diagnostic
			for i := range s.Diagnostics {
				if d := &s.Diagnostics[i]; d.Severity == model.SeverityError && got == nil {
					got = d
				}
			}
			if got == nil || got.Code != c.code || !strings.Contains(got.Summary, c.says) {
				t.Fatalf("want %s saying %q, got %v", c.code, c.says, s.Diagnostics)
			}
			if got.Primary.Line != c.line || got.Primary.Col != c.col {
				t.Errorf("at %d:%d, want %d:%d", got.Primary.Line, got.Primary.Col, c.line, c.col)
			}
		})
	}
}

// TestSolveWritesAnyLayout: layouts a write-back that replaced the
// requirement had to refuse (keys sharing lines of a flow mapping over
// several lines, flow lists over lines, an anchor) take the placement
// before their first key, and the result checks and places alike again.
func TestSolveWritesAnyLayout(t *testing.T) {
	const head = "cluster:\n  num_nodes: 4\n  node_groups:\n    - {label: a800, node_ranks: 0-1}\n  component_placement:\n"
	for _, c := range []struct{ name, placement, want string }{
		{"two keys on a line of a flow mapping over lines", "    actor: {gpus: 16, processes: 16,\n            node_group: a800}\n",
			"    actor: {placement: \"0-15\", gpus: 16, processes: 16,\n            node_group: a800}\n"},
		{"a key before the closing brace", "    actor: {node_group: a800,\n            gpus: 16,\n            processes: 16}\n",
			"    actor: {node_group: a800,\n            placement: \"0-15\", gpus: 16,\n            processes: 16}\n"},
		{"a flow list over lines", "    actor:\n      apart_from: [\n        x]\n      gpus: 16\n    x: {gpus: 1}\n",
			"    actor:\n      placement: \"0-15\"\n      apart_from: [\n        x]\n      gpus: 16\n    x: {placement: \"16\", gpus: 1}\n"},
		{"an anchor on a one-line node_group", "    actor: {gpus: 8, node_group: &g a800}\n    x: {gpus: 2, node_group: *g}\n",
			"    actor: {placement: \"0-7\", gpus: 8, node_group: &g a800}\n    x: {placement: \"8-9\", gpus: 2, node_group: *g}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := solveOn8("c.yaml", []byte(head+c.placement))
			if string(s.Text) != head+c.want {
				t.Fatalf("got\n%s\nwant\n%s%s(%v)", s.Text, head, c.want, s.Diagnostics)
			}
			if again := solveOn8("c.yaml", s.Text); !bytes.Equal(again.Text, s.Text) {
				t.Errorf("solved again:\n%s\n(%v)", again.Text, again.Diagnostics)
			}
		})
	}
}

// TestSolveUnitsOfSeveralNames: an entry naming two model-parallel
// components takes devices in whole processes of both TP sizes.
func TestSolveUnitsOfSeveralNames(t *testing.T) {
	src := "cluster:\n  num_nodes: 2\n  component_placement:\n    actor,rollout: {gpus: %d}\n    reward: {gpus: 2}\n" +
		"runner:\n  task_type: reasoning\nactor:\n  model:\n    tensor_model_parallel_size: 4\nrollout:\n  tensor_parallel_size: 2\n"
	s := solveOn8("c.yaml", []byte(strings.Replace(src, "%d", "6", 1)))
	if s.Text != nil || len(s.Diagnostics) == 0 || s.Diagnostics[0].Code != model.CodeRequirementConflict || !strings.Contains(s.Diagnostics[0].Summary, "whole processes of 4") {
		t.Errorf("6 GPUs for actor TP 4: want RLS-E1104 (whole processes of 4), got %v", s.Diagnostics)
	}
	s = solveOn8("c.yaml", []byte(strings.Replace(src, "%d", "12", 1)))
	if s.Text == nil || s.Verified.Diagnostics.HasErrors() {
		t.Fatalf("12 GPUs: want a placement check accepts, got %v", s.Diagnostics)
	}
	if !bytes.Contains(s.Text, []byte(`actor,rollout: {placement: "0-11", gpus: 12}`)) {
		t.Errorf("12 GPUs: got\n%s", s.Text)
	}
}

// TestSolveLastLine: a requirement on the file's last line, which has no
// line ending, keeps it so; the placement goes on a line before it.
func TestSolveLastLine(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n"} {
		in := strings.ReplaceAll("cluster:\n  num_nodes: 1\n  component_placement:\n    actor:\n      gpus: 4 # four\n      processes: 2", "\n", eol)
		want := strings.ReplaceAll("cluster:\n  num_nodes: 1\n  component_placement:\n    actor:\n      placement: \"0-3:0-1\"\n      gpus: 4 # four\n      processes: 2", "\n", eol)
		if s := solveOn8("c.yaml", []byte(in)); string(s.Text) != want {
			t.Errorf("%q:\n%q\nwant\n%q (%v)", eol, s.Text, want, s.Diagnostics)
		}
	}
}

// TestSolveRefusesBeforePlacing: what no choice of devices can make valid
// (processes whole nodes cannot share) or what solve does not place (a
// multi-agent run) is refused before placing, not placed and then refused
// by the verifying check (RLinf's assertions about a model-parallel
// config's components: TestSolveMPAssertions).
func TestSolveRefusesBeforePlacing(t *testing.T) {
	const mp = "runner:\n  task_type: reasoning\nactor:\n  model:\n    tensor_model_parallel_size: 2\nrollout:\n  tensor_parallel_size: 2\n"
	const judge = "rollout_judge:\n  tensor_parallel_size: 2\n"
	head := func(n int) string {
		return "cluster:\n  num_nodes: " + strconv.Itoa(n) + "\n  component_placement:\n"
	}
	for _, c := range []struct {
		name, src, code, says string
	}{
		{"a multi-agent engine on part of the actor's GPUs", head(2) + "    actor: {gpus: 4}\n    rollout: {with: actor}\n    reward: {with: actor}\n    rollout_judge: {gpus: 2}\n" + mp + judge, model.CodeRequirementConflict, "rollout_judge: MultiAgentModelParallelComponentPlacement runs each rollout engine on a part of the actor's GPUs"},
		{"a multi-agent reward on GPUs of its own", head(2) + "    actor: {gpus: 4}\n    rollout: {with: actor}\n    reward: {gpus: 4}\n    rollout_judge: {with: actor}\n" + mp + judge, model.CodeRequirementConflict, "puts reward on the actor's GPUs; write `with: actor`"},
		{"a placed multi-agent engine in a required actor", head(2) + "    actor: {gpus: 8}\n    rollout: {with: actor}\n    reward: {with: actor}\n    rollout_judge: 4-7\n" + mp + judge, model.CodeRequirementConflict, "rollout_judge is placed on the actor's GPUs"},
		{"processes uneven over nodes", head(2) + "    actor:\n      nodes: 2\n      processes: 3\n", model.CodeRequirementConflict, "3 processes cannot be spread evenly over 2 nodes"},
		{"processes uneven over a node's GPUs", head(2) + "    actor:\n      nodes: 2\n      processes: 6\n", model.CodeRequirementConflict, "3 processes a node cannot be spread evenly over node 0's 8 GPUs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := solveOn8("c.yaml", []byte(c.src))
			if s.Text != nil || s.Internal {
				t.Fatalf("placed or internal: %v\n%s", s.Diagnostics, s.Text)
			}
			if len(s.Diagnostics) == 0 || s.Diagnostics[0].Code != c.code || !strings.Contains(s.Diagnostics[0].Summary, c.says) {
				t.Fatalf("want %s saying %q first, got %v", c.code, c.says, s.Diagnostics)
			}
		})
	}
	// The same shapes that hold are placed.
	for _, src := range []string{
		head(2) + "    actor: {gpus: 8}\n    rollout: {with: actor}\n    reward: {with: actor}\n    rollout_judge: {with: actor}\n" + mp + judge,
		head(1) + "    actor: all\n    reward: {with: actor}\n    rollout: 0-3\n    rollout_judge: 4-7\n" + mp + judge,
		head(2) + "    actor: {gpus: 8}\n    rollout: {gpus: 4}\n    reward: {with: actor}\n    inference: {gpus: 2}\n" + mp,
		head(2) + "    actor:\n      nodes: 2\n      processes: 4\n",
	} {
		if s := solveOn8("c.yaml", []byte(src)); s.Text == nil {
			t.Errorf("not placed: %v\n%s", s.Diagnostics, src)
		}
	}
}

// TestSolveLoneCR: a carriage return alone ends a line for YAML but not
// for positions; solve refuses to edit such a file rather than guess.
func TestSolveLoneCR(t *testing.T) {
	s := solveOn8("c.yaml", []byte("cluster:\n  num_nodes: 1 # one\r  component_placement:\n    actor: {gpus: 8}\n"))
	if s.Text != nil || s.Internal || len(s.Diagnostics) == 0 || !strings.Contains(s.Diagnostics[0].Summary, "carriage return alone") {
		t.Fatalf("want RLS-E1107 about the lone CR, got %v\n%s", s.Diagnostics, s.Text)
	}
}
