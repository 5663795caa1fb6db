package suggest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// What `rlsolve suggest` prints: the notes on stderr, then the
// suggestions as text, or as a document (JSON or YAML).

// WriteNotes writes the notes and warnings of a run as text.
func WriteNotes(w io.Writer, spec *Spec, notes []string) {
	for _, n := range Notes(spec, notes) {
		fmt.Fprintln(w, "note: "+n)
	}
	for _, n := range spec.Warnings {
		fmt.Fprintln(w, "warning: "+n)
	}
}

// Notes are spec's notes, the cluster's (notes) and what a missing
// profile means for the ranking.
func Notes(spec *Spec, notes []string) []string {
	out := append(append([]string(nil), spec.Notes...), notes...)
	if spec.ProfileSource == SourceDefault {
		if spec.Task == TaskEmbodied {
			out = append(out, "no profile_data: default curves (env and rollout 1 s per env per GPU, actor 1 s); the ranking only shows the shape of the trade-off")
		} else {
			out = append(out, "no profile_data: ranked with balanced costs (actor, rollout and inference 1 s per step each, profiled on all GPUs); pass --profile or add profile_data for real numbers")
		}
	}
	return out
}

// placementDoc keeps component_placement in placement order in JSON and
// YAML.
type placementDoc []Entry

func (p placementDoc) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.Key)
		v, _ := json.Marshal(e.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (p placementDoc) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range p {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e.Key},
			&yaml.Node{Kind: yaml.ScalarNode, Value: e.Value, Style: yaml.DoubleQuotedStyle})
	}
	return n, nil
}

type stageDoc struct {
	Name  string  `json:"name" yaml:"name"`
	GPUs  int     `json:"gpus" yaml:"gpus"`
	First int     `json:"first" yaml:"first"`
	Last  int     `json:"last" yaml:"last"`
	Cost  float64 `json:"cost" yaml:"cost"`
}

type suggestionDoc struct {
	Rank               int          `json:"rank" yaml:"rank"`
	Mode               string       `json:"mode" yaml:"mode"`
	TotalCost          float64      `json:"total_cost" yaml:"total_cost"`
	ComponentPlacement placementDoc `json:"component_placement" yaml:"component_placement"`
	NumNodes           int          `json:"num_nodes" yaml:"num_nodes"`
	Stages             []stageDoc   `json:"stages" yaml:"stages"`
	Bottleneck         string       `json:"bottleneck,omitempty" yaml:"bottleneck,omitempty"`
	Formula            string       `json:"formula" yaml:"formula"`
	Checked            bool         `json:"checked" yaml:"checked"`
}

// refusalDoc is a mode without a suggestion and the diagnostic that says
// why, in check's JSON form.
type refusalDoc struct {
	Mode       string              `json:"mode"`
	Diagnostic diag.JSONDiagnostic `json:"diagnostic"`
}

// MarshalYAML writes the refusal under its JSON names, in their order:
// JSON is YAML, read back as block style.
func (r refusalDoc) MarshalYAML() (any, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	blockStyle(&doc)
	return doc.Content[0], nil
}

func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// Document is a run's suggestions as `--output json|yaml` writes them.
type Document struct {
	FormatVersion  string          `json:"format_version" yaml:"format_version"`
	Task           string          `json:"task" yaml:"task"`
	GPUs           int             `json:"gpus" yaml:"gpus"`
	Nodes          []int           `json:"nodes" yaml:"nodes,flow"`
	ProfileSource  string          `json:"profile_source" yaml:"profile_source"`
	CostUnit       string          `json:"cost_unit" yaml:"cost_unit"`
	StageCostUnit  string          `json:"stage_cost_unit" yaml:"stage_cost_unit"`
	CollocatedCost *float64        `json:"collocated_cost" yaml:"collocated_cost"`
	BestSplitCost  *float64        `json:"best_split_cost" yaml:"best_split_cost"`
	Priced         int             `json:"layouts_priced" yaml:"layouts_priced"`
	Valid          int             `json:"layouts_valid" yaml:"layouts_valid"`
	Suggestions    []suggestionDoc `json:"suggestions" yaml:"suggestions"`
	// Unchanged is true when the best suggestion is the config's own
	// layout; Refused says why each mode without a suggestion has none.
	Unchanged bool         `json:"unchanged" yaml:"unchanged"`
	Refused   []refusalDoc `json:"refused" yaml:"refused"`
	Notes     []string     `json:"notes" yaml:"notes"`
	Warnings  []string     `json:"warnings" yaml:"warnings"`
}

func optFloat(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func stageUnit(task string) string {
	if task == TaskEmbodied {
		return "seconds per iteration"
	}
	return "seconds per prompt group (profiled cost / rollout_batch_size, scaled to the stage's GPUs)"
}

// NewDocument is the document of res.
func NewDocument(res *Result, spec *Spec, notes []string) Document {
	d := Document{FormatVersion: "1", Task: res.Task, GPUs: res.GPUs, Nodes: res.NodeSizes, ProfileSource: res.ProfileSource,
		CostUnit: "modeled seconds per iteration", StageCostUnit: stageUnit(res.Task),
		CollocatedCost: optFloat(res.CollocatedCost), BestSplitCost: optFloat(res.BestSplitCost),
		Priced: res.Costed, Valid: res.Valid, Notes: Notes(spec, notes), Warnings: spec.Warnings}
	if d.Notes == nil {
		d.Notes = []string{}
	}
	if d.Warnings == nil {
		d.Warnings = []string{}
	}
	d.Unchanged = res.Unchanged
	d.Refused = []refusalDoc{}
	for _, r := range res.Refusals {
		d.Refused = append(d.Refused, refusalDoc{Mode: r.Mode, Diagnostic: diag.JSON([]model.Diagnostic{r.Diagnostic})[0]})
	}
	for i, s := range res.Suggestions {
		sd := suggestionDoc{Rank: i + 1, Mode: s.Mode, TotalCost: s.TotalCost, ComponentPlacement: placementDoc(s.Placement),
			NumNodes: s.NumNodes, Bottleneck: s.Bottleneck, Formula: s.Formula, Checked: true}
		for _, st := range s.Stages {
			sd.Stages = append(sd.Stages, stageDoc(st))
		}
		d.Suggestions = append(d.Suggestions, sd)
	}
	return d
}

// JSON is the document as indented JSON.
func (d Document) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	err := enc.Encode(d)
	return b.Bytes(), err
}

