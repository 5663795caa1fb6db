package render

import (
	"bytes"
	"encoding/json"
)

// The placement records of the fast path (readfast.go): the fields
// `rlsolve plan --output json` writes for an RLinf worker, each once,
// spelled as it writes them, with values of their types and no null.
// Anything else is left to the strict reader.

// The bits of a record's fields, for a record's fields seen.
const (
	fRank = 1 << iota
	fClusterNodeRank
	fPlacementNodeRank
	fLocalAcceleratorRank
	fLocalRank
	fLocalWorldSize
	fVisibleAccelerators
	fIsolateAccelerator
	fLocalHardwareRanks
	fNodeGroupLabel
	fAcceleratorType
	fHostname
	fIP
	fGPUUUIDs
	fInterpreter
	fEnv
)

// fRequired are the fields every record must list (recordFields).
const fRequired = fRank | fClusterNodeRank | fLocalHardwareRanks | fVisibleAccelerators | fEnv

// minRecordBytes is the shortest a record the fast path reads can be
// (its required fields, empty): it bounds the records a world_size
// reserves room for by the document's size.
const minRecordBytes = len(`{"rank":0,"cluster_node_rank":0,"local_hardware_ranks":[],"visible_accelerators":[],"env":{}}`)

// records reads a placements list, of size records if its component's
// world_size is right.
func (w *planWalker) records(size int) ([]DocPlacement, bool) {
	if !w.eat('[') {
		return nil, false
	}
	out := make([]DocPlacement, 0, max(0, min(size, (len(w.data)-w.pos)/minRecordBytes)))
	if w.eat(']') {
		return out, true
	}
	for {
		var p DocPlacement
		if w.peek() != '{' || !w.record(&p) {
			return nil, false
		}
		out = append(out, p)
		if w.eat(']') {
			return out, true
		}
		if !w.eat(',') {
			return nil, false
		}
	}
}

