package grammar

import "net/netip"

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
