package grammar

import (
	"fmt"
	"regexp"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// placeholderIP matches the IP placeholders of RLinf's example configs
// (ROBOT_IP, LEFT_ROBOT_IP, ROBOT_IP_FOR_RANK1).
var placeholderIP = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// badIP reports a robot IP that is not an address; RLinf's robot config
// refuses it when it reads the cluster section (ipaddress.ip_address).
func (d *doc) badIP(n *yaml.Node, field, typ, s string) {
	if placeholderIP.MatchString(s) {
		d.Errorf(model.CodeInvalidValue, d.Span(n), "a placeholder", "%s in %s config is the placeholder %s, not an IP address", field, typ, s).Help =
			[]model.Fix{{Message: fmt.Sprintf("replace %s with the robot's IP address (RLinf refuses the placeholder when it reads the cluster section)", s)}}
		return
	}
	d.Errorf(model.CodeInvalidValue, d.Span(n), "not an IP address", "%s in %s config must be a valid IP address, but got %q", field, typ, s).Help =
		[]model.Fix{{Message: "write the robot's IP address"}}
}

// serials checks a camera_serials field is a list (D15): RLinf turns it
// into list(value), so the string "322142001230" becomes twelve cameras
// named by one digit each.
func (d *doc) serials(n *yaml.Node, field string) bool {
	v := yamlpos.Deref(n)
	if v == nil || v.Kind == yaml.SequenceNode || v.Kind == yaml.ScalarNode && v.Tag == "!!null" && !yamlpos.Quoted(v) {
		return true
	}
	if v.Kind != yaml.ScalarNode {
		d.wrongKind(v, "expected a list", field, "a list of camera serial numbers", yamlpos.KindName(v))
		return false
	}
	diag := d.WrongType(v, "one serial, not a list", field, "a list of camera serial numbers", "the single value "+v.Value)
	diag.Why = "RLinf makes the field a list with list(value): a string becomes one camera per character, and a number fails (D15)."
	list := fmt.Sprintf("[%q]", v.Value)
	diag.Help = []model.Fix{{Message: "write it as a list of one: " + list, Edits: []model.Edit{{Span: d.TokenSpan(v), NewText: list}}}}
	return false
}

// interpreter reads python_interpreter_path (D17): a path, where RLinf
// would use the text of a list as the interpreter.
func (d *doc) interpreter(n *yaml.Node) (yamlpos.Value, bool) {
	v := yamlpos.Deref(n)
	if v.Kind != yaml.SequenceNode {
		return d.Scalar(n, "python_interpreter_path")
	}
	diag := d.WrongType(v, "a list", "python_interpreter_path", "one interpreter's path", "a list")
	diag.Why = "RLinf str()s the value into the path it starts workers with, so a list becomes a path like ['/usr/bin/python3'] that does not exist (D17)."
	if len(v.Content) == 1 && v.Style&yaml.FlowStyle != 0 {
		if one := yamlpos.Deref(v.Content[0]); one.Kind == yaml.ScalarNode {
			text := one.Value
			if yamlpos.Quoted(one) {
				text = fmt.Sprintf("%q", one.Value)
			}
			diag.Help = []model.Fix{{Message: "write the one path: " + text, Edits: []model.Edit{{Span: d.Span(v), NewText: text}}}}
		}
	} else {
		diag.Help = []model.Fix{{Message: "choose one interpreter, or give each node's in its own env_configs entry"}}
	}
	return yamlpos.Value{Node: v, Span: d.Span(v)}, false
}
