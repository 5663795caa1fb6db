package render

// writeStream walks the plan's document into em, computing each worker's
// record when it is written.
func writeStream(em emitter, in *Input) error {
	if err := in.check(); err != nil {
		return err
	}
	d, err := in.head()
	if err != nil {
		return err
	}
	s := &stream{in: in, index: make(map[string]int, len(in.Plan.Components))}
	for i := range in.Plan.Components {
		s.index[in.Plan.Components[i].Name] = i
	}
	return (&walker{em: em}).document(d, s)
}

// stream is the records of an Input, one at a time.
type stream struct {
	in    *Input
	index map[string]int // component name -> index in the plan
	r     recorder
}

func (s *stream) placements(name string) (int, bool) {
	return s.in.Plan.Components[s.index[name]].Placements.Len(), false
}

func (s *stream) record(name string, j int) (*DocPlacement, error) {
	return s.r.record(s.in, s.index[name], j)
}

// A Document in memory is its own records.

func (d *Document) placements(name string) (int, bool) {
	p := d.Components[name].Placements
	return len(p), p == nil
}

func (d *Document) record(name string, j int) (*DocPlacement, error) {
	return &d.Components[name].Placements[j], nil
}
