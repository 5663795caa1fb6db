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

// placeholders warns about each placeholder path in the composed config
// (D17): RLinf reads it as it is and fails when a worker starts with it or
// loads from it, minutes into a run. One warning per placeholder, at its
// first place, with its other places as labels; a value composed at two
// places counts once.
func (d *doc) placeholders() {
	seen := map[*yaml.Node]bool{}
	type use struct {
		n    *yaml.Node
		path string
	}
	var order []string
	uses := map[string][]use{}
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
				if uses[n.Value] == nil {
					order = append(order, n.Value)
				}
				uses[n.Value] = append(uses[n.Value], use{n, path})
			}
		}
	}
	walk(d.Root, "")
	for _, v := range order {
		first := uses[v][0]
		w := d.placeholder(first.n, first.path)
		for _, u := range uses[v][1:] {
			w.Labels = append(w.Labels, model.Label{Span: d.Span(u.n), Message: u.path + " too"})
		}
	}
}

func (d *doc) placeholder(n *yaml.Node, path string) *model.Diagnostic {
	key := path[strings.LastIndexAny(path, ".]")+1:]
	what := "RLinf reads it as it is and fails when it loads from it"
	if key == "python_interpreter_path" {
		what = "RLinf starts the node's workers with it, and they fail at launch"
	}
	w := d.Warnf(model.WarnPlaceholder, d.Span(n), "a placeholder", "%s is the placeholder `%s`: %s", path, n.Value, what)
	w.Help = []model.Fix{{Message: "replace it with the real path (or override it on the command line: " + path + "=PATH)"}}
	return w
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
