package model

// A plan's workers as records: what a plan document keeps of each worker
// (render.ReadPlanDocument, Document.Records) whether it was read back from
// a file or planned from a config. Plan diffs and solve's keep objective
// compare plans through them.

// WorkerRecord is one worker: its placement (rank, cluster node, local
// hardware ranks, visible accelerators, ...), its node's host name where
// the inventory knows it, and the environment it gets.
type WorkerRecord struct {
	Placement
	Hostname string
	Env      map[string]string
}

// ComponentRecords is one component's workers; Workers[r] has rank r.
type ComponentRecords struct {
	Name    string
	Workers []WorkerRecord
}

// PlanRecords is a plan's workers, component by component in the plan's
// order.
type PlanRecords struct {
	Components []ComponentRecords
}

// Component returns the named component's records, or nil.
func (p *PlanRecords) Component(name string) *ComponentRecords {
	for i := range p.Components {
		if p.Components[i].Name == name {
			return &p.Components[i]
		}
	}
	return nil
}