// YAML is the document as YAML.
func (d Document) YAML() ([]byte, error) { return yaml.Marshal(d) }

func nodesText(sizes []int) string {
	same := true
	for _, s := range sizes {
		same = same && s == sizes[0]
	}
	if same && len(sizes) == 1 {
		return fmt.Sprintf("1 node of %d GPUs", sizes[0])
	}
	if same && len(sizes) > 0 {
		return fmt.Sprintf("%d nodes x %d GPUs", len(sizes), sizes[0])
	}
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = strconv.Itoa(s)
	}
	return "nodes of " + strings.Join(parts, "+") + " GPUs"
}

// WriteText writes the suggestions as text: a table per suggestion and its
// pasteable cluster section.
func WriteText(w io.Writer, res *Result) {
	fmt.Fprintf(w, "%s placements for %d GPUs (%s), costs from %s\n", res.Task, res.GPUs, nodesText(res.NodeSizes), res.ProfileSource)
	fmt.Fprintf(w, "%d layouts priced, %d valid; each suggestion re-checked with rlsolve check\n", res.Costed, res.Valid)
	unit := "s/group"
	if res.Task == TaskEmbodied {
		unit = "s/iter"
	} else {
		fmt.Fprintf(w, "s/group: a stage's modeled seconds per prompt group on its GPUs\n")
	}
	writeRefusals(w, res)
	for i, s := range res.Suggestions {
		current := i == 0 && res.Unchanged
		mark := ""
		if current {
			mark = ", the file's layout"
		}
		fmt.Fprintf(w, "\n#%d  %s, %.6g s per iteration%s%s\n", i+1, s.Mode, s.TotalCost, mark, versus(res, s, i))
		writeStages(w, s, unit)
		if current {
			fmt.Fprintf(w, "    (the config's component_placement already places it so)\n")
			continue
		}
		fmt.Fprintf(w, "    cluster:\n      num_nodes: %d\n      component_placement:\n", s.NumNodes)
		for _, e := range s.Placement {
			v := e.Value
			if strings.Contains(v, ":") {
				v = strconv.Quote(v)
			}
			fmt.Fprintf(w, "        %s: %s\n", e.Key, v)
		}
	}
}

// writeRefusals says why a mode has no suggestion, a located line each,
// and when the best suggestion is the file's own layout.
func writeRefusals(w io.Writer, res *Result) {
	for _, r := range res.Refusals {
		var b bytes.Buffer
		diag.Short(&b, []model.Diagnostic{r.Diagnostic})
		fmt.Fprintf(w, "%s is not suggested: %s", r.Mode, b.String())
	}
	if res.Unchanged {
		s := res.Suggestions[0]
		var ps []string
		for _, st := range s.Stages {
			ps = append(ps, fmt.Sprintf("%s %d-%d", st.Name, st.First, st.Last))
		}
		where := strings.Join(ps, ", ")
		if s.Mode == ModeCollocated {
			where = fmt.Sprintf("every stage on GPUs 0-%d", res.GPUs-1)
		}
		fmt.Fprintf(w, "the file's layout is already the best found: %s, %s (%.6g s per iteration)\n", s.Mode, where, s.TotalCost)
	}
}

// writeStages is a suggestion's table of stages and the formula of its
// total.
func writeStages(w io.Writer, s Suggestion, unit string) {
	rows := [][]string{{"stage", "GPUs", "range", unit, ""}}
	for _, st := range s.Stages {
		mark := ""
		if st.Name == s.Bottleneck {
			mark = "bottleneck"
		}
		rows = append(rows, []string{st.Name, strconv.Itoa(st.GPUs), fmt.Sprintf("%d-%d", st.First, st.Last), fmt.Sprintf("%.6g", st.Cost), mark})
	}
	writeRows(w, "    ", rows)
	fmt.Fprintf(w, "    %s\n", s.Formula)
}

// versus says how the first suggestion compares with the best of the
// other mode.
func versus(res *Result, s Suggestion, i int) string {
	if i > 0 {
		return ""
	}
	other, name := res.CollocatedCost, "collocated"
	if s.Mode == ModeCollocated {
		other, name = res.BestSplitCost, "the best split"
	}
	if math.IsNaN(other) {
		for _, r := range res.Refusals {
			if (r.Mode == ModeCollocated) != (s.Mode == ModeCollocated) {
				return fmt.Sprintf(" (%s is not suggested: %s, above)", r.Mode, r.Diagnostic.Code)
			}
		}
		if s.Mode == ModeCollocated {
			return " (no valid split)"
		}
		return " (collocated is not a valid placement here)"
	}
	if other <= s.TotalCost {
		return fmt.Sprintf(" (ties %s)", name)
	}
	return fmt.Sprintf(" (%.1f%% less than %s: %.6g s)", 100*(other-s.TotalCost)/other, name, other)
}

func writeRows(w io.Writer, indent string, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			if i == 1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len(c)) + c)
			} else {
				b.WriteString(c + strings.Repeat(" ", widths[i]-len(c)))
			}
			if i < len(r)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
