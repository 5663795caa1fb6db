package grammar

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/hostlist"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

var inventoryNodeKeys = []string{"rank", "ranks", "hostname", "hostnames", "ip", "ips", "accelerators", "cpus", "hardware", "devices"}

var inventoryDeviceKeys = []string{"index", "uuid", "name", "pci_bus_id", "memory_mib", "numa_node", "nvlink"}

// maxDevices bounds one node's device list (as accelerator counts are).
const maxDevices = 1024

// InventoryEntry is one node of an inventory file as written, before the
// ranks of the whole inventory are checked: `rlsolve topology merge` combines
// the entries of several files.
type InventoryEntry struct {
	Node model.Node
	// RankGiven is true when the entry says its rank (rank: or ranks:).
	RankGiven bool
	// NameSpan and IPSpan are where the node's host name and address are
	// written (zero when absent).
	NameSpan, IPSpan model.Span
}

// LoadInventory reads an inventory file: a top-level `inventory:` key or a
// bare `nodes:` list (design.md "Inputs").
func LoadInventory(file string, data []byte, lim Limits) (*model.Inventory, model.Diagnostics) {
	d := parseDoc(file, data, lim)
	if d.Root == nil {
		return nil, d.Diags
	}
	n := d.Root
	if e, ok := yamlpos.Lookup(d.Mapping(n), "inventory"); ok {
		n = e.V
	}
	inv := d.inventory(n)
	if inv != nil {
		inv.Source = file
	}
	return inv, d.Diags
}

func (d *doc) inventory(n *yaml.Node) *model.Inventory {
	entries, at, ok := d.inventoryEntries(n, 0)
	if !ok {
		return nil
	}
	if !CheckRanks(&d.Diags, EntryRanks(entries)) || !CheckInventoryDuplicates(&d.Diags, entries) {
		return nil
	}
	inv := &model.Inventory{Source: d.File(), Span: at, Nodes: make([]model.Node, len(entries))}
	for _, e := range entries {
		inv.Nodes[e.Node.Rank] = e.Node
	}
	return inv
}

// inventoryEntries reads the `nodes:` list: one entry per node, each entry
// checked on its own. at is the `nodes` key. before nodes were read already
// (from other files of one inventory): the limit bounds them all.
func (d *doc) inventoryEntries(n *yaml.Node, before int) ([]InventoryEntry, model.Span, bool) {
	n = yamlpos.Deref(n)
	es := d.Mapping(n)
	ne, ok := yamlpos.Lookup(es, "nodes")
	if n == nil || n.Kind != yaml.MappingNode || !ok {
		d.Errorf(model.CodeInventoryInvalid, d.Span(n), "", "an inventory needs a `nodes:` list")
		return nil, model.Span{}, false
	}
	list := yamlpos.Deref(ne.V)
	if list == nil || list.Kind != yaml.SequenceNode {
		d.WrongType(list, "expected a list", "inventory nodes", "a list", yamlpos.KindName(list))
		return nil, model.Span{}, false
	}
	var out []InventoryEntry
	good := true
	for _, item := range list.Content {
		entries, ok := d.inventoryEntry(item, len(out))
		if !ok {
			good = false
			continue
		}
		out = append(out, entries...)
		if before+len(out) > d.limits.MaxClusterNodes {
			d.Record(nil, yamlpos.Limit{What: "the inventory", Max: d.limits.MaxClusterNodes, Unit: " nodes"}.Diagnostic(d.Span(item), ""))
			return nil, model.Span{}, false
		}
	}
	return out, d.Span(ne.K), good
}

