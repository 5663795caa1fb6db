package grammar

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

var inventoryNodeKeys = []string{"rank", "ranks", "hostname", "hostnames", "ip", "ips", "accelerators", "hardware", "devices"}

// LoadInventory reads an inventory file: a top-level `inventory:` key or a
// bare `nodes:` list (design.md "Inputs").
func LoadInventory(file string, data []byte, lim Limits) (*model.Inventory, model.Diagnostics) {
	d := parseDoc(file, data, lim)
	if d.root == nil {
		return nil, d.diags
	}
	n := d.root
	if e, ok := lookup(d.mapping(n), "inventory"); ok {
		n = e.v
	}
	inv := d.inventory(n)
	if inv != nil {
		inv.Source = file
	}
	return inv, d.diags
}

func (d *doc) inventory(n *yaml.Node) *model.Inventory {
	n = deref(n)
	es := d.mapping(n)
	ne, ok := lookup(es, "nodes")
	if n.Kind != yaml.MappingNode || !ok {
		d.errorf(model.CodeInventoryInvalid, d.span(n), "", "an inventory needs a `nodes:` list")
		return nil
	}
	list := deref(ne.v)
	if list.Kind != yaml.SequenceNode {
		d.errorf(model.CodeWrongType, d.span(list), "expected a list", "inventory nodes must be a list, but got %s", kindName(list))
		return nil
	}
	inv := &model.Inventory{Source: d.file, Span: d.keySpan(ne.k)}
	byRank := map[int]model.Span{}
	good := true
	for _, item := range list.Content {
		nodes, ok := d.inventoryEntry(item, len(inv.Nodes))
		if !ok {
			good = false
			continue
		}
		for _, nd := range nodes {
			if first, dup := byRank[nd.Rank]; dup {
				diag := d.errorf(model.CodeInventoryInvalid, nd.Span, fmt.Sprintf("node %d again", nd.Rank), "inventory lists node rank %d twice", nd.Rank)
				diag.Labels = []model.Label{{Span: first, Message: "first listed here"}}
				good = false
				continue
			}
			byRank[nd.Rank] = nd.Span
			inv.Nodes = append(inv.Nodes, nd)
		}
		if len(inv.Nodes) > d.limits.MaxClusterNodes {
			d.errorf(model.CodeLimit, d.span(item), "", "the inventory has more than %d nodes", d.limits.MaxClusterNodes)
			return nil
		}
	}
	if !good {
		return nil
	}
	sorted := make([]model.Node, len(inv.Nodes))
	for _, nd := range inv.Nodes {
		if nd.Rank >= len(inv.Nodes) {
			d.errorf(model.CodeInventoryInvalid, nd.Span, "rank past the end", "inventory node ranks must run 0..%d without gaps, but node %d is listed", len(inv.Nodes)-1, nd.Rank)
			return nil
		}
		sorted[nd.Rank] = nd
	}
	inv.Nodes = sorted
	return inv
}

// inventoryEntry reads one entry, which may describe a range of identical
// nodes (`ranks: 0-7`). next is the rank used when the entry gives none.
func (d *doc) inventoryEntry(item *yaml.Node, next int) ([]model.Node, bool) {
	item = deref(item)
	sp := d.span(item)
	if item.Kind != yaml.MappingNode {
		d.errorf(model.CodeWrongType, sp, "expected a mapping", "each inventory node must be a mapping, but got %s", kindName(item))
		return nil, false
	}
	es := d.mapping(item)
	if !d.fields(es, inventoryNodeKeys, []string{"accelerators"}, sp, "inventory node (use `accelerators: 0` for a CPU-only node)") {
		return nil, false
	}
	ranks := []int{next}
	if e, ok := lookup(es, "ranks"); ok {
		e2, _ := lookup(es, "rank")
		if e2.k != nil {
			d.errorf(model.CodeInventoryInvalid, d.keySpan(e2.k), "", "give `rank` or `ranks`, not both")
			return nil, false
		}
		v, ok := d.str(e.v, "inventory ranks")
		if !ok {
			return nil, false
		}
		var good bool
		if ranks, good = d.expandRanks(v, []int{0, d.limits.MaxClusterNodes - 1}, "inventory ranks", "the inventory"); !good {
			return nil, false
		}
		sp = v.span
	} else if e, ok := lookup(es, "rank"); ok {
		r, v, ok := d.integer(e.v, "inventory rank")
		if !ok {
			return nil, false
		}
		if r < 0 || r >= d.limits.MaxClusterNodes {
			d.errorf(model.CodeInventoryInvalid, v.span, "", "inventory rank %d is out of range", r)
			return nil, false
		}
		ranks, sp = []int{r}, v.span
	}
	base := model.Node{Span: sp, AccelType: model.AccelNVGPU}
	if e, ok := lookup(es, "accelerators"); ok && !d.accelerators(&base, e.v) {
		return nil, false
	}
	if e, ok := lookup(es, "hardware"); ok {
		base.Hardware = map[string]int{}
		for _, h := range d.mapping(e.v) {
			c, v, ok := d.integer(h.v, "robot count")
			if !ok {
				return nil, false
			}
			if !contains(model.RobotTypes, h.key) {
				d.errorf(model.CodeUnsupportedHardware, d.keySpan(h.k), "", "unknown robot type %q (known: %s)", h.key, strings.Join(model.RobotTypes, ", "))
				return nil, false
			}
			if c < 0 || c > 1024 {
				d.errorf(model.CodeInvalidValue, v.span, "", "robot count %d is out of range", c)
				return nil, false
			}
			base.Hardware[h.key] = c
		}
	}
	names, ok := d.nameList(es, "hostname", "hostnames", len(ranks))
	if !ok {
		return nil, false
	}
	ips, ok := d.nameList(es, "ip", "ips", len(ranks))
	if !ok {
		return nil, false
	}
	out := make([]model.Node, len(ranks))
	for i, r := range ranks {
		out[i] = base
		out[i].Rank = r
		if names != nil {
			out[i].Hostname = names[i]
		}
		if ips != nil {
			out[i].IP = ips[i]
		}
	}
	if e, ok := lookup(es, "devices"); ok {
		if len(ranks) != 1 {
			d.errorf(model.CodeInventoryInvalid, d.keySpan(e.k), "", "`devices` describes one node; give it in an entry with a single rank")
			return nil, false
		}
		if !d.devices(&out[0], e.v) {
			return nil, false
		}
	}
	return out, true
}

