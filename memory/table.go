package memory

import (
	_ "embed"
	"encoding/json"
	"path"
	"sort"
	"strings"
	"sync"
)

// The built-in architectures are data (architectures.json): config.json
// keys per model, read by ParseHFConfig like a model's own file.
//
//go:embed architectures.json
var tableJSON []byte

type tableEntry struct {
	Names        []string        `json:"names"`
	ModelTypes   []string        `json:"model_types"`
	ExtraParams  int64           `json:"extra_params"`
	ExpertParams int64           `json:"expert_params"`
	Config       json.RawMessage `json:"config"`
	arch         Arch
}

var (
	tableOnce    sync.Once
	tableEntries []tableEntry
	tableErr     error
)

func loadTable() ([]tableEntry, error) {
	tableOnce.Do(func() {
		var doc struct {
			Architectures []tableEntry `json:"architectures"`
		}
		if tableErr = json.Unmarshal(tableJSON, &doc); tableErr != nil {
			return
		}
		for i := range doc.Architectures {
			e := &doc.Architectures[i]
			a, err := ParseHFConfig("architectures.json#"+e.Names[0], e.Config)
			if err != nil {
				tableErr = err
				return
			}
			a.Name, a.ExtraParams, a.ExpertParams = e.Names[0], e.ExtraParams, e.ExpertParams
			e.arch = a
		}
		tableEntries = doc.Architectures
	})
	return tableEntries, tableErr
}

// TableNames lists the built-in architectures' names.
func TableNames() []string {
	es, _ := loadTable()
	var out []string
	for _, e := range es {
		out = append(out, e.Names[0])
	}
	sort.Strings(out)
	return out
}

// LookupTable finds a built-in architecture by a model path's last element
// (DeepSeek-R1-Distill-Qwen-7B, Qwen3-30B-A3B-Base) or, failing that, by
// an RLinf model_type that names one architecture (openpi, openvla).
func LookupTable(modelPath, modelType string) (Arch, bool) {
	es, err := loadTable()
	if err != nil {
		return Arch{}, false
	}
	if key := tableKey(modelPath); key != "" {
		for _, e := range es {
			for _, n := range e.Names {
				if n == key {
					return e.arch, true
				}
			}
		}
	}
	mt := strings.ToLower(strings.TrimSpace(modelType))
	for _, e := range es {
		for _, t := range e.ModelTypes {
			if mt != "" && t == mt {
				return e.arch, true
			}
		}
	}
	return Arch{}, false
}

// tableKey is a model path's last element in lower case, without the
// suffixes of fine-tuned variants that keep the architecture.
func tableKey(modelPath string) string {
	p := strings.TrimRight(strings.ReplaceAll(strings.TrimSpace(modelPath), "\\", "/"), "/")
	if p == "" {
		return ""
	}
	key := strings.ToLower(path.Base(p))
	for {
		trimmed := key
		for _, suf := range []string{"-instruct", "-base", "-chat", "-hf", "-it"} {
			trimmed = strings.TrimSuffix(trimmed, suf)
		}
		if trimmed == key {
			return key
		}
		key = trimmed
	}
}
