package fuzzy

import "testing"

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
