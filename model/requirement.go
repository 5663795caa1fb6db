package model

import (
	"strconv"
	"strings"
)

// Requirement is what a component needs instead of where it goes; `rlsolve
// solve` turns it into a placement (design.md, "Placing (solve)"). Every
// key keeps its position: a conflict points at the keys that cause it.
type Requirement struct {
	// Span is where the mapping is shown: a flow mapping on one line
	// whole (`{gpus: 8, ...}`), else its first key or its opening brace.
	Span Span
	// Braced is a flow mapping (on any number of lines): a placement
	// written before its keys is followed by a comma.
	Braced bool
	// GPUs counts devices (robots, or nodes for groups without devices).
	GPUs IntFact
	// Auto is `gpus: auto`: the cost model chooses the count (solve
	// --objective cost); GPUs.Span locates it, GPUs.Set is false.
	Auto      bool
	Processes IntFact
	// GPUsPerProcess defaults to the component's TP size where the
	// placement class defines one, else 1.
	GPUsPerProcess IntFact
	// Nodes asks for that many whole nodes.
	Nodes IntFact
	// With names the component whose devices this one shares; Name is ""
	// when absent.
	With      NameRef
	ApartFrom []NameRef
	// Keys are the requirement's own keys in file order (not placement or
	// node_group); a write-back puts the placement before them.
	Keys []KeySpan
	// Placed is the placement value written beside the keys (quotes
	// included), where solve writes its new one; unknown when absent.
	Placed Span
}

// NameRef is a component name as written, with its position.
type NameRef struct {
	Name string
	Span Span
}

// KeySpan is one `key: value` of a mapping: the key's span and the span
// from the key's start to the value's end.
type KeySpan struct {
	Key  string
	At   Span
	Full Span
}

// RequirementKeys are the keys of a requirement, in the order `rlsolve
// schema` lists them.
var RequirementKeys = []string{"gpus", "processes", "gpus_per_process", "nodes", "with", "apart_from"}

// Count is the count fact a key names (gpus, processes, gpus_per_process,
// nodes), or nil.
func (r *Requirement) Count(key string) *IntFact {
	switch key {
	case "gpus":
		return &r.GPUs
	case "processes":
		return &r.Processes
	case "gpus_per_process":
		return &r.GPUsPerProcess
	case "nodes":
		return &r.Nodes
	}
	return nil
}

// Set reports whether the reference names a component.
func (r NameRef) Set() bool { return r.Name != "" }

// PlacementText writes the placement string of procs processes over the
// ascending resource ranks: one part per run of consecutive ranks, each
// with its share of the processes ("0-7:0-3,16-23:4-7"), or the bare
// ranks when each resource is one process ("0-15"). The runs must divide
// the processes evenly.
func PlacementText(ranks []int, procs int) string {
	if procs == len(ranks) {
		return CompactRanks(ranks, ",")
	}
	var b strings.Builder
	next := 0
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		n := (j - i + 1) * procs / len(ranks)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(rangeText(ranks[i], ranks[j]))
		b.WriteByte(':')
		b.WriteString(rangeText(next, next+n-1))
		next += n
		i = j + 1
	}
	return b.String()
}

func rangeText(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return strconv.Itoa(a) + "-" + strconv.Itoa(b)
}

// Solved is a requirement entry's placement as solve chose it: what is
// written back in place of the requirement.
type Solved struct {
	Entry int
	// Labels are the node groups Placement counts in; WriteGroup says they
	// are written as the entry's node_group (it had none).
	Labels     []string
	WriteGroup bool
	Placement  string
}

// PlainWord reports whether s, written bare in YAML, reads back as the
// same string (not a number, a boolean or null, nothing to quote): a label
// or name solve may write unquoted.
func PlainWord(s string) bool {
	if s == "" {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
