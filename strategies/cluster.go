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
	if _, empty := c.Empty[missing]; empty {
		return nil, fail(-1, "node group %q has no nodes (its node_ranks are empty), so RLinf drops it", missing)
	}
	return nil, fail(-1, "node group %q does not exist", missing)
}

// Failure is why a strategy cannot place a component: called directly as a
// library, a strategy refuses what RLinf's would (or what rlsolve's
// decisions refuse); in rlsolve's own pipeline, on a config the solver
// accepted, it is an internal error. Process is the worker index it
// concerns (-1 for the whole strategy).
type Failure struct {
	Msg string
	// Why explains a refusal where RLinf would do something else.
	Why     string
	Process int
}

func (f *Failure) Error() string { return f.Msg }

func fail(process int, format string, args ...any) *Failure {
	return &Failure{Msg: fmt.Sprintf(format, args...), Process: process}
}
