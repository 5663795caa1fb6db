package render

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// What encoding/json lets through and a plan document must not have:
// invalid UTF-8 (it reads it as U+FFFD), NUL in a string (a name no
// process can be given), a key twice in one object (it keeps the last: a
// component or a field silently replaced) and a placement's field missing
// or null (it reads 0: a worker on node 0). scanDocument finds them in one
// pass over text encoding/json has already found valid, holding only the
// keys of the objects open at the point it reads.

// recordFields are the fields of a placement record that the reader
// checks: those --diff compares must be there (required), and those whose
// null encoding/json reads as 0 or false must not be null.
var recordFields = []struct {
	name              string
	required, notNull bool
}{
	{"rank", true, true}, {"cluster_node_rank", true, true}, {"local_hardware_ranks", true, false},
	{"visible_accelerators", true, false}, {"env", true, false},
	{"placement_node_rank", false, true}, {"local_accelerator_rank", false, true}, {"local_rank", false, true},
	{"local_world_size", false, true}, {"isolate_accelerator", false, true},
}

// mapFields are the document's maps (components, env and slime's): their
// keys are names, compared exactly; every other object is a struct.
var mapFields = map[string]bool{"components": true, "env": true, "bundle_resources": true, "gpu_fraction": true}

// manyKeys is the key count above which an object's keys are looked up in
// a map rather than compared one by one.
const manyKeys = 32

// scanFrame is an object or a list being read.
type scanFrame struct {
	object bool
	start  int    // offset of its opening bracket
	key    string // the key it is the value of ("" in a list or at the top)
	keys   int    // where its keys start in scanner.keys
	set    map[string]bool
	// exact: a map's keys, compared as they are; a struct's are compared
	// folded, as encoding/json matches them to fields ("Rank" is rank).
	// inFlags: under slime's flags, maps all the way down.
	exact, inFlags bool
	// record marks a placement record: seen has a bit per recordFields.
	record bool
	seen   uint32
	// comp and index name the record in messages.
	comp  string
	index int
	items int // elements so far, for a list
}

type docScanner struct {
	rd     *docReader
	frames []scanFrame
	keys   []string // the open objects' keys, frame after frame
	// key is the key whose value comes next, when valueNext.
	key       string
	valueNext bool
}

// scanDocument checks rd.data, valid JSON, for what the JSON types cannot
// say (see above).
func (rd *docReader) scanDocument() *DocumentError {
	s := &docScanner{rd: rd}
	data := rd.data
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case ' ', '\t', '\r', '\n', ':':
			i++
		case ',':
			if n := len(s.frames); n > 0 && !s.frames[n-1].object {
				s.frames[n-1].items++
			}
			i++
		case '{', '[':
			s.open(c == '{', i)
			i++
		case '}', ']':
			if err := s.close(i); err != nil {
				return err
			}
			i++
		case '"':
			end, err := s.str(i)
			if err != nil {
				return err
			}
			i = end
		default:
			end := i
			for end < len(data) && !isDelimiter(data[end]) {
				end++
			}
			if err := s.value(i, string(data[i:end])); err != nil {
				return err
			}
			i = end
		}
	}
	return nil
}

func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', ']', '}':
		return true
	}
	return false
}

// inKey reports whether the next string is an object's key.
func (s *docScanner) inKey() bool {
	n := len(s.frames)
	return n > 0 && s.frames[n-1].object && !s.valueNext
}

func (s *docScanner) open(object bool, at int) {
	key := s.key
	if n := len(s.frames); n > 0 && s.frames[n-1].record {
		s.value(at, "[") // a list or an object: present, not null
	}
	f := scanFrame{object: object, start: at, key: key, keys: len(s.keys)}
	if n := len(s.frames); n > 0 {
		f.inFlags = s.frames[n-1].inFlags
	}
	f.inFlags = f.inFlags || key == "flags"
	f.exact = f.inFlags || mapFields[key]
	// components.NAME.placements[j] is a record: a list under
	// "placements" two objects below the top one's "components".
	if n := len(s.frames); object && n == 4 && !s.frames[3].object && s.frames[3].key == "placements" && s.frames[1].key == "components" {
		f.record, f.comp, f.index = true, s.frames[2].key, s.frames[3].items
	}
	s.frames = append(s.frames, f)
	s.key, s.valueNext = "", false
}

