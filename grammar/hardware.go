package grammar

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// robotField is one field of an RLinf robot config dataclass, with its default.
type robotField struct {
	name string
	def  any
}

// robotFields lists each robot type's fields in declaration order (node_rank
// first, required), with RLinf's defaults (semantics §1.5).
var robotFields = map[string][]robotField{
	"Franka": {
		{"robot_ip", nil}, {"camera_serials", nil}, {"camera_type", "realsense"}, {"gripper_type", "franka"},
		{"gripper_connection", nil}, {"controller_node_rank", nil}, {"disable_validate", false},
	},
	"DualFranka": {
		{"left_robot_ip", nil}, {"right_robot_ip", nil}, {"left_camera_serials", nil}, {"right_camera_serials", nil},
		{"base_camera_serials", nil}, {"camera_type", "realsense"}, {"base_camera_type", nil}, {"left_camera_type", nil},
		{"right_camera_type", nil}, {"left_gripper_type", "franka"}, {"right_gripper_type", "franka"},
		{"left_gripper_connection", nil}, {"right_gripper_connection", nil}, {"left_controller_node_rank", nil},
		{"right_controller_node_rank", nil},
	},
	"GimArm": {
		{"can_interface", "can0"}, {"arm_variant", "gim_arm_xl"}, {"camera_serials", nil}, {"camera_type", "realsense"},
		{"enable_gripper", true}, {"gripper_type", "parallel"}, {"controller_node_rank", nil}, {"disable_validate", false},
	},
	"DOSW1": {
		{"robot_url", "localhost"}, {"left_arm_port", 50051}, {"right_arm_port", 50053}, {"left_lead_port", 50050},
		{"right_lead_port", 50052}, {"camera_serials", nil},
	},
	"Turtle2": {},
}

// ipFields are the fields RLinf validates with ipaddress.ip_address.
var ipFields = map[string]bool{"robot_ip": true, "left_robot_ip": true, "right_robot_ip": true}

func validIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// hardware reads a node group's `hardware:` (semantics §1.5): a robot type
// and its configs, each filled out with RLinf's defaults. It returns nil
// when anything in it is wrong, having reported every config's problems.
func (d *doc) hardware(n *yaml.Node) *model.HardwareConfig {
	n = yamlpos.Deref(n)
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, "expected a mapping", "hardware", "a mapping {type, configs}", yamlpos.KindName(n))
		return nil
	}
	es := d.Mapping(n)
	if !d.fields(es, []string{"type", "configs"}, []string{"type", "configs"}, d.Span(n), "hardware") {
		return nil
	}
	hw, fields, ok := d.hardwareType(es)
	if !ok {
		return nil
	}
	ce, _ := yamlpos.Lookup(es, "configs")
	cn := yamlpos.Deref(ce.V)
	if cn.Kind != yaml.SequenceNode {
		d.wrongKind(cn, "expected a list", "hardware.configs", "a list of mappings", yamlpos.KindName(cn))
		return nil
	}
	valid := []string{"node_rank"}
	for _, f := range fields {
		valid = append(valid, f.name)
	}
	seen := map[string]model.Span{}
	good := true
	for j, c := range cn.Content {
		// Every config is read, so that each one's problems are reported.
		rc, ces, ok := d.robotConfig(c, j, hw.Type, valid)
		if !ok {
			good = false
			continue
		}
		given := robotGiven(ces)
		if !d.robotFieldValues(&rc, ces, given, fields, hw.Type) {
			good = false
		}
		if !d.firstRobotConfig(seen, given, rc.Span, hw.Type) {
			good = false
			continue
		}
		hw.Configs = append(hw.Configs, rc)
	}
	if !good {
		return nil
	}
	return hw
}

// hardwareType reads the hardware's robot type, which must be one RLinf
// registers, and returns that type's fields.
func (d *doc) hardwareType(es []yamlpos.Entry) (*model.HardwareConfig, []robotField, bool) {
	te, _ := yamlpos.Lookup(es, "type")
	tv, ok := d.Scalar(te.V, "hardware type")
	if !ok {
		return nil, nil, false
	}
	hw := &model.HardwareConfig{Type: tv.Py.Str, TypeSpan: tv.Span}
	fields, known := robotFields[hw.Type]
	if !known {
		diag := d.Errorf(model.CodeUnsupportedHardware, tv.Span, "not a registered type", "unsupported hardware type %q (RLinf supports %s)", hw.Type, strings.Join(model.RobotTypes, ", "))
		if s := fuzzy.Nearest(hw.Type, model.RobotTypes); s != "" {
			diag.Help = []model.Fix{{Message: fmt.Sprintf("types are case-sensitive: did you mean `%s`?", s), Edits: []model.Edit{{Span: tv.Span, NewText: s}}}}
		}
		return nil, nil, false
	}
	return hw, fields, true
}

