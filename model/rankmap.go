package model

import "iter"

// Part is one placement part as RLinf's rank map reads it (semantics §2.3):
// resources [ResStart, ResEnd] of the entry's node groups and processes
// [ProcStart, ProcEnd]. Rules judge parts; strategies expand them.
type Part struct {
	// Index is the part's segment index in its entry.
	Index              int
	ResStart, ResEnd   int
	ProcStart, ProcEnd int
}

// Resources is the part's resource count.
func (p Part) Resources() int { return p.ResEnd - p.ResStart + 1 }

// Processes is the part's process count.
func (p Part) Processes() int { return p.ProcEnd - p.ProcStart + 1 }

// Divides reports whether the part gives every process the same number of
// resources, or every resource the same number of processes.
func (p Part) Divides() bool {
	np, nr := p.Processes(), p.Resources()
	return np%nr == 0 || nr%np == 0
}

// ResolvePart reads segment s of an entry whose groups hold total resources:
// `all` is 0..total-1, and a part without process ranks continues after
// lastProc (the previous part's last process, -1 for the first part).
func ResolvePart(s *Segment, index, total, lastProc int) Part {
	p := Part{Index: index, ResStart: s.ResStart, ResEnd: s.ResEnd}
	if s.AllResources {
		p.ResStart, p.ResEnd = 0, total-1
	}
	p.ProcStart, p.ProcEnd = lastProc+1, lastProc+p.Resources()
	if s.HasProcesses {
		p.ProcStart, p.ProcEnd = s.ProcStart, s.ProcEnd
	}
	return p
}

// Process is one process of an entry: it holds the resources
// [Start, Start+N) and comes from the entry's part number Part.
type Process struct {
	Start, N, Part int
}

// Processes yields the processes of parts in rank order, with their index,
// spread as RLinf spreads them: each process gets resources/processes
// consecutive resources, or each resource is shared by
// processes/resources processes. Every part must divide (Part.Divides).
// The processes are computed as they are read: a million-process entry
// costs no memory.
func Processes(parts []Part) iter.Seq2[int, Process] {
	return func(yield func(int, Process) bool) {
		i := 0
		for k, p := range parts {
			np, nr := p.Processes(), p.Resources()
			for j := 0; j < np; j++ {
				pr := Process{N: 1, Part: k}
				if nr >= np {
					pr.N = nr / np
					pr.Start = p.ResStart + j*pr.N
				} else {
					pr.Start = p.ResStart + j/(np/nr)
				}
				if !yield(i, pr) {
					return
				}
				i++
			}
		}
	}
}

// ProcessTotal is the process count of parts.
func ProcessTotal(parts []Part) int {
	n := 0
	for _, p := range parts {
		n += p.Processes()
	}
	return n
}

// HardwareRanks is RLinf's get_hardware_ranks: the parts' resource ranks in
// order.
func HardwareRanks(parts []Part) []int {
	n := 0
	for _, p := range parts {
		n += p.Resources()
	}
	out := make([]int, 0, n)
	for _, p := range parts {
		for x := p.ResStart; x <= p.ResEnd; x++ {
			out = append(out, x)
		}
	}
	return out
}

// ProcessCount is how many processes an entry's segments declare when its
// groups hold total resources, without expanding them.
func ProcessCount(e *ComponentEntry, total int) int {
	n, last := 0, -1
	for i := range e.Segments {
		p := ResolvePart(&e.Segments[i], i, total, last)
		n += p.Processes()
		last = p.ProcEnd
	}
	return n
}
