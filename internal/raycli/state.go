package raycli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// Filter is one State API filter: Ray's filter_keys, filter_predicates and
// filter_values (python/ray/util/state/common.py, ListApiOptions).
type Filter struct {
	// Key is a column ("state", "ray_namespace", "job_id", ...).
	Key string
	// Op is "=" or "!=".
	Op    string
	Value string
}

// Node is one row of GET /api/v0/nodes?detail=true: NodeState in Ray's
// python/ray/util/state/common.py (the row `ray list nodes --detail
// --format json` prints).
type Node struct {
	NodeID         string             `json:"node_id"`
	NodeIP         string             `json:"node_ip"`
	NodeName       string             `json:"node_name"`
	State          string             `json:"state"` // ALIVE or DEAD
	IsHead         bool               `json:"is_head_node"`
	ResourcesTotal map[string]float64 `json:"resources_total"`
	Labels         map[string]string  `json:"labels"`
}

// Actor is one row of GET /api/v0/actors: ActorState (common.py).
type Actor struct {
	ActorID          string `json:"actor_id"`
	ClassName        string `json:"class_name"`
	Name             string `json:"name"`
	State            string `json:"state"` // DEPENDENCIES_UNREADY PENDING_CREATION ALIVE RESTARTING DEAD
	JobID            string `json:"job_id"`
	NodeID           string `json:"node_id"`
	RayNamespace     string `json:"ray_namespace"`
	PID              int    `json:"pid"`
	PlacementGroupID string `json:"placement_group_id"`
}

// PlacementGroup is one row of GET /api/v0/placement_groups:
// PlacementGroupState (common.py).
type PlacementGroup struct {
	PlacementGroupID string `json:"placement_group_id"`
	Name             string `json:"name"`
	CreatorJobID     string `json:"creator_job_id"`
	State            string `json:"state"` // PENDING PREPARED CREATED REMOVED RESCHEDULING
}

// stateEnvelope is the State API's answer: the dashboard's
// {result, msg, data} (dashboard/optional_utils.py rest_response) around
// ListApiResponse (util/state/common.py).
type stateEnvelope struct {
	Result bool   `json:"result"`
	Msg    string `json:"msg"`
	Data   struct {
		Result struct {
			Result             json.RawMessage `json:"result"`
			Total              int             `json:"total"`
			NumAfterTruncation int             `json:"num_after_truncation"`
		} `json:"result"`
	} `json:"data"`
}

// list GETs a State API list and returns its raw rows (a JSON list),
// refusing a truncated list: a partial inventory would be wrong.
func (c *Client) list(ctx context.Context, resource string, detail bool, fs []Filter) (json.RawMessage, error) {
	op := "list " + resource
	q := url.Values{}
	q.Set("limit", strconv.Itoa(MaxRows))
	if detail {
		q.Set("detail", "true")
	}
	for _, f := range fs {
		if f.Op != "=" && f.Op != "!=" {
			return nil, c.fail(op, 0, fmt.Sprintf("filter %s %s %s: the operator must be = or !=", f.Key, f.Op, f.Value))
		}
		q.Add("filter_keys", f.Key)
		q.Add("filter_predicates", f.Op)
		q.Add("filter_values", f.Value)
	}
	var env stateEnvelope
	if err := c.getJSON(ctx, op, "/api/v0/"+resource+"?"+q.Encode(), &env); err != nil {
		return nil, err
	}
	if !env.Result {
		e := c.fail(op, 0, "Ray says: "+clip(env.Msg))
		e.Hint = "the State API needs ray[default] on the head node"
		return nil, e
	}
	rows := env.Data.Result.Result
	if len(bytes.TrimSpace(rows)) == 0 || bytes.Equal(bytes.TrimSpace(rows), []byte("null")) {
		rows = json.RawMessage("[]")
	}
	if t := env.Data.Result.Total; t > MaxRows || t > env.Data.Result.NumAfterTruncation && env.Data.Result.NumAfterTruncation > 0 {
		return nil, c.fail(op, 0, fmt.Sprintf("Ray has %d %s; rlsolve reads at most %d", t, resource, MaxRows))
	}
	return rows, nil
}

// decodeRows decodes a list of rows, at most MaxRows.
func decodeRows[T any](c *Client, op string, raw json.RawMessage) ([]T, error) {
	var rows []T
	if err := c.decode(op, raw, &rows); err != nil {
		return nil, err
	}
	if len(rows) > MaxRows {
		return nil, c.fail(op, 0, fmt.Sprintf("Ray sent %d rows; rlsolve reads at most %d", len(rows), MaxRows))
	}
	return rows, nil
}

// Nodes lists the cluster's nodes, alive and dead. The raw JSON is the
// list of rows as Ray sent it, the shape `ray list nodes --detail
// --format json` prints (topology.ImportRay reads it).
func (c *Client) Nodes(ctx context.Context) ([]Node, []byte, error) {
	raw, err := c.list(ctx, "nodes", true, nil)
	if err != nil {
		return nil, nil, err
	}
	rows, err := decodeRows[Node](c, "list nodes", raw)
	if err != nil {
		return nil, nil, err
	}
	return rows, raw, nil
}

// Actors lists the actors the filters select (all: none given).
func (c *Client) Actors(ctx context.Context, f ...Filter) ([]Actor, error) {
	raw, err := c.list(ctx, "actors", false, f)
	if err != nil {
		return nil, err
	}
	return decodeRows[Actor](c, "list actors", raw)
}

// PlacementGroups lists the placement groups the filters select.
func (c *Client) PlacementGroups(ctx context.Context, f ...Filter) ([]PlacementGroup, error) {
	raw, err := c.list(ctx, "placement_groups", false, f)
	if err != nil {
		return nil, err
	}
	return decodeRows[PlacementGroup](c, "list placement groups", raw)
}
