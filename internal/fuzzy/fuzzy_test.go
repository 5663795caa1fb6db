package fuzzy

import (
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	cands := []string{"num_nodes", "component_placement", "node_groups", "Franka"}
	for _, tc := range []struct{ in, want string }{
		{"num_node", "num_nodes"},
		{"componnt_placement", "component_placement"},
		{"franka", "Franka"},
		{"zzz", ""},
		{"num_nodes", ""},
	} {
		if got := Nearest(tc.in, cands); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}

func TestNearOrAll(t *testing.T) {
	names := []string{"actor", "rollout", "reward"}
	for typed, want := range map[string]string{
		"":       "actor rollout reward",
		"r":      "actor rollout reward",
		"rolout": "rollout",
		"xyz":    "actor rollout reward",
	} {
		if got := strings.Join(NearOrAll(names, typed), " "); got != want {
			t.Errorf("%q: %q, want %q", typed, got, want)
		}
	}
}
