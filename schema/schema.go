// Package schema holds the JSON Schemas (draft-07, what yaml-language-server
// supports) of the YAML rlsolve reads: an RLinf config's cluster section
// and an inventory. Editors use them to complete and validate keys; they
// follow the keys package grammar accepts, and a test holds them to it.
//
// cluster.schema.json refers to inventory.schema.json for the optional
// `inventory:` key, so the two files work side by side (on a web server
// or a disk); Cluster returns the cluster schema with the inventory's
// definitions copied in, one file that needs nothing else.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed cluster.schema.json
var clusterJSON []byte

//go:embed inventory.schema.json
var inventoryJSON []byte

// Names are the schemas `rlsolve schema NAME` prints.
var Names = []string{"cluster", "inventory"}

// Source returns a schema file as stored: "cluster" or "inventory".
func Source(name string) ([]byte, bool) {
	switch name {
	case "cluster":
		return clusterJSON, true
	case "inventory":
		return inventoryJSON, true
	}
	return nil, false
}

// Cluster is the cluster schema as one self-contained document.
func Cluster() ([]byte, error) {
	var cluster, inv map[string]any
	if err := json.Unmarshal(clusterJSON, &cluster); err != nil {
		return nil, fmt.Errorf("cluster.schema.json: %w", err)
	}
	if err := json.Unmarshal(inventoryJSON, &inv); err != nil {
		return nil, fmt.Errorf("inventory.schema.json: %w", err)
	}
	defs, _ := cluster["definitions"].(map[string]any)
	invDefs, _ := inv["definitions"].(map[string]any)
	if defs == nil || invDefs == nil {
		return nil, fmt.Errorf("schema: definitions missing")
	}
	for k, v := range invDefs {
		if _, dup := defs[k]; dup {
			return nil, fmt.Errorf("schema: definition %q is in both schemas", k)
		}
		defs[k] = v
	}
	localRefs(cluster, "inventory.schema.json#")
	return encode(cluster)
}

// Inventory is the inventory schema (it is self-contained as stored).
func Inventory() ([]byte, error) {
	var inv map[string]any
	if err := json.Unmarshal(inventoryJSON, &inv); err != nil {
		return nil, fmt.Errorf("inventory.schema.json: %w", err)
	}
	return encode(inv)
}

// Get returns the named schema, self-contained.
func Get(name string) ([]byte, error) {
	switch name {
	case "cluster":
		return Cluster()
	case "inventory":
		return Inventory()
	}
	return nil, fmt.Errorf("unknown schema %q (known: %s)", name, strings.Join(Names, ", "))
}

// localRefs turns references into another file (prefix) into local ones.
func localRefs(v any, prefix string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" && strings.HasPrefix(s, prefix) {
				v[k] = "#" + strings.TrimPrefix(s, prefix)
				continue
			}
			localRefs(x, prefix)
		}
	case []any:
		for _, x := range v {
			localRefs(x, prefix)
		}
	}
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