func (s *docScanner) close(at int) *DocumentError {
	f := &s.frames[len(s.frames)-1]
	if f.record {
		for b, rf := range recordFields {
			if rf.required && f.seen&(1<<b) == 0 {
				return s.rd.errorAt(f.start, at+1-f.start, "%s/%d: the placement has no %s (every record lists it: `rlsolve plan --output json` writes it)", f.comp, f.index, rf.name)
			}
		}
	}
	s.keys = s.keys[:f.keys]
	s.frames = s.frames[:len(s.frames)-1]
	s.key, s.valueNext = "", false
	return nil
}

// str reads the string at data[at] ('"'), a key or a value, and returns
// the offset after it.
func (s *docScanner) str(at int) (int, *DocumentError) {
	data := s.rd.data
	end, escaped := at+1, false
	for data[end] != '"' {
		if data[end] == '\\' {
			escaped = true
			if data[end+1] == 'u' && string(data[end+2:end+6]) == "0000" {
				return 0, s.rd.errorAt(end, 6, "a NUL character (\\u0000) in a string: a plan document's names and values never hold one")
			}
			end++
		}
		end++
	}
	end++
	if !s.inKey() {
		return end, s.value(at, "")
	}
	key := string(data[at+1 : end-1])
	if escaped {
		if json.Unmarshal(data[at:end], &key) != nil {
			return 0, s.rd.errorAt(at, end-at, "cannot read this key")
		}
	}
	return end, s.addKey(key, at, end-at)
}

// addKey records an object's key, refusing one it already has.
func (s *docScanner) addKey(name string, at, n int) *DocumentError {
	f := &s.frames[len(s.frames)-1]
	key := name
	if !f.exact {
		key = strings.ToLower(name)
	}
	dup := false
	switch {
	case f.set != nil:
		dup = f.set[key]
		f.set[key] = true
	default:
		for _, k := range s.keys[f.keys:] {
			dup = dup || k == key
		}
		s.keys = append(s.keys, key)
		if len(s.keys)-f.keys > manyKeys {
			f.set = make(map[string]bool, 2*manyKeys)
			for _, k := range s.keys[f.keys:] {
				f.set[k] = true
			}
			s.keys = s.keys[:f.keys]
		}
	}
	if dup {
		what := "key"
		if len(s.frames) == 2 && s.frames[1].key == "components" {
			what = "component"
		}
		return s.rd.errorAt(at, n, "%s %q is listed twice in this object (JSON readers keep one of the two silently)", what, name)
	}
	s.key, s.valueNext = name, true
	return nil
}

// value notes a scalar (raw is its text; "" for a string) as the value of
// the current key.
func (s *docScanner) value(at int, raw string) *DocumentError {
	n := len(s.frames)
	if n == 0 || !s.frames[n-1].object {
		return nil
	}
	f := &s.frames[n-1]
	if f.record {
		for b, rf := range recordFields {
			if rf.name != s.key || !s.valueNext {
				continue
			}
			if raw == "null" && rf.notNull {
				return s.rd.errorAt(at, len(raw), "%s/%d: %s is null: it must be %s", f.comp, f.index, rf.name, nullHelp(rf.name))
			}
			f.seen |= 1 << b
		}
	}
	s.key, s.valueNext = "", false
	return nil
}

func nullHelp(name string) string {
	switch name {
	case "isolate_accelerator":
		return "true or false"
	}
	return "a whole number"
}

// invalidUTF8 is the offset of the first byte of data that is not UTF-8,
// or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}