// robotConfig reads config j of a robot type: a mapping of the type's
// fields (valid) with its node_rank.
func (d *doc) robotConfig(c *yaml.Node, j int, typ string, valid []string) (model.RobotConfig, []yamlpos.Entry, bool) {
	c = yamlpos.Deref(c)
	if c.Kind != yaml.MappingNode {
		d.wrongKind(c, "expected a mapping", fmt.Sprintf("hardware config %d", j), "a mapping", yamlpos.KindName(c))
		return model.RobotConfig{}, nil, false
	}
	ces := d.Mapping(c)
	if !d.fields(ces, valid, []string{"node_rank"}, d.Span(c), fmt.Sprintf("%s hardware config", typ)) {
		return model.RobotConfig{}, nil, false
	}
	rc := model.RobotConfig{Span: d.Span(c), Fields: map[string]any{}}
	nr, _ := yamlpos.Lookup(ces, "node_rank")
	rc.NodeRankSpan = d.Span(nr.V)
	rank, _, ok := d.Integer(nr.V, "node_rank")
	if !ok {
		return model.RobotConfig{}, nil, false
	}
	rc.NodeRank = rank
	return rc, ces, true
}

// robotGiven is the config's values as written, decoded (a value that
// does not decode is left out): the fields' values, and what duplicates
// are compared by.
func robotGiven(ces []yamlpos.Entry) map[string]any {
	given := map[string]any{}
	for _, e := range ces {
		var v any
		if err := e.V.Decode(&v); err == nil {
			given[e.Key] = v
		}
	}
	return given
}

// robotFieldValues fills the config's fields in declaration order, a
// default where none is given, and checks the values RLinf's dataclass
// checks: IP addresses, camera serials and the arm variant. It reports
// every bad value, not only the first.
func (d *doc) robotFieldValues(rc *model.RobotConfig, ces []yamlpos.Entry, given map[string]any, fields []robotField, typ string) bool {
	good := true
	for _, f := range fields {
		rc.FieldOrder = append(rc.FieldOrder, f.name)
		rc.Fields[f.name] = f.def
		if v, has := given[f.name]; has {
			rc.Fields[f.name] = v
		}
		if e, has := yamlpos.Lookup(ces, f.name); has && ipFields[f.name] && given[f.name] != nil {
			if s := fmt.Sprint(given[f.name]); !validIP(s) {
				d.badIP(e.V, f.name, typ, s)
				good = false
			}
		}
		if e, has := yamlpos.Lookup(ces, f.name); has && strings.HasSuffix(f.name, "camera_serials") && !d.serials(e.V, f.name) {
			good = false
		}
		if f.name == "arm_variant" {
			if s := fmt.Sprint(rc.Fields[f.name]); s != "gim_arm" && s != "gim_arm_xl" {
				e, _ := yamlpos.Lookup(ces, f.name)
				d.Errorf(model.CodeInvalidValue, d.Span(e.V), "", "arm_variant must be gim_arm or gim_arm_xl, but got %q", s)
				good = false
			}
		}
	}
	return good
}

// firstRobotConfig checks the config (given, written at sp) repeats no
// earlier one, as RLinf compares them, and remembers it in seen.
func (d *doc) firstRobotConfig(seen map[string]model.Span, given map[string]any, sp model.Span, typ string) bool {
	canon, _ := json.Marshal(given) // map keys sort, as yaml.dump(sort_keys=True)
	if first, dup := seen[string(canon)]; dup {
		diag := d.Errorf(model.CodeHardwareDuplicate, sp, "same as an earlier config", "duplicate %s hardware config", typ)
		diag.Labels = []model.Label{{Span: first, Message: "first given here"}}
		return false
	}
	seen[string(canon)] = sp
	return true
}