func (d *doc) accelerators(nd *model.Node, n *yaml.Node) bool {
	n = deref(n)
	if n.Kind == yaml.ScalarNode {
		c, v, ok := d.integer(n, "accelerators")
		if ok && (c < 0 || c > 1024) {
			d.errorf(model.CodeInvalidValue, v.span, "", "accelerator count %d is out of range", c)
			return false
		}
		nd.AccelCount = c
		return ok
	}
	es := d.mapping(n)
	if !d.fields(es, []string{"type", "model", "count", "memory_gib"}, []string{"count"}, d.span(n), "accelerators") {
		return false
	}
	for _, e := range es {
		switch e.key {
		case "count":
			c, v, ok := d.integer(e.v, "accelerator count")
			if !ok {
				return false
			}
			if c < 0 || c > 1024 {
				d.errorf(model.CodeInvalidValue, v.span, "", "accelerator count %d is out of range", c)
				return false
			}
			nd.AccelCount = c
		case "type":
			v, ok := d.str(e.v, "accelerator type")
			if !ok {
				return false
			}
			known := []string{"NV_GPU", "AMD_GPU", "INTEL_GPU", "NPU", "KUNLUN_XPU", "MUSA_GPU"}
			if !contains(known, v.py.str) {
				d.errorf(model.CodeInvalidValue, v.span, "", "unknown accelerator type %q (known: %s)", v.py.str, strings.Join(known, ", "))
				return false
			}
			nd.AccelType = v.py.str
		case "model":
			v, ok := d.str(e.v, "accelerator model")
			if !ok {
				return false
			}
			nd.AccelModel = v.py.str
		case "memory_gib":
			var f float64
			if err := e.v.Decode(&f); err != nil {
				d.errorf(model.CodeWrongType, d.span(e.v), "", "memory_gib must be a number")
				return false
			}
			nd.MemoryGiB = f
		}
	}
	return true
}

// nameList reads `single` (one name) or `plural` (a host list or YAML
// list) for count nodes.
func (d *doc) nameList(es []entry, single, plural string, count int) ([]string, bool) {
	e, ok := lookup(es, plural)
	if !ok {
		e, ok = lookup(es, single)
	}
	if !ok {
		return nil, true
	}
	var names []string
	if seq := deref(e.v); seq.Kind == yaml.SequenceNode {
		for _, it := range seq.Content {
			v, ok := d.str(it, plural)
			if !ok {
				return nil, false
			}
			names = append(names, v.py.str)
		}
	} else {
		v, ok := d.str(e.v, plural)
		if !ok {
			return nil, false
		}
		var err error
		if names, err = ExpandHostlist(v.py.str, count); err != nil {
			d.errorf(model.CodeInventoryInvalid, v.span, "", "%s: %v", plural, err)
			return nil, false
		}
	}
	if len(names) != count {
		d.errorf(model.CodeInventoryInvalid, d.span(e.v), fmt.Sprintf("%d names", len(names)), "%s gives %d names for %d nodes", e.key, len(names), count)
		return nil, false
	}
	return names, true
}

func (d *doc) devices(nd *model.Node, n *yaml.Node) bool {
	var devs []struct {
		Index     int    `yaml:"index"`
		UUID      string `yaml:"uuid"`
		Name      string `yaml:"name"`
		PCIBusID  string `yaml:"pci_bus_id"`
		MemoryMiB int    `yaml:"memory_mib"`
		NUMANode  int    `yaml:"numa_node"`
		NVLink    []int  `yaml:"nvlink"`
	}
	if err := n.Decode(&devs); err != nil {
		d.errorf(model.CodeWrongType, d.span(n), "", "devices: %v", err)
		return false
	}
	for _, dv := range devs {
		nd.Devices = append(nd.Devices, model.Device{Index: dv.Index, UUID: dv.UUID, Name: dv.Name, PCIBusID: dv.PCIBusID,
			MemoryMiB: dv.MemoryMiB, NUMANode: dv.NUMANode, NVLinkPeers: dv.NVLink})
	}
	if nd.AccelCount == 0 {
		nd.AccelCount = len(devs)
	}
	return true
}
