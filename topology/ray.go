package topology

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/slurmcli"
	"github.com/rlsolve/rlsolve/model"
)

// RayNode is one node of a Ray node-list dump, in either shape: `ray list
// nodes --detail --format json` (node_ip, state, is_head_node,
// resources_total, labels) or `json.dumps(ray.nodes())` (NodeManagerAddress,
// Alive, Resources, Labels).
type RayNode struct {
	IP       string
	Hostname string
	Alive    bool
	Head     bool
	GPUs     int
	// AccelType and Model come from Ray's accelerator_type resource.
	AccelType, Model string
	// Rank is RLINF_NODE_RANK when RankSet.
	Rank    int
	RankSet bool
	// RankText is the value as written, for messages.
	RankText string
	// NodeID is Ray's node id (node_id or NodeID), where the dump has it.
	NodeID string
	// obj and rankVal are where the node and its rank are written (spans
	// are computed only for messages: that is not free on long lines).
	obj, rankVal *jnode
}

// hostName and modelName are the names rlsolve takes from a dump (others
// are left out): what host names and Ray accelerator types look like.
var (
	hostName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$`)
	modelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,127}$`)
)

// maxRayDumpBytes bounds the file (16 MiB, like every other input).
const maxRayDumpBytes = 16 << 20

// RayError is a dump that cannot be read, at a position.
type RayError struct {
	Span model.Span
	Msg  string
}

func (e *RayError) Error() string { return e.Span.String() + ": " + e.Msg }

// ImportRay reads a Ray node-list dump and orders its alive nodes as
// semantics §6.1 with decision D13 says: when every node sets
// RLINF_NODE_RANK (at the top of its object, in labels/Labels, or in an env
// map), those ranks, which must be 0..n-1 and unique; when none does,
// numeric IP order, with a warning (RLS-W0602) where RLinf's own order would
// differ. An unreadable dump is a *RayError; rank problems are error
// diagnostics (the inventory is then nil). Dead nodes are left out with a
// note.
func ImportRay(file string, data []byte) (*model.Inventory, model.Diagnostics, error) {
	return ImportRayWith(file, data, RayOptions{})
}

// RayOptions choose how ImportRayWith numbers nodes that set no
// RLINF_NODE_RANK.
type RayOptions struct {
	// RLinfOrder numbers them as RLinf does (the head node first, then by
	// accelerator type, IPs compared as strings) instead of D13's numeric
	// IP order, so that the inventory's ranks are the ones RLinf will use.
	RLinfOrder bool
	// NodeSet reads the set of alive nodes only, for a launcher that never
	// reads RLINF_NODE_RANK (slime sorts its bundles itself): ranks are
	// neither read nor checked, so a value RLinf would refuse does not
	// refuse the set, and nodes are numbered in numeric IP order, head
	// first, without D13's warning.
	NodeSet bool
}

// ImportRayWith is ImportRay with options.
func ImportRayWith(file string, data []byte, opt RayOptions) (*model.Inventory, model.Diagnostics, error) {
	r, nodes, err := readRayNodes(file, data, opt)
	if err != nil {
		return nil, nil, err
	}
	return r.order(nodes)
}

