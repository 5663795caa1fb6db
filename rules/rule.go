// Package rules holds every placement rule of rlsolve once, as a value: what
// it is called, the diagnostic codes it can raise, the configuration facts it
// reads and a predicate that says whether, and why, those facts violate it,
// with candidate fixes. RLinf's rules and slime's alike.
//
// A rule applied to one place of a config is an Instance. The solver
// compiles instances over one selector per fact and is the only judge of a
// config; strategies expand only what it accepted. Facts that are not
// present are taken back to their defaults (a placement part removed, a TP
// size back to 1), which is what dropping them from the file would mean.
package rules

import "github.com/rlsolve/rlsolve/model"

// Rule is one entry of the catalogue: a named check and the codes it
// raises.
type Rule struct {
	Name  string
	Codes []string
}

// Present says which facts are in the config for one evaluation.
type Present func(fact int) bool

// All is the config as written: every fact present.
func All(int) bool { return true }

// Instance is a rule applied to one place of the config.
type Instance struct {
	Rule *Rule
	// Name says where: "placement part 2 of actor".
	Name string
	// Reads are the facts the predicate depends on; facts outside it are
	// taken as present.
	Reads []int
	// Check evaluates the rule; nil means it holds.
	Check func(p Present) *Violation
	// Together, when set, says the rule is violated exactly when every fact
	// of Reads is present: it compiles to one clause.
	Together bool
}

// Violation is what a rule's predicate found.
type Violation struct {
	Code    string
	Summary string
	Why     string
	// Primary is the fact the diagnostic points at (-1: none); when it is
	// not in the conflict, the first fact of Prefer that is.
	Primary int
	Prefer  []int
	// At, when known, is a more exact span inside the primary fact.
	At model.Span
	// Label annotates the primary span when it is Primary or from Prefer
	// (else the fact's role).
	Label string
	// Else is where to point when no preferred fact is in the conflict
	// (a flag wrong whatever its value, an inventory too small), with
	// ElseLabel; without it, the conflict's last fact, or the set's anchor
	// with AnchorLabel when the conflict has no fact.
	Else                   model.Span
	ElseLabel, AnchorLabel string
	// Roles label facts with what they contribute ("covers node 3").
	Roles map[int]string
	// Extra are spans that explain the violation without being facts of it
	// (a group's definition, an inventory).
	Extra []model.Label
	// Fixes are candidate edits; the solver keeps those that re-solving
	// confirms.
	Fixes []Fix
}

// Fix is a candidate fix: applied to a copy of the input, it gives the fix
// as the user would make it and the rule set of the edited input (false:
// it does not apply here).
type Fix func() (model.Fix, *Set, bool)

// Set is everything the solver needs to judge one input: its facts, the
// hard implications between them, and the rule instances.
type Set struct {
	Facts []Fact
	// Implies lists hard clauses a -> b between facts (an env var needs its
	// env_configs entry).
	Implies [][2]int
	Rules   []*Instance
	// Anchor is where a violation without facts points.
	Anchor model.Span
	// Noun names the facts in messages: "facts", or "flags" for slime.
	Noun string
	// memory is the memory rule's evaluation of the input (Set.Memory).
	memory *memRule
}

func (s *Set) add(f Fact) int {
	s.Facts = append(s.Facts, f)
	return len(s.Facts) - 1
}

// FactKind says what kind of configuration fact a selector stands for, and
// so what removing it means.
type FactKind int

const (
	FactGroupLabel  FactKind = iota // a node group's label (removed: no such group)
	FactGroupRanks                  // a node group's node_ranks (removed: no such group)
	FactEnvConfig                   // one env_configs entry
	FactEnvVar                      // one env var of an env_configs entry
	FactHardware                    // one robot hardware config
	FactSegment                     // one placement part of a component entry
	FactNodeGroup                   // a component entry's node_group (removed: the default group)
	FactParallel                    // a TP/PP/CP size (removed: 1)
	FactSetting                     // a setting or flag (removed: its default)
	FactRequirement                 // a component's requirement, when solving (removed: no such component)
)

// Fact is one user-visible configuration fact.
type Fact struct {
	Kind FactKind
	Span model.Span
	// What describes the fact in a label: "actor placement part `0-3`".
	What string
	// Group, Entry, Index, Sub locate the fact in the config.
	Group, Entry, Index, Sub int
	// Name is the setting's key for FactParallel and FactSetting.
	Name string
}
