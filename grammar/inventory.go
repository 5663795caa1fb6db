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
	if !d.controlFree(n, 0) {
		return nil, model.Span{}, false
	}
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
	if item == nil || item.Kind != yaml.MappingNode {
		d.WrongType(item, "expected a mapping", "each inventory node", "a mapping", yamlpos.KindName(item))
		return nil, false
	}
	es := d.Mapping(item)
	if !d.inventoryFields(es, inventoryNodeKeys, []string{"accelerators"}, d.Span(item), "inventory node", "use `accelerators: 0` for a CPU-only node") {
		return nil, false
	}
	ranks, sp, given, ok := d.entryRanks(es, next, d.Span(item))
	if !ok {
		return nil, false
	}
	base, ok := d.entryNode(es, sp)
	if !ok {
		return nil, false
	}
	out, ok := d.entryNodes(es, base, ranks, given)
	if !ok {
		return nil, false
	}
	if e, ok := yamlpos.Lookup(es, "devices"); ok && !d.entryDevices(es, e, out) {
		return nil, false
	}
	return out, true
}

// entryRanks reads the entry's `rank` or `ranks` (a range), or next when
// it gives neither, with where they are written (else sp, the entry) and
// whether the entry gave them.
func (d *doc) entryRanks(es []yamlpos.Entry, next int, sp model.Span) ([]int, model.Span, bool, bool) {
	if e, ok := yamlpos.Lookup(es, "ranks"); ok {
		e2, _ := yamlpos.Lookup(es, "rank")
		if e2.K != nil {
			d.Errorf(model.CodeInventoryInvalid, d.Span(e2.K), "", "give `rank` or `ranks`, not both")
			return nil, sp, false, false
		}
		v, ok := d.Scalar(e.V, "inventory ranks")
		if !ok {
			return nil, sp, false, false
		}
		ranks, good := d.expandRanks(v, []int{0, d.limits.MaxClusterNodes - 1}, "inventory ranks", "the inventory")
		if !good {
			return nil, sp, false, false
		}
		return ranks, v.Span, true, true
	}
	if e, ok := yamlpos.Lookup(es, "rank"); ok {
		r, v, ok := d.Integer(e.V, "inventory rank")
		if !ok {
			return nil, sp, false, false
		}
		if r < 0 || r >= d.limits.MaxClusterNodes {
			d.Errorf(model.CodeInventoryInvalid, v.Span, "", "inventory rank %d is out of range", r)
			return nil, sp, false, false
		}
		return []int{r}, v.Span, true, true
	}
	return []int{next}, sp, false, true
}

// entryNode reads what the entry's nodes share: accelerators, CPUs and
// robot hardware. sp is where the node is written.
func (d *doc) entryNode(es []yamlpos.Entry, sp model.Span) (model.Node, bool) {
	base := model.Node{Span: sp, AccelType: model.AccelNVGPU}
	if e, ok := yamlpos.Lookup(es, "accelerators"); ok && !d.accelerators(&base, e.V) {
		return base, false
	}
	if e, ok := yamlpos.Lookup(es, "cpus"); ok {
		c, v, ok := d.Integer(e.V, "cpus")
		if !ok {
			return base, false
		}
		if c < 0 || c > 1<<20 {
			d.Errorf(model.CodeInvalidValue, v.Span, "", "cpu count %d is out of range", c)
			return base, false
		}
		base.CPUs = c
	}
	if e, ok := yamlpos.Lookup(es, "hardware"); ok && !d.robotCounts(&base, e.V) {
		return base, false
	}
	return base, true
}

// robotCounts reads a node's `hardware:` mapping of robot type to count.
func (d *doc) robotCounts(nd *model.Node, n *yaml.Node) bool {
	nd.Hardware = map[string]int{}
	for _, h := range d.Mapping(n) {
		c, v, ok := d.Integer(h.V, "robot count")
		if !ok {
			return false
		}
		if !slices.Contains(model.RobotTypes, h.Key) {
			d.Errorf(model.CodeUnsupportedHardware, d.Span(h.K), "", "unknown robot type %q (known: %s)", h.Key, strings.Join(model.RobotTypes, ", "))
			return false
		}
		if c < 0 || c > 1024 {
			d.Errorf(model.CodeInvalidValue, v.Span, "", "robot count %d is out of range", c)
			return false
		}
		nd.Hardware[h.Key] = c
	}
	return true
}

// entryNodes makes one entry per rank from base, each with its own host
// name and address when the entry lists them.
func (d *doc) entryNodes(es []yamlpos.Entry, base model.Node, ranks []int, given bool) ([]InventoryEntry, bool) {
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
	return out, true
}

// entryDevices reads the entry's `devices` list (e) into its one node: a
// device list describes a single node, and must agree with the
// accelerator count the entry gives.
func (d *doc) entryDevices(es []yamlpos.Entry, e yamlpos.Entry, out []InventoryEntry) bool {
	if len(out) != 1 {
		d.Errorf(model.CodeInventoryInvalid, d.Span(e.K), "", "`devices` describes one node; give it in an entry with a single rank")
		return false
	}
	return d.devices(&out[0].Node, e.V, d.accelCountSpan(es))
}

