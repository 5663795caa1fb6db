package model

import "testing"

// Every name ClassNames lists parses back to its class.
func TestClassNames(t *testing.T) {
	names := ClassNames()
	if len(names) != len(Classes) || len(names) == 0 {
		t.Fatalf("names %v", names)
	}
	for i, n := range names {
		if c, ok := ParseClass(n); !ok || c != Classes[i].Class {
			t.Errorf("%q parses to %q, %v", n, c, ok)
		}
	}
}
