package solver

import (
	"time"

	"github.com/go-air/gini"
)

// The solver's budgets count the process's CPU time, not wall time: on a
// loaded machine wall time passes while solve waits for a core, and the
// same input would place at low load and run out of budget at high load.
// (gini v1.0.4 keeps its conflict and propagation counts internal, so CPU
// time is the effort measure it allows.)

// cpuDeadline is an instant of the process's CPU time.
type cpuDeadline struct{ at time.Duration }

// cpuDeadlineIn is the instant d of CPU time from now.
func cpuDeadlineIn(d time.Duration) cpuDeadline { return cpuDeadline{at: cpuNow() + d} }

// left is the CPU time before the deadline (<= 0: passed).
func (d cpuDeadline) left() time.Duration { return d.at - cpuNow() }

// solveFor runs g's search for at most left of CPU time: 1 sat, -1 unsat,
// 0 cut. The assumptions made before it are the search's. Pause returns
// the answer as soon as there is one, else holds the search at its next
// tick (every few thousand propagations), where the CPU time is read: no
// sleeping, so a call that propagation settles costs no wait.
func solveFor(g *gini.Gini, left time.Duration) int {
	if left <= 0 {
		return 0
	}
	start := cpuNow()
	s := g.GoSolve()
	for {
		res, paused := s.Pause()
		if !paused {
			return res
		}
		over := cpuNow()-start >= left
		s.Unpause()
		if over {
			return s.Stop()
		}
	}
}
