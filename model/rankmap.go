package model

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

// Processes are an entry's processes in rank order: process i holds the
// resources [Start[i], Start[i]+N[i]) and comes from parts[Part[i]].
type Processes struct {
	Start, N, Part []int
}

// Len is the process count.
func (ps *Processes) Len() int { return len(ps.Start) }

// AddPart appends the processes of part (index k in its list), spread as
// RLinf spreads them: each process gets resources/processes consecutive
// resources, or each resource is shared by processes/resources processes.
// The part must divide (Part.Divides).
func (ps *Processes) AddPart(p Part, k int) {
	np, nr := p.Processes(), p.Resources()
	for i := 0; i < np; i++ {
		if nr >= np {
			n := nr / np
			ps.Start, ps.N = append(ps.Start, p.ResStart+i*n), append(ps.N, n)
		} else {
			ps.Start, ps.N = append(ps.Start, p.ResStart+i/(np/nr)), append(ps.N, 1)
		}
		ps.Part = append(ps.Part, k)
	}
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
