//go:build !unix

package solver

import "time"

// cpuNow falls back to wall time where the process's CPU time is not read.
func cpuNow() time.Duration { return time.Duration(time.Now().UnixNano()) }
