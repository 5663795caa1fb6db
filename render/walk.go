package render

import (
	"fmt"
	"math"
	"slices"

	"github.com/rlsolve/rlsolve/diag"
)

// emitter is one syntax (JSON, YAML) of the plan document. The walk below
// visits the document once, in encoding/json's order (struct fields in
// order, map keys sorted, omitempty fields left out), and tells the
// emitter what comes; the emitter knows only punctuation and quoting.
type emitter interface {
	beginObject()
	// field starts a struct member; name is a constant that needs no
	// quoting.
	field(name string)
	// key starts a map member.
	key(name string)
	endObject()
	beginArray()
	// elem starts an array element.
	elem()
	endArray()
	str(s string)
	int(n int)
	bool(b bool)
	float(f float64)
	null()
	// emptyObject and emptyArray are {} and [] (not null).
	emptyObject()
	emptyArray()
	// stringMap writes a non-empty map[string]string given as its sorted
	// keys and their values; same says the keys are those of the previous
	// call (consecutive workers nearly always have the same ones).
	stringMap(keys, vals []string, same bool)
	// recordDone marks the end of a worker's record: the emitter may pass
	// what it gathered to its writer. It returns the first write error.
	recordDone() error
	// finish ends the document and returns the first write error.
	finish() error
}

// records yields a document's placements one at a time: from a Document
// in memory, or computed from an Input while writing.
type records interface {
	// placements is how many records the named component has, and
	// whether its list is null (nil) rather than empty.
	placements(name string) (n int, null bool)
	// record is the j-th; the value may be reused by the next call.
	record(name string, j int) (*DocPlacement, error)
}

// walker walks a document into an emitter.
type walker struct {
	em emitter
	// keys are the last environment's keys, sorted; vals is scratch for
	// the values in that order.
	keys, vals []string
	// err is the first value that cannot be written (a float that is not
	// finite, a type JSON has no form for).
	err error
}

func (w *walker) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *walker) document(d *Document, rs records) error {
	em := w.em
	em.beginObject()
	w.strField("format_version", d.FormatVersion)
	w.strField("placement_mode", d.PlacementMode)
	em.field("inventory")
	em.beginObject()
	w.strField("source", d.Inventory.Source)
	em.field("assumed")
	em.bool(d.Inventory.Assumed)
	w.intField("nodes", d.Inventory.Nodes)
	em.endObject()
	em.field("components")
	if err := w.components(d.Components, rs); err != nil {
		return err
	}
	em.field("component_order")
	w.strings(d.Order)
	if d.Slime != nil {
		em.field("slime")
		w.slimeLayout(d.Slime)
	}
	if d.Memory != nil {
		em.field("memory")
		w.memory(d.Memory)
	}
	em.field("diagnostics")
	w.diagnostics(d.Diagnostics)
	em.endObject()
	if err := em.finish(); err != nil {
		return err
	}
	return w.err
}

func (w *walker) components(cs map[string]DocComponent, rs records) error {
	var err error
	writeMap(w, cs, func(name string, c DocComponent) {
		if err == nil {
			err = w.component(name, &c, rs)
		}
	})
	return err
}

func (w *walker) component(name string, c *DocComponent, rs records) error {
	em := w.em
	em.beginObject()
	w.intField("world_size", c.WorldSize)
	w.intField("rlinf_world_size", c.RLinfWorldSize)
	em.field("node_groups")
	w.strings(c.NodeGroups)
	em.field("strategy")
	w.strategy(&c.Strategy)
	em.field("placements")
	n, null := rs.placements(name)
	switch {
	case null:
		em.null()
	case n == 0:
		em.emptyArray()
	default:
		em.beginArray()
		for j := range n {
			p, err := rs.record(name, j)
			if err != nil {
				return err
			}
			em.elem()
			w.placement(p)
			if err := em.recordDone(); err != nil {
				return err
			}
		}
		em.endArray()
	}
	em.endObject()
	return nil
}

func (w *walker) strategy(s *DocStrategy) {
	em := w.em
	em.beginObject()
	w.strField("kind", s.Kind)
	for _, f := range [...]struct {
		name string
		v    *int
	}{{"start", s.Start}, {"end", s.End}, {"num_hardware_per_process", s.HardwarePerProcess}, {"stride", s.Stride}} {
		if f.v != nil {
			em.field(f.name)
			em.int(*f.v)
		}
	}
	em.endObject()
}