// record reads one placement record into p.
func (w *planWalker) record(p *DocPlacement) bool {
	seen := 0
	ok := w.object(func(key string) bool {
		bit, ok := w.field(p, key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	return ok && seen&fRequired == fRequired
}

// field reads the value of the record's field key into p and says which
// field it was.
func (w *planWalker) field(p *DocPlacement, key string) (int, bool) {
	switch key {
	case "rank":
		return fRank, w.int(&p.Rank)
	case "cluster_node_rank":
		return fClusterNodeRank, w.int(&p.ClusterNodeRank)
	case "placement_node_rank":
		return fPlacementNodeRank, w.int(&p.PlacementNodeRank)
	case "local_accelerator_rank":
		return fLocalAcceleratorRank, w.int(&p.LocalAcceleratorRank)
	case "local_rank":
		return fLocalRank, w.int(&p.LocalRank)
	case "local_world_size":
		return fLocalWorldSize, w.int(&p.LocalWorldSize)
	case "visible_accelerators":
		return fVisibleAccelerators, w.strings(&p.VisibleAccelerators)
	case "isolate_accelerator":
		return fIsolateAccelerator, w.bool(&p.IsolateAccelerator)
	case "local_hardware_ranks":
		return fLocalHardwareRanks, w.ints(&p.LocalHardwareRanks)
	case "node_group_label":
		return fNodeGroupLabel, w.string(&p.NodeGroupLabel)
	case "accelerator_type":
		return fAcceleratorType, w.string(&p.AcceleratorType)
	case "hostname":
		return fHostname, w.string(&p.Hostname)
	case "ip":
		return fIP, w.string(&p.IP)
	case "gpu_uuids":
		return fGPUUUIDs, w.strings(&p.GPUUUIDs)
	case "python_interpreter_path":
		return fInterpreter, w.string(&p.Interpreter)
	case "env":
		return fEnv, w.env(&p.Env)
	}
	return 0, false
}

// int reads a whole number that fits an int: JSON's grammar, at most 18
// digits, no fraction or exponent.
func (w *planWalker) int(v *int) bool {
	w.space()
	i, neg := w.pos, false
	if i < len(w.data) && w.data[i] == '-' {
		neg = true
		i++
	}
	start, n := i, 0
	for ; i < len(w.data) && w.data[i] >= '0' && w.data[i] <= '9'; i++ {
		n = n*10 + int(w.data[i]-'0')
	}
	digits := i - start
	if digits == 0 || digits > 18 || (digits > 1 && w.data[start] == '0') {
		return false
	}
	w.pos = i
	if !w.atValueEnd() {
		return false
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}

func (w *planWalker) bool(v *bool) bool {
	w.space()
	switch {
	case bytes.HasPrefix(w.data[w.pos:], []byte("true")):
		*v, w.pos = true, w.pos+4
	case bytes.HasPrefix(w.data[w.pos:], []byte("false")):
		*v, w.pos = false, w.pos+5
	default:
		return false
	}
	return w.atValueEnd()
}

// ints reads a list of whole numbers.
func (w *planWalker) ints(v *[]int) bool {
	out := []int{}
	ok := w.list(func() bool {
		var n int
		if !w.int(&n) {
			return false
		}
		out = append(out, n)
		return true
	})
	*v = out
	return ok
}

// strings reads a list of strings.
func (w *planWalker) strings(v *[]string) bool {
	out := []string{}
	ok := w.list(func() bool {
		var s string
		if !w.string(&s) {
			return false
		}
		out = append(out, s)
		return true
	})
	*v = out
	return ok
}

// list reads a list, calling item at each element.
func (w *planWalker) list(item func() bool) bool {
	if !w.eat('[') {
		return false
	}
	if w.eat(']') {
		return true
	}
	for {
		if !item() {
			return false
		}
		if w.eat(']') {
			return true
		}
		if !w.eat(',') {
			return false
		}
	}
}

// env reads an environment: names to strings, each name once. The i-th
// name and value are mostly the previous environment's i-th (the writer
// sorts them, and workers share most), which saves hashing them to intern.
func (w *planWalker) env(v *map[string]string) bool {
	m := make(map[string]string, len(w.envKeys))
	i := 0
	ok := w.objectLike(w.envKeys, func(key string) bool {
		s, ok := w.stringAs(w.envValues, i)
		if m[key] = s; !ok || len(m) != i+1 { // a name twice
			return false
		}
		w.envKeys, w.envValues = remember(w.envKeys, i, key), remember(w.envValues, i, s)
		i++
		return true
	})
	w.envKeys, w.envValues, *v = w.envKeys[:i], w.envValues[:i], m
	return ok
}

// remember sets list[i], i being at most len(list).
func remember(list []string, i int, s string) []string {
	if i == len(list) {
		return append(list, s)
	}
	list[i] = s
	return list
}

// string reads a string value, escapes decoded as encoding/json does.
func (w *planWalker) string(v *string) bool {
	s, ok := w.stringAs(nil, 0)
	*v = s
	return ok
}

// stringAs is string, taking like[i] for the value where it is the same.
func (w *planWalker) stringAs(like []string, i int) (s string, ok bool) {
	w.space()
	raw, escaped, ok := w.stringToken()
	switch {
	case !ok:
		return "", false
	case !escaped && i < len(like) && like[i] == string(raw[1:len(raw)-1]):
		s = like[i]
	case !escaped:
		s = w.internBytes(raw[1 : len(raw)-1])
	default:
		if s, ok = unescape(raw); !ok {
			return "", false
		}
	}
	return s, w.atValueEnd()
}

// unescape is the string of a JSON string token with escapes, as
// encoding/json reads it; false for one with an escaped NUL (the strict
// reader refuses it) or one it cannot read.
func unescape(raw []byte) (string, bool) {
	var s string
	if bytes.Contains(raw, []byte(`\u0000`)) || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// stringToken reads the string at the walker, quotes included; escaped
// says whether it has a backslash. Control characters, which JSON does
// not allow in a string, fail it.
func (w *planWalker) stringToken() (raw []byte, escaped, ok bool) {
	start := w.pos
	if start >= len(w.data) || w.data[start] != '"' {
		return nil, false, false
	}
	for i := start + 1; i < len(w.data); i++ {
		switch c := w.data[i]; {
		case c == '"':
			w.pos = i + 1
			return w.data[start:w.pos], escaped, true
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

// internBytes is b as a string, one copy per distinct string.
func (w *planWalker) internBytes(b []byte) string {
	if s, ok := w.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	w.intern[s] = s
	return s
}
