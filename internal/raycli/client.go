// Package raycli is rlsolve's one client of a Ray cluster's HTTP APIs: the
// dashboard's version, Jobs, package and State endpoints (Ray 2.47 and
// later). It speaks HTTP only, so rlsolve needs no Python to read or drive
// a cluster. Its shape follows KubeRay's dashboard client: an injected
// *http.Client, a base URL and a token, JSON types that name the Ray source
// they mirror.
package raycli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Limits on what a response may hold: rlsolve reads no body past these.
const (
	// MaxBodyBytes bounds a JSON or text response (job logs included).
	MaxBodyBytes = 64 << 20
	// MaxRows bounds the rows of one State API list; Ray's own server
	// caps a list at 10,000 (RAY_MAX_LIMIT_FROM_API_SERVER).
	MaxRows = 10_000
	// maxTokenBytes bounds a token file.
	maxTokenBytes = 64 << 10
	// requestTimeout bounds one request whose context has no deadline.
	requestTimeout = 2 * time.Minute
)

// DefaultPort is the dashboard's port when an address names none.
const DefaultPort = "8265"

// Options configure New.
type Options struct {
	// HTTP is the client requests go through (nil: one with connect and
	// header timeouts; a request's context bounds the rest).
	HTTP *http.Client
	// Token is sent as "Authorization: Bearer <token>" ("": looked up as
	// Ray looks it up).
	Token string
	// Environ is the environment the token is looked up in (nil:
	// os.Environ()).
	Environ []string
	// Home is the directory holding .ray/auth_token ("": the user's home).
	Home string
}

// Client talks to one Ray dashboard.
type Client struct {
	base *url.URL
	http *http.Client
	// token and tokenFrom: the token sent and where it was found, for
	// the message when it is refused.
	token, tokenFrom string
}

// New returns a client of the dashboard at address: "http://host:port",
// "https://host:port", "ray://host:port" (the dashboard's HTTP port) or
// "host:port".
func New(address string, opt Options) (*Client, error) {
	base, err := parseAddress(address)
	if err != nil {
		return nil, err
	}
	c := &Client{base: base, http: opt.HTTP}
	if c.http == nil {
		c.http = defaultHTTP()
	}
	c.token, c.tokenFrom, err = lookupToken(opt)
	if err != nil {
		return nil, &Error{Address: c.Address(), Op: "read the token", Msg: err.Error(),
			Hint: "fix RAY_AUTH_TOKEN_PATH or unset it"}
	}
	return c, nil
}

// parseAddress normalises a dashboard address to a base URL.
func parseAddress(address string) (*url.URL, error) {
	a := strings.TrimSpace(address)
	if a == "" {
		return nil, fmt.Errorf("no Ray address: give the dashboard's, e.g. http://HEAD:%s", DefaultPort)
	}
	if !strings.Contains(a, "://") {
		a = "http://" + a
	}
	u, err := url.Parse(a)
	if err != nil {
		return nil, fmt.Errorf("Ray address %q: %v; write it as http://HOST:PORT", address, err)
	}
	switch u.Scheme {
	case "http", "https":
	case "ray":
		u.Scheme = "http"
	default:
		return nil, fmt.Errorf("Ray address %q: scheme %q is not http, https or ray", address, u.Scheme)
	}
	if u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("Ray address %q: write it as http://HOST:PORT (the dashboard's address)", address)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), DefaultPort)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

func defaultHTTP() *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: time.Minute,
		MaxIdleConnsPerHost:   4,
	}}
}

// lookupToken finds the token where Ray does: the option, RAY_AUTH_TOKEN,
// the file RAY_AUTH_TOKEN_PATH names, ~/.ray/auth_token. It returns the
// token and where it came from.
func lookupToken(opt Options) (string, string, error) {
	if t := strings.TrimSpace(opt.Token); t != "" {
		return t, "the given token", nil
	}
	env := opt.Environ
	if env == nil {
		env = os.Environ()
	}
	get := func(k string) string {
		v := ""
		for _, kv := range env {
			if strings.HasPrefix(kv, k+"=") {
				v = kv[len(k)+1:] // the last one wins, as in a shell
			}
		}
		return strings.TrimSpace(v)
	}
	if t := get("RAY_AUTH_TOKEN"); t != "" {
		return t, "RAY_AUTH_TOKEN", nil
	}
	if p := get("RAY_AUTH_TOKEN_PATH"); p != "" {
		t, err := readToken(p)
		if err != nil {
			return "", "", fmt.Errorf("RAY_AUTH_TOKEN_PATH: %v", err)
		}
		return t, "RAY_AUTH_TOKEN_PATH (" + p + ")", nil
	}
	home := opt.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return "", "", nil
	}
	p := filepath.Join(home, ".ray", "auth_token")
	t, err := readToken(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	return t, p, nil
}

func readToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTokenBytes {
		return "", fmt.Errorf("%s is over %d bytes; a Ray token is one line", path, maxTokenBytes)
	}
	return strings.TrimSpace(string(b)), nil
}

// Address is the dashboard's base URL, normalised (http://host:port).
func (c *Client) Address() string { return c.base.String() }

// hostPort is the dashboard's host:port, for messages.
func (c *Client) hostPort() string { return c.base.Host }

// url joins the base URL and an API path (which may hold a query).
func (c *Client) url(path string) string { return c.Address() + path }

// request is one HTTP call: method, path, a body, and the statuses that
// are not errors.
type request struct {
	op, method, path string
	body             io.Reader
	contentType      string
	ok               []int
}

// response is a call's status and body (bounded by MaxBodyBytes).
type response struct {
	status int
	body   []byte
}

// do sends r and reads the whole answer; any status outside r.ok (200 by
// default) is an *Error.
func (c *Client) do(ctx context.Context, r request) (*response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.url(r.path), r.body)
	if err != nil {
		return nil, c.fail(r.op, 0, err.Error())
	}
	c.header(req.Header)
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, r.op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, c.transportError(ctx, r.op, err)
	}
	if len(body) > MaxBodyBytes {
		return nil, c.fail(r.op, resp.StatusCode, fmt.Sprintf("the answer is over %d bytes; rlsolve reads no more", MaxBodyBytes))
	}
	ok := r.ok
	if len(ok) == 0 {
		ok = []int{http.StatusOK}
	}
	for _, s := range ok {
		if resp.StatusCode == s {
			return &response{resp.StatusCode, body}, nil
		}
	}
	return &response{resp.StatusCode, body}, c.statusError(r.op, resp.StatusCode, body)
}

// header sets what every request carries.
func (c *Client) header(h http.Header) {
	// Ray refuses POST and PUT from browsers (by User-Agent); say who we are.
	h.Set("User-Agent", "rlsolve")
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
}

// getJSON GETs path and decodes its JSON answer into v.
func (c *Client) getJSON(ctx context.Context, op, path string, v any) error {
	resp, err := c.do(ctx, request{op: op, method: http.MethodGet, path: path})
	if err != nil {
		return err
	}
	return c.decode(op, resp.body, v)
}

// sendJSON sends v as JSON and decodes the answer into out (nil: ignored).
func (c *Client) sendJSON(ctx context.Context, op, method, path string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return c.fail(op, 0, err.Error())
	}
	resp, err := c.do(ctx, request{op: op, method: method, path: path, body: bytes.NewReader(body), contentType: "application/json"})
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return c.decode(op, resp.body, out)
}

func (c *Client) decode(op string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return c.fail(op, 0, fmt.Sprintf("the answer is not the JSON Ray sends (%v): %s", err, clip(string(body))))
	}
	return nil
}

// clip shortens a body for a message.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