// inventoryEntry reads one entry, which may describe a range of identical
// nodes (`ranks: 0-7`). next is the rank used when the entry gives none.
func (d *doc) inventoryEntry(item *yaml.Node, next int) ([]InventoryEntry, bool) {
	item = yamlpos.Deref(item)
	sp := d.Span(item)
	if item == nil || item.Kind != yaml.MappingNode {
		d.WrongType(item, "expected a mapping", "each inventory node", "a mapping", yamlpos.KindName(item))
		return nil, false
	}
	es := d.Mapping(item)
	if !d.inventoryFields(es, inventoryNodeKeys, []string{"accelerators"}, sp, "inventory node", "use `accelerators: 0` for a CPU-only node") {
		return nil, false
	}
	ranks := []int{next}
	given := false
	if e, ok := yamlpos.Lookup(es, "ranks"); ok {
		e2, _ := yamlpos.Lookup(es, "rank")
		if e2.K != nil {
			d.Errorf(model.CodeInventoryInvalid, d.Span(e2.K), "", "give `rank` or `ranks`, not both")
			return nil, false
		}
		v, ok := d.Scalar(e.V, "inventory ranks")
		if !ok {
			return nil, false
		}
		var good bool
		if ranks, good = d.expandRanks(v, []int{0, d.limits.MaxClusterNodes - 1}, "inventory ranks", "the inventory"); !good {
			return nil, false
		}
		sp, given = v.Span, true
	} else if e, ok := yamlpos.Lookup(es, "rank"); ok {
		r, v, ok := d.Integer(e.V, "inventory rank")
		if !ok {
			return nil, false
		}
		if r < 0 || r >= d.limits.MaxClusterNodes {
			d.Errorf(model.CodeInventoryInvalid, v.Span, "", "inventory rank %d is out of range", r)
			return nil, false
		}
		ranks, sp, given = []int{r}, v.Span, true
	}
	base := model.Node{Span: sp, AccelType: model.AccelNVGPU}
	if e, ok := yamlpos.Lookup(es, "accelerators"); ok && !d.accelerators(&base, e.V) {
		return nil, false
	}
	if e, ok := yamlpos.Lookup(es, "cpus"); ok {
		c, v, ok := d.Integer(e.V, "cpus")
		if !ok {
			return nil, false
		}
		if c < 0 || c > 1<<20 {
			d.Errorf(model.CodeInvalidValue, v.Span, "", "cpu count %d is out of range", c)
			return nil, false
		}
		base.CPUs = c
	}
	if e, ok := yamlpos.Lookup(es, "hardware"); ok {
		base.Hardware = map[string]int{}
		for _, h := range d.Mapping(e.V) {
			c, v, ok := d.Integer(h.V, "robot count")
			if !ok {
				return nil, false
			}
			if !slices.Contains(model.RobotTypes, h.Key) {
				d.Errorf(model.CodeUnsupportedHardware, d.Span(h.K), "", "unknown robot type %q (known: %s)", h.Key, strings.Join(model.RobotTypes, ", "))
				return nil, false
			}
			if c < 0 || c > 1024 {
				d.Errorf(model.CodeInvalidValue, v.Span, "", "robot count %d is out of range", c)
				return nil, false
			}
			base.Hardware[h.Key] = c
		}
	}
	names, nameAt, ok := d.nameList(es, "hostname", "hostnames", len(ranks))
	if !ok {
		return nil, false
	}
	ips, ipAt, ok := d.nameList(es, "ip", "ips", len(ranks))
	if !ok {
		return nil, false
	}
	out := make([]InventoryEntry, len(ranks))
	for i, r := range ranks {
		out[i] = InventoryEntry{Node: base, RankGiven: given}
		out[i].Node.Rank = r
		if names != nil {
			out[i].Node.Hostname, out[i].NameSpan = names[i], nameAt[i]
		}
		if ips != nil {
			out[i].Node.IP, out[i].IPSpan = ips[i], ipAt[i]
		}
	}
	if e, ok := yamlpos.Lookup(es, "devices"); ok {
		if len(ranks) != 1 {
			d.Errorf(model.CodeInventoryInvalid, d.Span(e.K), "", "`devices` describes one node; give it in an entry with a single rank")
			return nil, false
		}
		countAt := model.Span{}
		if a, ok := yamlpos.Lookup(es, "accelerators"); ok {
			countAt = d.Span(a.V)
			if m := yamlpos.Deref(a.V); m != nil && m.Kind == yaml.MappingNode {
				if c, ok := yamlpos.Lookup(d.Mapping(m), "count"); ok {
					countAt = d.Span(c.V)
				}
			}
		}
		if !d.devices(&out[0].Node, e.V, countAt) {
			return nil, false
		}
	}
	return out, true
}

