package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"go.yaml.in/yaml/v3"
)

// maxDirConfigs bounds how many files `check DIR` takes from one folder.
const maxDirConfigs = 10_000

// ConfigsIn lists what `check DIR` checks: the folder's *.yaml and *.yml
// files, sorted by name, leaving out hidden files (.rlsolve.yaml) and
// inventories (a file whose only key is inventory: or nodes:, which
// check would refuse as "an inventory, not a config"). Sub-folders are
// not entered: beside a config they hold its Hydra groups, which are not
// configs of their own. skipped names the inventories left out.
func ConfigsIn(dir string) (configs, skipped []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if e.IsDir() || strings.HasPrefix(name, ".") || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		if len(configs)+len(skipped) >= maxDirConfigs {
			break
		}
		file := filepath.Join(dir, name)
		if isInventory(file) {
			skipped = append(skipped, file)
			continue
		}
		configs = append(configs, file)
	}
	slices.Sort(configs)
	return configs, skipped, nil
}

// isInventory is true for a file whose top-level mapping has the one key
// inventory: or nodes:. A file that cannot be read or parsed is not one:
// its check says what is wrong with it.
func isInventory(file string) bool {
	data, d := grammar.ReadFile(file, grammar.DefaultLimits)
	if d != nil {
		return false
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) != 1 {
		return false
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode || len(top.Content) != 2 {
		return false
	}
	k := top.Content[0].Value
	return k == "inventory" || k == "nodes"
}
