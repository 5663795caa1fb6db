package topology

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Formats Encode writes.
const (
	FormatYAML = "yaml"
	FormatJSON = "json"
)

// EncodeOptions shape an encoded inventory.
type EncodeOptions struct {
	// Format is FormatYAML (the default) or FormatJSON.
	Format string
	// Ranks writes each node's rank. Leave it off for a node whose rank is
	// not known yet (one `--nvml` node file, to be merged).
	Ranks bool
	// Comments are written at the top of a YAML document (one per line).
	Comments []string
}

// Encode writes inv as an inventory file that `check --inventory` and
// `topology merge` read back: `inventory: {nodes: [...]}`, one entry per
// node, devices included when known. JSON is the same document.
func Encode(inv *model.Inventory, opt EncodeOptions) ([]byte, error) {
	nodes := make([]docNode, len(inv.Nodes))
	for i := range inv.Nodes {
		nodes[i] = newDocNode(&inv.Nodes[i], opt.Ranks)
	}
	switch opt.Format {
	case FormatJSON:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"inventory": map[string]any{"nodes": nodes}}); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	case FormatYAML, "":
	default:
		return nil, fmt.Errorf("unknown format %q (yaml or json)", opt.Format)
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range nodes {
		list.Content = append(list.Content, nodes[i].yaml())
	}
	root := mapping(false, "inventory", mapping(false, "nodes", list))
	var comments []string
	for _, c := range opt.Comments {
		for _, line := range strings.Split(c, "\n") {
			comments = append(comments, "# "+line)
		}
	}
	root.HeadComment = strings.Join(comments, "\n")
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// docNode is one node entry as written (the JSON field order is the YAML
// key order).
type docNode struct {
	Rank         *int            `json:"rank,omitempty"`
	Hostname     string          `json:"hostname,omitempty"`
	Hostnames    []string        `json:"hostnames,omitempty"` // one name with host-list syntax in it
	IP           string          `json:"ip,omitempty"`
	IPs          []string        `json:"ips,omitempty"`
	CPUs         int             `json:"cpus,omitempty"`
	Accelerators docAccelerators `json:"accelerators"`
	Hardware     map[string]int  `json:"hardware,omitempty"`
	Devices      []docDevice     `json:"devices,omitempty"`
}

type docAccelerators struct {
	Type      string  `json:"type,omitempty"`
	Model     string  `json:"model,omitempty"`
	Count     int     `json:"count"`
	MemoryGiB float64 `json:"memory_gib,omitempty"`
}

type docDevice struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid,omitempty"`
	Name      string `json:"name,omitempty"`
	PCIBusID  string `json:"pci_bus_id,omitempty"`
	MemoryMiB int    `json:"memory_mib,omitempty"`
	NUMANode  *int   `json:"numa_node,omitempty"`
	NVLink    *[]int `json:"nvlink,omitempty"`
}

func newDocNode(n *model.Node, ranks bool) docNode {
	d := docNode{CPUs: n.CPUs, Hardware: n.Hardware,
		Accelerators: docAccelerators{Model: n.AccelModel, Count: n.AccelCount, MemoryGiB: n.MemoryGiB}}
	// A name with host-list syntax ([ ] ,) goes in a one-item list, which
	// the inventory grammar does not expand.
	if strings.ContainsAny(n.Hostname, "[],") {
		d.Hostnames = []string{n.Hostname}
	} else {
		d.Hostname = n.Hostname
	}
	if strings.ContainsAny(n.IP, "[],") {
		d.IPs = []string{n.IP}
	} else {
		d.IP = n.IP
	}
	if ranks {
		r := n.Rank
		d.Rank = &r
	}
	if n.AccelCount > 0 {
		d.Accelerators.Type = n.AcceleratorType()
	}
	for _, dv := range n.Devices {
		dd := docDevice{Index: dv.Index, UUID: dv.UUID, Name: dv.Name, PCIBusID: dv.PCIBusID, MemoryMiB: dv.MemoryMiB}
		if dv.NUMANode >= 0 {
			numa := dv.NUMANode
			dd.NUMANode = &numa
		}
		if dv.NVLinkKnown {
			peers := append([]int{}, dv.NVLinkPeers...)
			dd.NVLink = &peers
		}
		d.Devices = append(d.Devices, dd)
	}
	return d
}

func (d *docNode) yaml() *yaml.Node {
	var kv []any
	if d.Rank != nil {
		kv = append(kv, "rank", intNode(*d.Rank))
	}
	if d.Hostname != "" {
		kv = append(kv, "hostname", strNode(d.Hostname))
	}
	if len(d.Hostnames) > 0 {
		kv = append(kv, "hostnames", strList(d.Hostnames))
	}
	if d.IP != "" {
		kv = append(kv, "ip", strNode(d.IP))
	}
	if len(d.IPs) > 0 {
		kv = append(kv, "ips", strList(d.IPs))
	}
	if d.CPUs > 0 {
		kv = append(kv, "cpus", intNode(d.CPUs))
	}
	var acc []any
	if a := d.Accelerators; a.Type != "" {
		acc = append(acc, "type", strNode(a.Type))
	}
	if a := d.Accelerators; a.Model != "" {
		acc = append(acc, "model", strNode(a.Model))
	}
	acc = append(acc, "count", intNode(d.Accelerators.Count))
	if m := d.Accelerators.MemoryGiB; m > 0 {
		tag := "!!float"
		if m == float64(int64(m)) {
			tag = "!!int" // 80, not !!float 80
		}
		acc = append(acc, "memory_gib", &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: strconv.FormatFloat(m, 'f', -1, 64)})
	}
	kv = append(kv, "accelerators", mapping(true, acc...))
	if len(d.Hardware) > 0 {
		var hw []any
		for _, t := range model.RobotTypes {
			if c, ok := d.Hardware[t]; ok {
				hw = append(hw, t, intNode(c))
			}
		}
		kv = append(kv, "hardware", mapping(true, hw...))
	}
	if len(d.Devices) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, dv := range d.Devices {
			f := []any{"index", intNode(dv.Index)}
			if dv.UUID != "" {
				f = append(f, "uuid", strNode(dv.UUID))
			}
			if dv.Name != "" {
				f = append(f, "name", strNode(dv.Name))
			}
			if dv.PCIBusID != "" {
				f = append(f, "pci_bus_id", strNode(dv.PCIBusID))
			}
			if dv.MemoryMiB > 0 {
				f = append(f, "memory_mib", intNode(dv.MemoryMiB))
			}
			if dv.NUMANode != nil {
				f = append(f, "numa_node", intNode(*dv.NUMANode))
			}
			if dv.NVLink != nil {
				peers := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				for _, p := range *dv.NVLink {
					peers.Content = append(peers.Content, intNode(p))
				}
				f = append(f, "nvlink", peers)
			}
			list.Content = append(list.Content, mapping(true, f...))
		}
		kv = append(kv, "devices", list)
	}
	return mapping(false, kv...)
}

func strList(l []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range l {
		n.Content = append(n.Content, strNode(s))
	}
	return n
}

// mapping builds a mapping node from alternating keys and values.
func mapping(flow bool, kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	if flow {
		m.Style = yaml.FlowStyle
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv[i].(string)}, kv[i+1].(*yaml.Node))
	}
	return m
}

func intNode(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
}

var plainSafe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// strNode writes a string plainly only where both YAML 1.1 (RLinf) and 1.2
// read it as that string; otherwise it is double-quoted.
func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf":
		n.Style = yaml.DoubleQuotedStyle
		return n
	}
	if !plainSafe.MatchString(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}