// accelCountSpan is where the entry gives its accelerator count
// (`accelerators: N` or its `count:`), zero when it does not.
func (d *doc) accelCountSpan(es []yamlpos.Entry) model.Span {
	a, ok := yamlpos.Lookup(es, "accelerators")
	if !ok {
		return model.Span{}
	}
	if m := yamlpos.Deref(a.V); m != nil && m.Kind == yaml.MappingNode {
		if c, ok := yamlpos.Lookup(d.Mapping(m), "count"); ok {
			return d.Span(c.V)
		}
	}
	return d.Span(a.V)
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
	if !d.deviceListShape(n) {
		return false
	}
	refs := deviceRefs{byIndex: map[int]model.Span{}, uuids: map[string]model.Span{}}
	for pos, item := range n.Content {
		dv, ok := d.device(item, pos, len(nd.Devices), &refs)
		if !ok {
			return false
		}
		nd.Devices = append(nd.Devices, dv)
	}
	if !d.deviceCountAgrees(nd, countAt, d.Span(n)) {
		return false
	}
	nd.AccelCount = len(nd.Devices)
	return d.deviceIndicesInRange(nd.Devices, refs.byIndex) && d.nvlinkPeersExist(nd.Devices, refs.peers)
}

// deviceRefs is what reading one node's devices keeps across devices:
// where each index and UUID was first listed, for duplicates, and the
// NVLink peers named, checked once the node's device count is known.
type deviceRefs struct {
	peers   []peerRef
	byIndex map[int]model.Span
	uuids   map[string]model.Span
}

// peerRef is NVLink peer `peer` named by device `dev` (its position).
type peerRef struct {
	dev, peer int
	at        model.Span
}

// deviceListShape checks the device list is a list of bounded length.
func (d *doc) deviceListShape(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.SequenceNode {
		d.WrongType(n, "expected a list", "devices", "a list", yamlpos.KindName(n))
		return false
	}
	if len(n.Content) > maxDevices {
		d.Record(nil, yamlpos.Limit{What: "a node's device list", Size: strconv.Itoa(len(n.Content)), Max: maxDevices, Unit: " devices"}.Diagnostic(d.Span(n), ""))
		return false
	}
	return true
}

// device reads the device at position pos of the list, the dev-th read;
// its index must not repeat an earlier device's.
func (d *doc) device(item *yaml.Node, pos, dev int, refs *deviceRefs) (model.Device, bool) {
	item = yamlpos.Deref(item)
	if item == nil || item.Kind != yaml.MappingNode {
		d.WrongType(item, "expected a mapping", "each device", "a mapping {index, uuid, ...}", yamlpos.KindName(item))
		return model.Device{}, false
	}
	es := d.Mapping(item)
	if !d.inventoryFields(es, inventoryDeviceKeys, nil, d.Span(item), "device", "") {
		return model.Device{}, false
	}
	dv := model.Device{Index: pos, NUMANode: -1}
	at := d.Span(item)
	for _, e := range es {
		ok := true
		switch e.Key {
		case "index", "memory_mib", "numa_node":
			ok = d.deviceNumber(&dv, &at, e)
		case "uuid", "name", "pci_bus_id":
			ok = d.deviceString(&dv, e, refs.uuids)
		case "nvlink":
			ok = d.nvlink(&dv, e, dev, &refs.peers)
		}
		if !ok {
			return model.Device{}, false
		}
	}
	if first, dup := refs.byIndex[dv.Index]; dup {
		diag := d.Errorf(model.CodeInventoryDevices, at, fmt.Sprintf("device %d again", dv.Index), "device index %d is listed twice", dv.Index)
		diag.Labels = []model.Label{{Span: first, Message: "first listed here"}}
		return model.Device{}, false
	}
	refs.byIndex[dv.Index] = at
	return dv, true
}

// deviceNumber reads a device's index, memory_mib or numa_node, each
// bounded; at becomes where the index is written, if it is given.
func (d *doc) deviceNumber(dv *model.Device, at *model.Span, e yamlpos.Entry) bool {
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
		dv.Index, *at = x, v.Span
	case "memory_mib":
		dv.MemoryMiB = x
	default:
		dv.NUMANode = x
	}
	return true
}

// deviceString reads a device's uuid, name or pci_bus_id; a non-empty
// UUID must not repeat one listed earlier on the node.
func (d *doc) deviceString(dv *model.Device, e yamlpos.Entry, uuids map[string]model.Span) bool {
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
	return true
}

// nvlink reads the NVLink peers of device dev; whether they exist is
// checked once all devices are read (peers).
func (d *doc) nvlink(dv *model.Device, e yamlpos.Entry, dev int, peers *[]peerRef) bool {
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
		*peers = append(*peers, peerRef{dev: dev, peer: p, at: v.Span})
		dv.NVLinkPeers = append(dv.NVLinkPeers, p)
	}
	return true
}

// deviceCountAgrees checks the node's accelerator count, where given
// (countAt), matches the devices listed (at list).
func (d *doc) deviceCountAgrees(nd *model.Node, countAt, list model.Span) bool {
	count := len(nd.Devices)
	if countAt.Known() && nd.AccelCount != count {
		diag := d.Errorf(model.CodeInventoryDevices, countAt, fmt.Sprintf("%d accelerators", nd.AccelCount),
			"the node has %d accelerators but lists %d devices", nd.AccelCount, count)
		diag.Labels = []model.Label{{Span: list, Message: fmt.Sprintf("%d devices", count)}}
		return false
	}
	return true
}

// deviceIndicesInRange checks every index given is one of the node's
// devices; of several past the end, the first listed is reported (in list
// order, not the map's, so that the message is the same on every run).
func (d *doc) deviceIndicesInRange(devs []model.Device, byIndex map[int]model.Span) bool {
	count := len(devs)
	for _, dv := range devs {
		if dv.Index >= count {
			d.Errorf(model.CodeInventoryDevices, byIndex[dv.Index], "", "device index %d is past the node's %d devices (indices run 0..%d)", dv.Index, count, count-1)
			return false
		}
	}
	return true
}

// nvlinkPeersExist checks every NVLink peer is another device of the node.
func (d *doc) nvlinkPeersExist(devs []model.Device, peers []peerRef) bool {
	count := len(devs)
	for _, p := range peers {
		self := devs[p.dev].Index
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
