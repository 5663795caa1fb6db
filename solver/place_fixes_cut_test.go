package solver

import (
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/rules"
)

// TestSmallerCountAfterCut: the count offered always placed (a verdict of
// yes), and it is called the most that fit only when every probe above it
// was proven not to place; a probe the budget cut makes it a count that
// fits, not the most.
func TestSmallerCountAfterCut(t *testing.T) {
	sp := plainSpace(t, 8, 1, 64)
	cases := []struct {
		name     string
		fits     int // counts up to this place
		cutAbove int // probes above this are cut (0: none)
		want     string
	}{
		{"proven", 40, 0, "gpus: 40 instead of 64, the most that fit"},
		{"cut above the answer", 40, 40, "gpus: 40 instead of 64, which fit (the budget cut"},
		{"cut below the answer", 40, 20, "gpus: 20 instead of 64, which fit (the budget cut"},
	}
	for _, c := range cases {
		var asked []int
		verdict := func(v *rules.Space) (bool, bool) {
			n := v.Demands[0].Count
			asked = append(asked, n)
			if c.cutAbove > 0 && n > c.cutAbove {
				return false, false
			}
			return n <= c.fits, true
		}
		fix, ok := smallerCount(sp, 0, verdict, cpuDeadlineIn(time.Minute))
		if !ok || !strings.Contains(fix.Message, c.want) {
			t.Errorf("%s: fix %q (%v), want %q; asked %v", c.name, fix.Message, ok, c.want, asked)
		}
	}
}
