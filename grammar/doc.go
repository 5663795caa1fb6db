package grammar

import (
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// doc is one input being read: the positioned YAML reader's document and
// the limits of what it may say.
type doc struct {
	*yamlpos.Doc
	limits Limits
	// composed lists the files a Hydra defaults list composed, in order.
	composed []string
}

// parseDoc checks the raw bytes and decodes them; Root is nil when the
// file cannot be used at all.
func parseDoc(file string, data []byte, lim Limits) *doc {
	d := &doc{Doc: yamlpos.Parse(file, data, lim.yaml()), limits: lim}
	// `---`, `~`, `null`, `--- null`: OmegaConf reads an empty config,
	// which has nothing rlsolve could check, for every command alike.
	d.RefuseEmpty()
	return d
}

// yaml is the part of the limits the YAML reader enforces.
func (l Limits) yaml() yamlpos.Limits {
	return yamlpos.Limits{MaxFileBytes: l.MaxFileBytes, MaxDepth: l.MaxDepth, MaxNodes: l.MaxNodes, MaxStringBytes: l.MaxStringBytes, MaxExpandedBytes: l.MaxExpandedBytes}
}

// wrongKind reports a value of the wrong YAML type where a mapping or list
// is needed (what must be want, but got), or OmegaConf's `???` there as a
// value never given. The diagnostic it returns may take help; for `???`
// it is a detached one.
func (d *doc) wrongKind(n *yaml.Node, label, what, want, got string) *model.Diagnostic {
	if d.MissingValue(n, what) {
		return &model.Diagnostic{}
	}
	return d.WrongType(n, label, what, want, got)
}
