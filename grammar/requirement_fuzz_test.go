package grammar

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// FuzzRequirement reads fuzzed component_placement bodies, where
// requirement mappings are: never a panic; every position a requirement
// keeps (what a write-back edits) and every RLS-E1102 points into the
// file; a key's position holds that key (not its anchor or tag) and its
// entry starts there or at the anchor or tag written before it; a
// placement kept beside a requirement is located in the file.
func FuzzRequirement(f *testing.F) {
	for _, s := range []string{
		"    actor:     {gpus: 16, node_group: a800}   # c\n    reward: {with: actor}\n",
		"    rollout: {gpus: 8, node_group: \"4090\", gpus_per_process: 2}\n    inference: {gpus: 4, apart_from: [actor, rollout]}\n",
		"    env:       {node_group: franka, processes: 2}\n    agent:     {node_group: node, processes: 50}\n",
		"    actor:\n      node_group: a800 # c\n      gpus: 16\n      apart_from:\n        - x\n        - 'y'\n",
		"    actor: {gpus: 16,\n            processes: 8,\n    }\n",
		"    actor: &a {gpus: 1, nodes: 2}\n    x: *a\n    y: {<<: *a, with: \"actor, x\"}\n",
		"    actor: {gpus: 0x10, gpus_per_process: 1_0, apart_from: \"a,,b\", with: []}\n",
		"    actor: {placement: 0-3, gpus: 4, zzz: 1}\n",
		"    actor: {placement: \"0-3\", gpus: 4}\n    reward:\n      placement: &p '0-3'\n      with: actor\n",
		"    \"actor,rollout\": {gpus: 8, apart_from: [\n      x]}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\r") {
			return // a lone CR breaks YAML lines, not rlsolve's: positions differ
		}
		src := "cluster:\n  num_nodes: 2\n  node_groups:\n    - {label: a800, node_ranks: 0}\n  component_placement:\n" + body
		lim := DefaultLimits
		lim.MaxNodes, lim.MaxStringBytes = 5000, 4096
		cfg, ds := LoadConfig("fuzz.yaml", []byte(src), lim)
		lines := strings.Split(src, "\n")
		for _, d := range ds {
			if d.Code != model.CodeRequirementInvalid {
				continue
			}
			for _, sp := range append([]model.Span{d.Primary}, labelSpans(d)...) {
				if !startsInFile(lines, sp) {
					t.Fatalf("%s points outside the file: %+v", d.Summary, sp)
				}
			}
		}
		if cfg == nil {
			return
		}
		for _, e := range cfg.Components {
			if e.Requirement != nil && e.Kept != nil {
				t.Fatalf("%v: both a requirement and a kept one", e.Names)
			}
			for _, r := range []*model.Requirement{e.Requirement, e.Kept} {
				if r != nil {
					checkRequirement(t, lines, r)
				}
			}
		}
	})
}

func checkRequirement(t *testing.T, lines []string, r *model.Requirement) {
	t.Helper()
	if !inFile(lines, r.Span) {
		t.Fatalf("requirement span %+v outside the file", r.Span)
	}
	if r.Placed.Known() && !inFile(lines, r.Placed) {
		t.Fatalf("the placement kept beside the requirement, %+v, is outside the file", r.Placed)
	}
	for _, k := range r.Keys {
		if !inFile(lines, k.At) || !inFile(lines, k.Full) {
			t.Fatalf("key %s at %+v / %+v outside the file", k.Key, k.At, k.Full)
		}
		if k.At.Line != k.Full.Line || k.At.Col < k.Full.Col || k.Full.EndLine < k.At.EndLine {
			t.Fatalf("key %s: entry %+v does not start at the key %+v", k.Key, k.Full, k.At)
		}
		// Before the key, on the entry, only its anchor and tag.
		if pre := lines[k.At.Line-1][k.Full.Col-1 : k.At.Col-1]; pre != "" && pre[0] != '&' && pre[0] != '!' {
			t.Fatalf("key %s: entry %+v starts at %q before the key %+v", k.Key, k.Full, pre, k.At)
		}
		if k.At.EndLine == k.At.Line {
			if text := strings.Trim(lines[k.At.Line-1][k.At.Col-1:k.At.EndCol-1], `"'`); text != k.Key {
				t.Fatalf("key %s: its position holds %q", k.Key, text)
			}
		}
	}
	refs := append([]model.NameRef{r.With}, r.ApartFrom...)
	for _, ref := range refs {
		if ref.Set() && !startsInFile(lines, ref.Span) {
			t.Fatalf("name %q at %+v outside the file", ref.Name, ref.Span)
		}
	}
}

func labelSpans(d model.Diagnostic) []model.Span {
	var out []model.Span
	for _, l := range d.Labels {
		out = append(out, l.Span)
	}
	return out
}

// inFile reports whether a span's start and end are positions of the file
// (an end may be just past a line's last character): what an edit needs.
func inFile(lines []string, sp model.Span) bool {
	return startsInFile(lines, sp) && (sp.EndLine > sp.Line || sp.EndCol >= sp.Col) && sp.EndCol <= len(lines[sp.EndLine-1])+1
}

// startsInFile reports whether a span starts at a position of the file
// and ends on one of its lines: what a diagnostic needs (an empty part is
// shown one character wide, which may go past its line).
func startsInFile(lines []string, sp model.Span) bool {
	return sp.Line >= 1 && sp.EndLine >= sp.Line && sp.EndLine <= len(lines) && sp.Col >= 1 && sp.Col <= len(lines[sp.Line-1])+1
}