// readRayNodes reads every node of a dump, alive or not, before any
// ordering (the dump's import and the live one share it).
func readRayNodes(file string, data []byte, opt RayOptions) (*rayReader, []RayNode, error) {
	if len(data) > maxRayDumpBytes {
		return nil, nil, &RayError{model.Span{File: file}, fmt.Sprintf("the dump is %d bytes; rlsolve reads at most %d", len(data), maxRayDumpBytes)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := &rayReader{file: file, data: data, rlinfOrder: opt.RLinfOrder, nodeSet: opt.NodeSet}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, &RayError{model.Span{File: file}, "the dump is empty; write it with `ray list nodes --detail --format json > FILE`"}
	}
	root, err := parseJSON(data)
	if err != nil {
		pe := err.(*posError)
		msg := pe.msg
		if hint := pythonHint(data); hint != "" {
			msg += "; " + hint
		}
		return nil, nil, &RayError{r.span(pe.off, 1), msg}
	}
	list := root
	if root.kind == 'o' {
		if n := root.get("nodes"); n != nil {
			list = n
		} else if n := root.get("result"); n != nil { // the state API's REST shape
			if res := n.get("result"); res != nil {
				list = res
			}
		}
	}
	if list.kind != 'a' {
		return nil, nil, r.errAt(list, "expected a list of nodes (the output of `ray list nodes --detail --format json` or json.dumps(ray.nodes())), but got %s", list.kindName())
	}
	if len(list.items) > maxNodes {
		return nil, nil, r.errAt(list, "the dump lists %d nodes; rlsolve reads at most %d", len(list.items), maxNodes)
	}
	if len(list.items) == 0 {
		return nil, nil, r.errAt(list, "the dump lists no nodes")
	}
	var nodes []RayNode
	for _, item := range list.items {
		n, err := r.node(item)
		if err != nil {
			return nil, nil, err
		}
		nodes = append(nodes, n)
	}
	return r, nodes, nil
}

type rayReader struct {
	file       string
	data       []byte
	rlinfOrder bool
	nodeSet    bool
	// lines holds the offset where each line starts (computed once).
	lines []int
}

func (r *rayReader) span(off, length int) model.Span {
	if r.lines == nil {
		r.lines = []int{0}
		for i, c := range r.data {
			if c == '\n' {
				r.lines = append(r.lines, i+1)
			}
		}
	}
	off = min(max(off, 0), len(r.data))
	i := sort.Search(len(r.lines), func(i int) bool { return r.lines[i] > off }) - 1
	line := i + 1
	col := utf8.RuneCount(r.data[r.lines[i]:off]) + 1
	return model.Span{File: r.file, Line: line, Col: col, EndLine: line, EndCol: col + max(length, 1)}
}

func (r *rayReader) spanOf(n *jnode) model.Span {
	if n == nil {
		return model.Span{File: r.file}
	}
	length := 1
	switch n.kind {
	case 's':
		length = len([]rune(n.str)) + 2
	case 'n':
		length = len(n.num.String())
	}
	return r.span(n.off, length)
}

func (r *rayReader) errAt(n *jnode, format string, args ...any) *RayError {
	return &RayError{r.spanOf(n), fmt.Sprintf(format, args...)}
}

// pythonHint recognises Python's repr of ray.nodes() (True, None, single
// quotes) and the CLI's default table format.
func pythonHint(data []byte) string {
	s := string(data)
	switch {
	case strings.Contains(s, "'NodeID'") || strings.Contains(s, ": True") || strings.Contains(s, ": None"):
		return "this looks like Python's repr of ray.nodes(); write JSON with `python -c 'import json, ray; ray.init(address=\"auto\"); print(json.dumps(ray.nodes()))'`"
	case strings.Contains(s, "NODE_ID") || strings.Contains(s, "node_id:"):
		return "this looks like a table or YAML; ask Ray for JSON: `ray list nodes --detail --format json`"
	}
	return ""
}

// first returns the first of the keys present in obj.
func first(obj *jnode, keys ...string) (*jnode, string) {
	for _, k := range keys {
		if v := obj.get(k); v != nil {
			return v, k
		}
	}
	return nil, ""
}

// node reads one node of the dump, in either shape, step by step; the
// first problem found ends the import.
func (r *rayReader) node(item *jnode) (RayNode, error) {
	n := RayNode{obj: item}
	if item.kind != 'o' {
		return n, r.errAt(item, "each node must be an object, but got %s", item.kindName())
	}
	if err := r.nodeAddress(item, &n); err != nil {
		return n, err
	}
	if err := r.nodeState(item, &n); err != nil {
		return n, err
	}
	if id, _ := first(item, "node_id", "NodeID"); id != nil && id.kind == 's' {
		n.NodeID = id.str
	}
	labels, _ := first(item, "labels", "Labels")
	if err := r.nodeResources(item, labels, &n); err != nil {
		return n, err
	}
	if r.nodeSet {
		return n, nil
	}
	err := r.nodeRank(item, labels, &n)
	return n, err
}

// nodeAddress reads the node's IP address, which it must have, and its
// host name where the dump gives one that is a host name.
func (r *rayReader) nodeAddress(item *jnode, n *RayNode) error {
	ip, key := first(item, "node_ip", "NodeManagerAddress")
	if ip == nil {
		return r.errAt(item, "the node has no address (node_ip or NodeManagerAddress)")
	}
	if ip.kind != 's' || strings.TrimSpace(ip.str) == "" {
		return r.errAt(ip, "%s must be a non-empty string, but got %s", key, ip.kindName())
	}
	addr, err := netip.ParseAddr(strings.TrimSpace(ip.str))
	if err != nil {
		return r.errAt(ip, "%s %q is not an IP address", key, clip(ip.str))
	}
	n.IP = addr.String()
	if h, _ := first(item, "NodeManagerHostname"); h != nil && h.kind == 's' && hostName.MatchString(h.str) {
		n.Hostname = h.str
	} else if h := item.get("node_name"); h != nil && h.kind == 's' && h.str != n.IP && hostName.MatchString(h.str) {
		if _, err := netip.ParseAddr(h.str); err != nil {
			n.Hostname = h.str
		}
	}
	return nil
}

// nodeState reads whether the node is alive (state or Alive) and whether
// it is the head node.
func (r *rayReader) nodeState(item *jnode, n *RayNode) error {
	switch st, key := first(item, "state", "Alive", "alive"); {
	case st == nil:
		return r.errAt(item, "the node has no state (state or Alive)")
	case key == "state":
		if st.kind != 's' {
			return r.errAt(st, "state must be \"ALIVE\" or \"DEAD\", but got %s", st.kindName())
		}
		n.Alive = strings.EqualFold(st.str, "ALIVE")
	default:
		if st.kind != 'b' {
			return r.errAt(st, "%s must be true or false, but got %s", key, st.kindName())
		}
		n.Alive = st.b
	}
	if h := item.get("is_head_node"); h != nil {
		if h.kind != 'b' {
			return r.errAt(h, "is_head_node must be true or false, but got %s", h.kindName())
		}
		n.Head = h.b
	}
	return nil
}

// nodeResources reads the node's accelerators from its resources (GPU or
// NPU count, accelerator_type) and, failing that, its model from labels.
func (r *rayReader) nodeResources(item, labels *jnode, n *RayNode) error {
	res, key := first(item, "resources_total", "Resources")
	if res != nil && res.kind != 'o' && res.kind != 'z' {
		return r.errAt(res, "%s must be an object, but got %s", key, res.kindName())
	}
	if res != nil && res.kind == 'o' {
		for i, k := range res.keys {
			if err := r.nodeResource(k, res.kvals[i], n); err != nil {
				return err
			}
		}
	}
	if n.Model == "" && labels != nil {
		if m := labels.get("ray.io/accelerator-type"); m != nil && m.kind == 's' && modelName.MatchString(m.str) {
			n.Model = m.str
		}
	}
	if n.GPUs > 0 && n.AccelType == "" {
		n.AccelType = accelTypeOf(n.Model)
	}
	return nil
}

// nodeResource reads one resource k of the node: a GPU count (which wins
// over an NPU count), an accelerator type, or the head node's marker.
func (r *rayReader) nodeResource(k string, v *jnode, n *RayNode) error {
	switch {
	case k == "GPU" || k == "NPU":
		c, err := r.count(v, k)
		if err != nil {
			return err
		}
		if c > 0 && (n.GPUs == 0 || k == "GPU") {
			n.GPUs = c
			if k == "NPU" {
				n.AccelType = "NPU"
			}
		}
	case strings.HasPrefix(k, "accelerator_type:") && modelName.MatchString(strings.TrimPrefix(k, "accelerator_type:")):
		n.Model = strings.TrimPrefix(k, "accelerator_type:")
	case k == "node:__internal_head__":
		n.Head = true
	}
	return nil
}

// nodeRank reads RLINF_NODE_RANK where a dump can carry it (the node
// object, its labels, an env map), as RLinf parses it.
func (r *rayReader) nodeRank(item, labels *jnode, n *RayNode) error {
	var rank *jnode
	for _, holder := range []*jnode{item, labels, item.get("env"), item.get("Env")} {
		if holder == nil || holder.kind != 'o' {
			continue
		}
		if v := holder.get("RLINF_NODE_RANK"); v != nil {
			rank = v
			break
		}
	}
	if rank == nil {
		return nil
	}
	n.rankVal = rank
	switch rank.kind {
	case 's':
		n.RankText = rank.str
	case 'n':
		n.RankText = rank.num.String()
	case 'z':
		n.RankText = ""
		return nil
	default:
		return r.errAt(rank, "RLINF_NODE_RANK must be a string or a number, but got %s", rank.kindName())
	}
	if !n.setRank(n.RankText) {
		return r.errAt(rank, "Invalid NODE_RANK value: %s. Must be an integer. (RLinf rejects it too)", n.RankText)
	}
	return nil
}

// setRank reads RLINF_NODE_RANK's text as RLinf parses it (Python's int():
// surrounding white space and a sign are fine); false when RLinf would
// refuse it.
func (n *RayNode) setRank(text string) bool {
	v, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || v > 1<<20 {
		return false
	}
	n.Rank, n.RankSet = v, v != -1 // -1 is RLinf's "not set"
	return true
}

// count reads a resource amount that must be a whole number of devices.
func (r *rayReader) count(v *jnode, key string) (int, error) {
	if v.kind != 'n' {
		return 0, r.errAt(v, "resource %s must be a number, but got %s", key, v.kindName())
	}
	f, err := v.num.Float64()
	if err != nil || f < 0 || f > 1024 || f != math.Trunc(f) {
		return 0, r.errAt(v, "resource %s is %s; expected a whole number of devices from 0 to 1024", key, v.num)
	}
	return int(f), nil
}

// accelTypeOf maps Ray's accelerator_type to RLinf's accelerator type.
func accelTypeOf(m string) string {
	u := strings.ToUpper(m)
	switch {
	case strings.HasPrefix(u, "AMD"):
		return "AMD_GPU"
	case strings.HasPrefix(u, "INTEL"):
		return "INTEL_GPU"
	}
	return model.AccelNVGPU
}

// order applies RLinf's node-rank rules (semantics §6.1) to the alive
// nodes, with D13's numeric order when no node sets a rank.
func (r *rayReader) order(all []RayNode) (*model.Inventory, model.Diagnostics, error) {
	var ds model.Diagnostics
	var alive []RayNode
	for _, n := range all {
		if n.Alive {
			alive = append(alive, n)
			continue
		}
		ds = append(ds, model.Diagnostic{Severity: model.SeverityNote, Primary: r.spanOf(n.obj),
			Summary: fmt.Sprintf("left out node %s: it is not alive (RLinf uses alive nodes only)", n.IP)})
	}
	if len(alive) == 0 {
		sp := model.Span{}
		if len(all) > 0 {
			sp = r.spanOf(all[0].obj)
		}
		return nil, ds, &RayError{sp, "the dump has no alive node"}
	}
	if len(alive) == 1 && alive[0].RankSet && alive[0].Rank != 0 {
		ds = append(ds, model.Diagnostic{Severity: model.SeverityNote, Primary: r.spanOf(alive[0].rankVal),
			Summary: fmt.Sprintf("RLINF_NODE_RANK %d is ignored: RLinf gives the only alive node rank 0", alive[0].Rank)})
	}
	if len(alive) == 1 {
		alive[0].Rank, alive[0].RankSet = 0, true
	}
	var set, unset []RayNode
	for _, n := range alive {
		if n.RankSet {
			set = append(set, n)
		} else {
			unset = append(unset, n)
		}
	}
	fail := func(d model.Diagnostic) (*model.Inventory, model.Diagnostics, error) {
		d.Severity = model.SeverityError
		return nil, append(ds, d), nil
	}
	if d := r.sharedAddress(alive); d != nil {
		return fail(*d)
	}
	inv := &model.Inventory{Source: "Ray node list"}
	switch {
	case len(set) > 0 && len(unset) > 0:
		d := model.Diagnostic{Code: model.CodeInventoryRankMix, Primary: r.spanOf(unset[0].obj), PrimaryLabel: "no RLINF_NODE_RANK",
			Summary: fmt.Sprintf("Either all nodes set RLINF_NODE_RANK, or none of them should have: %d of %d alive nodes set it (%s does not)", len(set), len(alive), unset[0].IP),
			Labels:  []model.Label{{Span: r.spanOf(set[0].rankVal), Message: fmt.Sprintf("%s sets it", set[0].IP)}},
			Why:     "RLinf refuses to start when only some nodes set RLINF_NODE_RANK (semantics §6.1)."}
		d.Help = []model.Fix{{Message: "set RLINF_NODE_RANK on every node (e.g. `ray start --labels='{\"RLINF_NODE_RANK\": \"3\"}'` plus the environment variable), or on none"}}
		return fail(d)
	case len(set) > 0:
		ranks := grammar.Ranks{Name: "RLINF_NODE_RANK", Of: make([]int, len(set)),
			At: func(i int) model.Span { return r.spanOf(set[i].rankVal) }, Node: func(i int) string { return set[i].IP }}
		for i, nd := range set {
			ranks.Of[i] = nd.Rank
		}
		var bad model.Diagnostics
		if !grammar.CheckRanks(&bad, ranks) {
			return nil, append(ds, bad...), nil
		}
		sort.SliceStable(set, func(i, j int) bool { return set[i].Rank < set[j].Rank })
		inv.RLinfRanks = len(alive) > 1 // one node is rank 0 whatever it says
		for _, nd := range set {
			inv.Nodes = append(inv.Nodes, nd.modelNode())
		}
	default:
		nodes := make([]model.Node, len(alive))
		head := -1
		for i, nd := range alive {
			nodes[i] = nd.modelNode()
			if nd.Head {
				head = i
			}
		}
		ordered, warn := OrderWithHead(nodes, head)
		switch {
		case r.rlinfOrder:
			ordered, warn = rlinfOrder(nodes, head), ""
		case r.nodeSet:
			warn = ""
		}
		inv.Nodes = ordered
		if warn != "" {
			d := model.Diagnostic{Code: model.WarnNodeOrderRLinf, Severity: model.SeverityWarning, Primary: r.spanOf(alive[0].obj),
				Summary: warn, Why: "Without RLINF_NODE_RANK, RLinf puts the head node first, then groups nodes by accelerator type and sorts IPs as strings; rlsolve sorts IPv4 addresses numerically (decision D13)."}
			ds = append(ds, d)
		}
	}
	for i := range inv.Nodes {
		inv.Nodes[i].Rank = i
	}
	return inv, ds, nil
}

func (n *RayNode) modelNode() model.Node {
	nd := model.Node{Hostname: n.Hostname, IP: n.IP, AccelCount: n.GPUs, AccelModel: n.Model, AccelType: n.AccelType}
	if n.GPUs == 0 {
		nd.AccelType = ""
	}
	return nd
}

// maxNodes bounds one listing of nodes (a Ray dump, a Slurm partition).
const maxNodes = slurmcli.MaxNodes

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
