package exec

import (
	"strings"
	"testing"
)

func TestRequestSpecs(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
		want string // the error, "" for none; then the specs' names
	}{
		{"run", Request{Backend: "local", Node: -1, Runs: []string{"actor=python a.py"}}, ""},
		{"component", Request{Backend: "slurm", Node: -1, Component: "actor", Tail: []string{"a.sh"}}, ""},
		{"backend", Request{Backend: "k8s", Node: -1}, `--backend must be local, slurm or ray, not "k8s"`},
		{"ray node", Request{Backend: "ray", Node: 1}, "the Ray backend places every worker"},
		{"slurm oversubscribe", Request{Backend: "slurm", Node: -1, Oversubscribe: true}, "the Slurm backend places every worker"},
		{"grace", Request{Backend: "local", Node: -1, Grace: -1}, "--grace must not be negative"},
		{"port without node", Request{Backend: "local", Node: -1, MasterPort: 29500}, "--master-port goes with --node"},
		{"tail without component", Request{Backend: "local", Node: -1, Tail: []string{"x"}}, "a program after -- needs --component NAME"},
		{"component without tail", Request{Backend: "local", Node: -1, Component: "actor"}, "--component actor needs its program after --"},
		{"nothing", Request{Backend: "local", Node: -1}, "nothing to launch"},
		{"bad run", Request{Backend: "local", Node: -1, Runs: []string{"python a.py"}}, "COMPONENT"},
	} {
		specs, err := tc.req.Specs()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		case tc.want == "" && len(specs) != 1:
			t.Errorf("%s: %d specs, want 1", tc.name, len(specs))
		}
	}
}

// Prepare builds the job of the programs given, names the components
// given none, and refuses a node the plan does not have.
func TestRequestPrepare(t *testing.T) {
	o := loadPlan(t, "many.yaml", "")
	res := o.Result
	req := Request{Backend: "local", Node: -1, Runs: []string{"a=python a.py"}}
	specs, err := req.Specs()
	if err != nil {
		t.Fatal(err)
	}
	job, skipped, err := req.Prepare(res.Plan, res.Cluster, res.Cluster.Nodes, specs, o.File)
	if err != nil || job == nil {
		t.Fatalf("Prepare: %v", err)
	}
	if got := strings.Join(skipped, ","); got != "b,c,d,e,f,g,h" {
		t.Errorf("skipped %q, want b,c,d,e,f,g,h", got)
	}
	req.Node, req.MasterPort = 1, 29500
	_, skipped, err = req.Prepare(res.Plan, res.Cluster, res.Cluster.Nodes, specs, o.File)
	if err == nil || err.Error() != "--node 1: the plan has nodes 0-0" {
		t.Errorf("--node 1 of a one-node plan: %v", err)
	}
	if len(skipped) != 7 {
		t.Errorf("the error's skipped components: %v", skipped)
	}
}