func (w *walker) placement(p *DocPlacement) {
	em := w.em
	em.beginObject()
	w.intField("rank", p.Rank)
	w.intField("cluster_node_rank", p.ClusterNodeRank)
	w.intField("placement_node_rank", p.PlacementNodeRank)
	w.intField("local_accelerator_rank", p.LocalAcceleratorRank)
	w.intField("local_rank", p.LocalRank)
	w.intField("local_world_size", p.LocalWorldSize)
	em.field("visible_accelerators")
	w.strings(p.VisibleAccelerators)
	em.field("isolate_accelerator")
	em.bool(p.IsolateAccelerator)
	em.field("local_hardware_ranks")
	w.ints(p.LocalHardwareRanks)
	w.strField("node_group_label", p.NodeGroupLabel)
	w.strField("accelerator_type", p.AcceleratorType)
	w.optStr("hostname", p.Hostname)
	w.optStr("ip", p.IP)
	if len(p.GPUUUIDs) > 0 {
		em.field("gpu_uuids")
		w.strings(p.GPUUUIDs)
	}
	w.optStr("python_interpreter_path", p.Interpreter)
	em.field("env")
	w.env(p.Env)
	if s := p.SlimeRecord; s != nil {
		em.field("bundles")
		w.ints(s.Bundles)
		em.field("gpu_fraction")
		w.float(s.GPUFraction)
		if s.SGLang != nil {
			em.field("sglang")
			w.sglang(s.SGLang)
		}
	}
	em.endObject()
}

// float writes a finite float; JSON has no form for the others.
func (w *walker) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.fail(fmt.Errorf("render: cannot write the number %v", f))
	}
	w.em.float(f)
}

func (w *walker) sglang(g *SlimeSGLang) {
	w.em.beginObject()
	w.intField("engine", g.Engine)
	w.strField("worker_type", g.WorkerType)
	w.intField("node_rank", g.NodeRank)
	w.intField("nnodes", g.NNodes)
	w.intField("base_gpu_id", g.BaseGPUID)
	w.intField("tp_size", g.TPSize)
	w.intField("dp_size", g.DPSize)
	w.intField("port", g.Port)
	w.intField("nccl_port", g.NCCLPort)
	if g.BootstrapPort != 0 {
		w.intField("bootstrap_port", g.BootstrapPort)
	}
	w.optStr("dist_init_addr", g.DistInitAddr)
	w.em.field("dist_init_ports")
	w.ints(g.DistInitPorts[:])
	w.em.endObject()
}

// env writes a map[string]string: null when nil, {} when empty, else its
// entries with keys sorted byte-wise. Sorting every worker's keys would be
// most of the time of a large plan: when m has exactly the previous map's
// keys (as many, each present), their order is reused and only looked up.
func (w *walker) env(m map[string]string) {
	if w.noMap(len(m), m == nil) {
		return
	}
	vals, same := w.vals[:0], len(m) == len(w.keys)
	if same {
		for _, k := range w.keys {
			v, ok := m[k]
			if !ok {
				same = false
				break
			}
			vals = append(vals, v)
		}
	}
	if !same {
		ks := w.keys[:0]
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		vals = vals[:0]
		for _, k := range ks {
			vals = append(vals, m[k])
		}
		w.keys = ks
	}
	w.em.stringMap(w.keys, vals, same)
	clear(vals) // keep no values alive past their map
	w.vals = vals
}

func (w *walker) intField(name string, n int) {
	w.em.field(name)
	w.em.int(n)
}

func (w *walker) strField(name, s string) {
	w.em.field(name)
	w.em.str(s)
}

// optStr is an omitempty string field.
func (w *walker) optStr(name, s string) {
	if s != "" {
		w.strField(name, s)
	}
}

// strings writes a []string: null when nil, [] when empty.
func (w *walker) strings(ss []string) {
	w.array(len(ss), ss == nil, func(i int) { w.em.str(ss[i]) })
}

// ints writes an []int: null when nil, [] when empty.
func (w *walker) ints(ns []int) {
	w.array(len(ns), ns == nil, func(i int) { w.em.int(ns[i]) })
}

// array writes a slice of n elements, each by one(i): null when nil, []
// when empty.
func (w *walker) array(n int, null bool, one func(i int)) {
	switch {
	case null:
		w.em.null()
	case n == 0:
		w.em.emptyArray()
	default:
		w.em.beginArray()
		for i := range n {
			w.em.elem()
			one(i)
		}
		w.em.endArray()
	}
}

func (w *walker) diagnostics(ds []diag.JSONDiagnostic) {
	w.array(len(ds), ds == nil, func(i int) {
		d := &ds[i]
		w.em.beginObject()
		w.strField("code", d.Code)
		w.strField("severity", d.Severity)
		w.strField("summary", d.Summary)
		w.optRange("range", d.Range)
		w.em.field("core")
		w.array(len(d.Core), d.Core == nil, func(i int) {
			w.em.beginObject()
			w.strField("message", d.Core[i].Message)
			w.optRange("range", d.Core[i].Range)
			w.em.endObject()
		})
		w.optStr("why", d.Why)
		w.em.field("fixes")
		w.array(len(d.Fixes), d.Fixes == nil, func(i int) {
			f := &d.Fixes[i]
			w.em.beginObject()
			w.strField("message", f.Message)
			w.em.field("edits")
			w.array(len(f.Edits), f.Edits == nil, func(i int) {
				w.em.beginObject()
				w.optRange("range", f.Edits[i].Range)
				w.strField("new_text", f.Edits[i].NewText)
				w.em.endObject()
			})
			w.em.endObject()
		})
		w.optStr("denied_by", d.DeniedBy)
		w.em.endObject()
	})
}

