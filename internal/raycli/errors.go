package raycli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// Sentinels for errors.Is on an *Error.
var (
	// ErrUnauthorized: the dashboard refused the request (401 or 403).
	ErrUnauthorized = errors.New("ray: unauthorized")
	// ErrUnreachable: no dashboard answered at the address.
	ErrUnreachable = errors.New("ray: unreachable")
	// ErrNotFound: the job, package or path does not exist (404).
	ErrNotFound = errors.New("ray: not found")
	// ErrVersion: the cluster's Ray is older than MinVersion.
	ErrVersion = errors.New("ray: version too old")
)

// Error is a failed call to a Ray dashboard: where, what, and what to
// check.
type Error struct {
	// Address is the dashboard's base URL.
	Address string
	// Op says what rlsolve was doing ("list nodes", "submit job X").
	Op string
	// Status is the HTTP status, 0 when no answer came.
	Status int
	// Msg is what went wrong; Hint what to check.
	Msg, Hint string
	// kind is the sentinel the error matches (nil: none but its status).
	kind error
	err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ray at %s: %s", e.Address, e.Op)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Msg != "" {
		b.WriteString(": " + e.Msg)
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// Is matches the sentinels: by kind, or by status.
func (e *Error) Is(target error) bool {
	if e.kind != nil && target == e.kind {
		return true
	}
	switch target {
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	}
	return false
}

func (e *Error) Unwrap() error { return e.err }

// fail is an error with no particular hint.
func (c *Client) fail(op string, status int, msg string) *Error {
	return &Error{Address: c.Address(), Op: op, Status: status, Msg: msg}
}

// statusError explains a status outside what the call expects.
func (c *Client) statusError(op string, status int, body []byte) *Error {
	e := c.fail(op, status, bodyMessage(body))
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if c.token == "" {
			e.Hint = "the dashboard wants a token and none was found; set RAY_AUTH_TOKEN, or RAY_AUTH_TOKEN_PATH to a file holding it, or write it to ~/.ray/auth_token; `ray get-auth-token` on the head node prints the cluster's"
		} else {
			e.Hint = "the token from " + c.tokenFrom + " was refused; set RAY_AUTH_TOKEN to the cluster's token, which `ray get-auth-token` on the head node prints"
		}
	case http.StatusNotFound:
		if bytes.Contains(body, []byte("does not exist")) {
			break // Ray's own answer: the job or package is not there
		}
		e.Hint = "is " + c.hostPort() + " a Ray dashboard of version " + MinVersion + " or later?"
	case http.StatusInternalServerError:
		e.Hint = "the dashboard failed; its log is dashboard.log under the head node's /tmp/ray/session_latest/logs"
	}
	return e
}

// transportError explains a request that got no answer.
func (c *Client) transportError(ctx context.Context, op string, err error) *Error {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		e := c.fail(op, 0, ctxErr.Error())
		e.err = ctxErr
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			e.kind = ErrUnreachable
			e.Hint = "no answer in time: is the dashboard on " + c.hostPort() + " up and not overloaded?"
		}
		return e
	}
	e := c.fail(op, 0, err.Error())
	e.err = err
	var ne net.Error
	var oe *net.OpError
	var de *net.DNSError
	if errors.As(err, &oe) || errors.As(err, &de) || errors.As(err, &ne) {
		e.kind = ErrUnreachable
		e.Msg = "no dashboard answered: " + err.Error()
		e.Hint = "is the dashboard running on " + c.hostPort() + "? start the head with `ray start --head --dashboard-host 0.0.0.0 --dashboard-port " + c.base.Port() + "`, and check the address and any firewall between here and it"
	}
	return e
}

// bodyMessage is what an error answer says: the body, or for a Python
// traceback (Ray's answer to a failed request) its last line, which names
// the exception.
func bodyMessage(body []byte) string {
	s := strings.TrimSpace(string(body))
	if strings.HasPrefix(s, "Traceback (most recent call last)") {
		lines := strings.Split(s, "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(lines[i]); l != "" && l != "." {
				return clip(l)
			}
		}
	}
	return clip(s)
}