func (d *doc) accelerators(nd *model.Node, n *yaml.Node) bool {
	n = yamlpos.Deref(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		c, v, ok := d.Integer(n, "accelerators")
		if ok && (c < 0 || c > 1024) {
			d.Errorf(model.CodeInvalidValue, v.Span, "", "accelerator count %d is out of range", c)
			return false
		}
		nd.AccelCount = c
		return ok
	}
	if n == nil || n.Kind != yaml.MappingNode {
		d.WrongType(n, "expected a count or a mapping", "accelerators", "a count or {type, model, count, memory_gib}", yamlpos.KindName(n))
		return false
	}
	es := d.Mapping(n)
	if !d.inventoryFields(es, []string{"type", "model", "count", "memory_gib"}, []string{"count"}, d.Span(n), "accelerators", "") {
		return false
	}
	for _, e := range es {
		switch e.Key {
		case "count":
			c, v, ok := d.Integer(e.V, "accelerator count")
			if !ok {
				return false
			}
			if c < 0 || c > 1024 {
				d.Errorf(model.CodeInvalidValue, v.Span, "", "accelerator count %d is out of range", c)
				return false
			}
			nd.AccelCount = c
		case "type":
			v, ok := d.Scalar(e.V, "accelerator type")
			if !ok {
				return false
			}
			known := []string{"NV_GPU", "AMD_GPU", "INTEL_GPU", "NPU", "KUNLUN_XPU", "MUSA_GPU"}
			if !slices.Contains(known, v.Py.Str) {
				d.Errorf(model.CodeInvalidValue, v.Span, "", "unknown accelerator type %q (known: %s)", v.Py.Str, strings.Join(known, ", "))
				return false
			}
			nd.AccelType = v.Py.Str
		case "model":
			v, ok := d.Scalar(e.V, "accelerator model")
			if !ok {
				return false
			}
			nd.AccelModel = v.Py.Str
		case "memory_gib":
			var f float64
			if err := e.V.Decode(&f); err != nil || f < 0 || f != f || f > 1<<30 {
				got := yamlpos.KindName(e.V)
				if v := yamlpos.Deref(e.V); v != nil && v.Kind == yaml.ScalarNode {
					got = v.Value
				}
				d.WrongType(e.V, "", "memory_gib", "a non-negative number", got)
				return false
			}
			nd.MemoryGiB = f
		}
	}
	return true
}

// nameList reads `single` (one name) or `plural` (a host list or YAML
// list) for count nodes, with where each name is written.
func (d *doc) nameList(es []yamlpos.Entry, single, plural string, count int) ([]string, []model.Span, bool) {
	e, ok := yamlpos.Lookup(es, plural)
	if !ok {
		e, ok = yamlpos.Lookup(es, single)
	}
	if !ok {
		return nil, nil, true
	}
	var names []string
	var spans []model.Span
	if seq := yamlpos.Deref(e.V); seq != nil && seq.Kind == yaml.SequenceNode {
		for _, it := range seq.Content {
			v, ok := d.Scalar(it, plural)
			if !ok {
				return nil, nil, false
			}
			names = append(names, v.Py.Str)
			spans = append(spans, v.Span)
		}
	} else {
		v, ok := d.Scalar(e.V, plural)
		if !ok {
			return nil, nil, false
		}
		var err error
		if names, err = hostlist.Expand(v.Py.Str, count); err != nil {
			d.Errorf(model.CodeInventoryInvalid, v.Span, "", "%s: %v", plural, err)
			return nil, nil, false
		}
		for range names {
			spans = append(spans, v.Span)
		}
	}
	if len(names) != count {
		d.Errorf(model.CodeInventoryInvalid, d.Span(e.V), fmt.Sprintf("%d names", len(names)), "%s gives %d names for %d nodes", e.Key, len(names), count)
		return nil, nil, false
	}
	return names, spans, true
}