// optRange is an omitempty *diag.JSONRange field.
func (w *walker) optRange(name string, r *diag.JSONRange) {
	if r == nil {
		return
	}
	w.em.field(name)
	w.em.beginObject()
	w.strField("filename", r.Filename)
	for _, p := range [...]struct {
		name string
		pos  *diag.JSONPosition
	}{{"start", r.Start}, {"end", r.End}} {
		if p.pos != nil {
			w.em.field(p.name)
			w.em.beginObject()
			w.intField("line", p.pos.Line)
			w.intField("column", p.pos.Column)
			w.em.endObject()
		}
	}
	w.em.endObject()
}

func (w *walker) slimeLayout(l *SlimeLayout) {
	em := w.em
	em.beginObject()
	w.strField("mode", l.Mode)
	em.field("flags")
	writeMap(w, l.Flags, func(_ string, v any) { w.value(v) })
	w.intField("bundles", l.Bundles)
	em.field("bundle_resources")
	writeMap(w, l.BundleResources, func(_ string, n int) { em.int(n) })
	w.intField("rollout_offset", l.RolloutOffset)
	w.intField("actor_gpus", l.ActorGPUs)
	w.intField("rollout_gpus", l.RolloutGPUs)
	w.intField("gpus_per_engine", l.GPUsPerEngine)
	em.field("gpu_fraction")
	writeMap(w, l.GPUFraction, func(_ string, f float64) { w.float(f) })
	em.field("stable_order")
	w.array(len(l.StableOrder), l.StableOrder == nil, func(i int) {
		n := &l.StableOrder[i]
		em.beginObject()
		w.intField("cluster_node_rank", n.ClusterNodeRank)
		w.optStr("hostname", n.Hostname)
		w.optStr("ip", n.IP)
		em.field("gpus")
		w.ints(n.GPUs)
		if len(n.Bundles) > 0 {
			em.field("bundles")
			w.ints(n.Bundles)
		}
		em.endObject()
	})
	em.field("engines")
	w.array(len(l.Engines), l.Engines == nil, func(i int) {
		e := &l.Engines[i]
		em.beginObject()
		w.intField("engine", e.Engine)
		w.strField("worker_type", e.WorkerType)
		for _, f := range [...]struct {
			name string
			v    []int
		}{{"workers", e.Workers}, {"bundles", e.Bundles}, {"nodes", e.Nodes}} {
			em.field(f.name)
			w.ints(f.v)
		}
		w.intField("base_gpu_id", e.BaseGPUID)
		w.intField("port", e.Port)
		w.intField("nccl_port", e.NCCLPort)
		w.optStr("dist_init_addr", e.DistInitAddr)
		em.field("dist_init_ports")
		w.ints(e.DistInitPorts[:])
		em.endObject()
	})
	em.field("ports")
	w.array(len(l.Ports), l.Ports == nil, func(i int) {
		p := &l.Ports[i]
		em.beginObject()
		w.intField("cluster_node_rank", p.ClusterNodeRank)
		w.optStr("address", p.Address)
		em.field("blocks")
		w.array(len(p.Blocks), p.Blocks == nil, func(i int) {
			b := &p.Blocks[i]
			em.beginObject()
			w.intField("engine", b.Engine)
			w.strField("kind", b.Kind)
			w.intField("first", b.First)
			w.intField("last", b.Last)
			em.endObject()
		})
		em.endObject()
	})
	em.endObject()
}

// noMap writes null for a nil map, {} for an empty one, and reports
// whether it did.
func (w *walker) noMap(n int, null bool) bool {
	switch {
	case null:
		w.em.null()
	case n == 0:
		w.em.emptyObject()
	default:
		return false
	}
	return true
}

// writeMap writes a map with sorted keys, each value by one.
func writeMap[V any](w *walker, m map[string]V, one func(key string, v V)) {
	if w.noMap(len(m), m == nil) {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.em.beginObject()
	for _, k := range keys {
		w.em.key(k)
		one(k, m[k])
	}
	w.em.endObject()
}

// value writes a JSON value held in an any: what the slime flags hold.
func (w *walker) value(v any) {
	switch v := v.(type) {
	case nil:
		w.em.null()
	case bool:
		w.em.bool(v)
	case int:
		w.em.int(v)
	case float64:
		w.float(v)
	case string:
		w.em.str(v)
	case []any:
		w.array(len(v), v == nil, func(i int) { w.value(v[i]) })
	case map[string]any:
		writeMap(w, v, func(_ string, v any) { w.value(v) })
	default:
		w.fail(fmt.Errorf("render: cannot write a %T", v))
		w.em.null()
	}
}
