package diag

import "github.com/rlsolve/rlsolve/model"

// Inventories and topology (E06, W06): node and device descriptions, and
// what rlsolve reads from them (NVLink, node order).
func init() {
	explanations = append(explanations, topologyExplanations...)
}

var topologyExplanations = []Explanation{
	{
		Code:  model.CodeInventoryDuplicate,
		Title: "node or GPU described twice",
		Text: "Each node rank is one machine and each GPU UUID one device. Two inventory entries with the same " +
			"host name, two GPUs with one UUID, or (in `rlsolve topology merge`) two files giving the same " +
			"rank usually mean a node file was merged twice or a rank was copied from another node. RLinf " +
			"likewise requires RLINF_NODE_RANK to be unique. The message points at both entries.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
inventory:
  nodes:
    - rank: 0
      hostname: gpu-a
      accelerators: {count: 8}
    - rank: 1
      hostname: gpu-a
      accelerators: {count: 8}
`,
	},
	{
		Code:  model.CodeInventoryRankMix,
		Title: "some nodes carry a rank and others do not",
		Text: "RLinf requires RLINF_NODE_RANK on every node or on none (\"Either all nodes set RLINF_NODE_RANK, " +
			"or none of them should have\"). `rlsolve topology merge` and `rlsolve topology --ray` apply the same " +
			"rule: explicit ranks are used as given, nodes without ranks are ordered by address (D13), and a mix " +
			"cannot be ordered. Give every node a rank (`rlsolve topology --nvml --rank N`, or RLINF_NODE_RANK " +
			"in its environment), or remove them all.",
		Example: `# rlsolve topology merge a.yaml b.yaml, then check with the merged inventory
# a.yaml
inventory:
  nodes:
    - rank: 0
      hostname: gpu-a
      accelerators: {count: 8}
# b.yaml: no rank
inventory:
  nodes:
    - hostname: gpu-b
      accelerators: {count: 8}
# train.yaml
cluster:
  num_nodes: 2
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeInventoryDevices,
		Title: "a node's device list is inconsistent",
		Text: "A node's devices (as `rlsolve topology --nvml` writes them) must agree with its accelerator count, " +
			"use each index 0..count-1 once, give each UUID once, and name only existing other devices as " +
			"NVLink peers. Otherwise GPU UUIDs in the plan and the NVLink check would describe the wrong GPUs. " +
			"Regenerate the entry with `rlsolve topology --nvml` on that node, or fix the list by hand.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
inventory:
  nodes:
    - rank: 0
      accelerators: {count: 2}
      devices:
        - {index: 0, nvlink: [1]}
        - {index: 1, nvlink: [2]}
`,
	},
	{
		Code:  model.WarnTPNoNVLink,
		Title: "tensor-parallel group spans GPUs without NVLink",
		Text: "Tensor parallelism exchanges activations in every layer, so a tensor-parallel group wants GPUs that " +
			"are NVLink peers; over PCIe (or across nodes) the same traffic is several times slower. When the " +
			"inventory lists each device's NVLink peers (`rlsolve topology --nvml` records them), check warns for " +
			"each component with a group that is not fully connected: a worker holding several GPUs (a " +
			"model-parallel rollout engine of rollout.tensor_parallel_size GPUs, a Flexible or Packed process " +
			"with several GPUs), or, under model-parallel placement, tensor_model_parallel_size consecutive actor " +
			"workers. RLinf runs such a layout; it is only slow.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
rollout:
  tensor_parallel_size: 4
inventory:
  nodes:
    - rank: 0
      accelerators: {count: 4}
      devices:
        - {index: 0, nvlink: [1]}
        - {index: 1, nvlink: [0]}
        - {index: 2, nvlink: [3]}
        - {index: 3, nvlink: [2]}
`,
	},
	{
		Code:  model.WarnNodeOrderRLinf,
		Title: "node order differs from RLinf's",
		Text: "When discovered nodes carry no RLINF_NODE_RANK, rlsolve orders them by IPv4 address numerically " +
			"(decision D13). RLinf instead moves the Ray head node first, groups the others by accelerator type " +
			"and sorts their IPs as strings, so 10.0.0.10 comes before 10.0.0.2. Where the two orders differ, " +
			"the plan's node ranks are not the ones RLinf will use: set RLINF_NODE_RANK on every node so that " +
			"both agree (and the order no longer depends on addresses).",
		Example: `# rlsolve topology merge a.yaml b.yaml c.yaml: files without ranks
inventory:
  nodes:
    - ip: 10.0.0.10
      accelerators: {count: 8}
    - ip: 10.0.0.2
      accelerators: {count: 8}
    - ip: 10.0.0.1
      accelerators: {count: 8}
# checked against train.yaml with
cluster:
  num_nodes: 3
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.WarnRayGPUsNVML,
		Title: "Ray's GPU resource differs from NVML's count",
		Text: "RLinf sizes each node by the GPUs NVML reports (its node probe runs on every node), while Ray's " +
			"scheduler and slime use the GPU resource the raylet was started with (`ray start --num-gpus N`, " +
			"or Ray's own count when --num-gpus is left out). `rlsolve topology --ray URL` runs a probe job that " +
			"reads NVML on every node and warns where the two differ: a plan made from Ray's count places " +
			"workers on GPUs RLinf does not see, or leaves GPUs idle. The inventory keeps Ray's count. Where NVML " +
			"cannot be read at all (no driver: GPUs declared for tests), the probe says so in a note instead.",
		Example: `# rlsolve topology --ray http://head:8265, on a node started with
# ray start --address head:6379 --num-gpus 4   (NVML counts 8)
inventory:
  nodes:
    - rank: 0
      accelerators: {count: 4}
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},
}
