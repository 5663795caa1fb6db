package grammar

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// placeholderPath matches the paths RLinf's example configs leave for the
// user to fill in: /path/to/python, /path/to/model/Qwen2.5-1.5B/, /PATH/TO/MODEL.
var placeholderPath = regexp.MustCompile(`(?i)^/path/to(/|$)`)

// placeholders warns about every placeholder path in the composed config
// (D17): RLinf reads it as it is and fails when a worker starts with it or
// loads from it, minutes into a run. A value composed at two places is
// reported once.
func (d *doc) placeholders() {
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		n = yamlpos.Deref(n)
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		switch n.Kind {
		case yaml.MappingNode:
			for _, e := range d.Mapping(n) {
				walk(e.V, join(path, e.Key))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		case yaml.ScalarNode:
			if placeholderPath.MatchString(n.Value) {
				d.placeholder(n, path)
			}
		}
	}
	walk(d.Root, "")
}

func (d *doc) placeholder(n *yaml.Node, path string) {
	key := path[strings.LastIndexAny(path, ".]")+1:]
	what := "RLinf reads it as it is and fails when it loads from it"
	if key == "python_interpreter_path" {
		what = "RLinf starts the node's workers with it, and they fail at launch"
	}
	w := d.Warnf(model.WarnPlaceholder, d.Span(n), "a placeholder", "%s is the placeholder `%s`: %s", path, n.Value, what)
	w.Help = []model.Fix{{Message: "replace it with the real path (or override it on the command line: " + path + "=PATH)"}}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