// devices reads a node's device list: each device's index (default: its
// position), identity, memory, NUMA node and NVLink peers. countAt is where
// the entry gives its accelerator count, which must agree (zero: not given).
func (d *doc) devices(nd *model.Node, n *yaml.Node, countAt model.Span) bool {
	n = yamlpos.Deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		d.WrongType(n, "expected a list", "devices", "a list", yamlpos.KindName(n))
		return false
	}
	if len(n.Content) > maxDevices {
		d.Record(nil, yamlpos.Limit{What: "a node's device list", Size: strconv.Itoa(len(n.Content)), Max: maxDevices, Unit: " devices"}.Diagnostic(d.Span(n), ""))
		return false
	}
	type peerRef struct {
		dev, peer int
		at        model.Span
	}
	var peers []peerRef
	byIndex := map[int]model.Span{}
	uuids := map[string]model.Span{}
	for pos, item := range n.Content {
		item = yamlpos.Deref(item)
		if item == nil || item.Kind != yaml.MappingNode {
			d.WrongType(item, "expected a mapping", "each device", "a mapping {index, uuid, ...}", yamlpos.KindName(item))
			return false
		}
		es := d.Mapping(item)
		if !d.inventoryFields(es, inventoryDeviceKeys, nil, d.Span(item), "device", "") {
			return false
		}
		dv := model.Device{Index: pos, NUMANode: -1}
		at := d.Span(item)
		for _, e := range es {
			switch e.Key {
			case "index", "memory_mib", "numa_node":
				x, v, ok := d.Integer(e.V, "device "+e.Key)
				if !ok {
					return false
				}
				switch {
				case e.Key == "index" && (x < 0 || x >= maxDevices):
					d.Errorf(model.CodeInventoryDevices, v.Span, "", "device index %d is out of range", x)
					return false
				case e.Key == "memory_mib" && (x < 0 || x > 1<<40):
					d.Errorf(model.CodeInvalidValue, v.Span, "", "memory_mib %d is out of range", x)
					return false
				case e.Key == "numa_node" && (x < -1 || x > 1<<16):
					d.Errorf(model.CodeInvalidValue, v.Span, "", "numa_node %d is out of range (-1 means unknown)", x)
					return false
				}
				switch e.Key {
				case "index":
					dv.Index, at = x, v.Span
				case "memory_mib":
					dv.MemoryMiB = x
				default:
					dv.NUMANode = x
				}
			case "uuid", "name", "pci_bus_id":
				v, ok := d.Scalar(e.V, "device "+e.Key)
				if !ok {
					return false
				}
				switch e.Key {
				case "uuid":
					if first, dup := uuids[v.Py.Str]; dup && v.Py.Str != "" {
						diag := d.Errorf(model.CodeInventoryDevices, v.Span, "same UUID", "GPU UUID %s is listed twice on one node", v.Py.Str)
						diag.Labels = []model.Label{{Span: first, Message: "first listed here"}}
						return false
					}
					uuids[v.Py.Str] = v.Span
					dv.UUID = v.Py.Str
				case "name":
					dv.Name = v.Py.Str
				default:
					dv.PCIBusID = v.Py.Str
				}
			case "nvlink":
				seq := yamlpos.Deref(e.V)
				if seq == nil || seq.Kind != yaml.SequenceNode {
					d.WrongType(e.V, "expected a list", "nvlink", "a list of device indices", yamlpos.KindName(seq))
					return false
				}
				dv.NVLinkKnown = true
				dv.NVLinkPeers = []int{}
				for _, it := range seq.Content {
					p, v, ok := d.Integer(it, "nvlink peer")
					if !ok {
						return false
					}
					peers = append(peers, peerRef{dev: len(nd.Devices), peer: p, at: v.Span})
					dv.NVLinkPeers = append(dv.NVLinkPeers, p)
				}
			}
		}
		if first, dup := byIndex[dv.Index]; dup {
			diag := d.Errorf(model.CodeInventoryDevices, at, fmt.Sprintf("device %d again", dv.Index), "device index %d is listed twice", dv.Index)
			diag.Labels = []model.Label{{Span: first, Message: "first listed here"}}
			return false
		}
		byIndex[dv.Index] = at
		nd.Devices = append(nd.Devices, dv)
	}
	count := len(nd.Devices)
	if countAt.Known() && nd.AccelCount != count {
		diag := d.Errorf(model.CodeInventoryDevices, countAt, fmt.Sprintf("%d accelerators", nd.AccelCount),
			"the node has %d accelerators but lists %d devices", nd.AccelCount, count)
		diag.Labels = []model.Label{{Span: d.Span(n), Message: fmt.Sprintf("%d devices", count)}}
		return false
	}
	nd.AccelCount = count
	for idx, at := range byIndex {
		if idx >= count {
			d.Errorf(model.CodeInventoryDevices, at, "", "device index %d is past the node's %d devices (indices run 0..%d)", idx, count, count-1)
			return false
		}
	}
	for _, p := range peers {
		self := nd.Devices[p.dev].Index
		switch {
		case p.peer == self:
			d.Errorf(model.CodeInventoryDevices, p.at, "itself", "device %d lists itself as an NVLink peer", self)
			return false
		case p.peer < 0 || p.peer >= count:
			d.Errorf(model.CodeInventoryDevices, p.at, "no such device", "device %d lists NVLink peer %d, but the node's devices are 0..%d", self, p.peer, count-1)
			return false
		}
	}
	return true
}
