package raycli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// MinVersion is the oldest Ray rlsolve drives: RLinf's floor.
const MinVersion = "2.47.0"

// Version is GET /api/version's answer: VersionResponse in Ray's
// python/ray/dashboard/modules/version.py.
type Version struct {
	// Version is the Jobs API's version ("4" since Ray 2.x).
	Version string `json:"version"`
	Ray     string `json:"ray_version"`
	Commit  string `json:"ray_commit"`
	Session string `json:"session_name,omitempty"`
}

// Version asks the dashboard for Ray's version.
func (c *Client) Version(ctx context.Context) (*Version, error) {
	var v Version
	if err := c.getJSON(ctx, "read the version", "/api/version", &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// CheckVersion is Version, refusing a Ray older than MinVersion (an
// *Error matching ErrVersion).
func (c *Client) CheckVersion(ctx context.Context) (*Version, error) {
	v, err := c.Version(ctx)
	if err != nil {
		return nil, err
	}
	if !AtLeast(v.Ray, MinVersion) {
		e := c.fail("check the version", 0, fmt.Sprintf("Ray %s is older than %s, the oldest RLinf supports", v.Ray, MinVersion))
		e.kind = ErrVersion
		e.Hint = "upgrade the cluster's Ray (`pip install -U 'ray[default]>=" + MinVersion + "'` on every node)"
		return nil, e
	}
	return v, nil
}

// AtLeast reports whether version v is min or later, comparing the numeric
// release parts (a suffix such as ".dev0" or "rc1" is ignored); an
// unreadable v is not.
func AtLeast(v, min string) bool {
	a, okA := release(v)
	b, okB := release(min)
	if !okA || !okB {
		return false
	}
	for i := range 3 {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return true
}

// release reads major.minor.patch from the front of v.
func release(v string) ([3]int, bool) {
	var r [3]int
	parts := strings.SplitN(strings.TrimSpace(v), ".", 4)
	if len(parts) < 2 {
		return r, false
	}
	for i := 0; i < 3 && i < len(parts); i++ {
		p := parts[i]
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		if end == 0 || end > 9 {
			return r, i == 2 && end == 0 // "2.47.dev0": patch 0
		}
		r[i], _ = strconv.Atoi(p[:end])
	}
	return r, true
}
