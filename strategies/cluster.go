// Package strategies expands a valid config into one placement record per
// worker, exactly as RLinf's scheduler would (semantics §2-§5), with the
// decisions of §10. It is a Go library in its own right: build a Cluster from
// an Inventory and call Packed, Flexible or Node directly.
package strategies

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Cluster is the inventory with the config's node groups applied
// (model.Cluster), with the strategies and the worker environment on it.
type Cluster struct {
	*model.Cluster
}

// NewCluster builds the cluster view. cfg may be nil (only the `cluster` and
// `node` groups then exist).
func NewCluster(inv *model.Inventory, cfg *model.Config) *Cluster {
	return &Cluster{model.NewCluster(inv, cfg)}
}

// resolve wraps model.Cluster.Resolve with the failure a strategy reports.
func (c *Cluster) resolve(labels []string) (*model.Resolver, *Failure) {
	r, missing := c.Resolve(labels)
	if r != nil {
		return r, nil
	}
	f := &Failure{Code: model.CodeUnknownGroup, Msg: fmt.Sprintf("node group %q does not exist", missing), Label: missing, Process: -1}
	if _, empty := c.Empty[missing]; empty {
		f.Code, f.Msg = model.CodeEmptyGroup, fmt.Sprintf("node group %q has no nodes (its node_ranks are empty), so RLinf drops it", missing)
	}
	return nil, f
}

// Failure is why a strategy cannot place a component; Process is the worker
// index it concerns (-1 for the whole strategy).
type Failure struct {
	Code    string
	Msg     string
	Why     string
	Process int
	Label   string
}

func (f *Failure) Error() string { return f.Msg }

func fail(code string, process int, format string, args ...any) *Failure {
	return &Failure{Code: code, Msg: fmt.Sprintf(format, args...), Process: process}
}
