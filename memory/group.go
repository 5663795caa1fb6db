package memory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Devices are GPUs of one node, by their index on it.
type Devices struct {
	Node int   `json:"cluster_node_rank"`
	GPUs []int `json:"gpus"`
}

// Group is GPUs with the same layout (GPUReport.Key: the same capacity and
// components) and their one report: the plan's `memory` entry.
type Group struct {
	Devices []Devices `json:"devices"`
	GPUReport
}

// GPUCount is how many GPUs the group holds.
func (g Group) GPUCount() int {
	n := 0
	for _, d := range g.Devices {
		n += len(d.GPUs)
	}
	return n
}

// DevicesText names GPUs compactly for messages and tables: "node 0 GPU
// 3", "node 0 GPUs 0-3", "nodes 0-127 GPUs 0-7" (consecutive nodes with
// the same GPUs as one run), runs joined by "; ".
func DevicesText(ds []Devices) string {
	var parts []string
	for i := 0; i < len(ds); {
		j := i
		for j+1 < len(ds) && ds[j+1].Node == ds[j].Node+1 && slices.Equal(ds[j+1].GPUs, ds[i].GPUs) {
			j++
		}
		nodes := fmt.Sprintf("node %d", ds[i].Node)
		if j > i {
			nodes = fmt.Sprintf("nodes %d-%d", ds[i].Node, ds[j].Node)
		}
		gpus := "GPU " + model.CompactRanks(ds[i].GPUs, ",")
		if len(ds[i].GPUs) > 1 {
			gpus = "GPUs " + model.CompactRanks(ds[i].GPUs, ",")
		}
		parts = append(parts, nodes+" "+gpus)
		i = j + 1
	}
	if len(parts) > 4 {
		parts = append(parts[:3], fmt.Sprintf("... %d more", len(parts)-3))
	}
	return strings.Join(parts, "; ")
}
