package raycli

import (
	"context"
	"fmt"
	"net/http"

	"github.com/coder/websocket"
)

// maxChunkBytes bounds one message of the log stream (Ray sends the lines
// its supervisor read since the last message).
const maxChunkBytes = 16 << 20

// TailJobLogs streams the job's log over Ray's WebSocket
// /api/jobs/{id}/logs/tail, calling fn with each chunk as Ray sends it
// (chunks are not line-aligned). It returns nil when Ray closes the stream
// normally (the job ended: read the job to learn how), ctx.Err() when ctx
// is cancelled, and fn's error when fn fails.
func (c *Client) TailJobLogs(ctx context.Context, id string, fn func(chunk string) error) error {
	op := "follow the log of job " + id
	path, err := c.jobPath(op, id)
	if err != nil {
		return err
	}
	u := *c.base
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	h := http.Header{}
	c.header(h)
	conn, resp, err := websocket.Dial(ctx, u.String()+path+"/logs/tail", &websocket.DialOptions{HTTPClient: c.http, HTTPHeader: h})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return c.statusError(op, resp.StatusCode, readSome(resp))
		}
		return c.transportError(ctx, op, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxChunkBytes)
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case websocket.CloseStatus(err) == websocket.StatusNormalClosure, websocket.CloseStatus(err) == websocket.StatusGoingAway:
				return nil
			}
			e := c.fail(op, 0, "the log stream broke: "+err.Error())
			e.err = err
			return e
		}
		if typ != websocket.MessageText {
			return c.fail(op, 0, fmt.Sprintf("Ray sent a %v message; the log stream is text", typ))
		}
		if err := fn(string(data)); err != nil {
			conn.Close(websocket.StatusNormalClosure, "")
			return err
		}
	}
}

// readSome reads the start of a refused handshake's body, for the message.
func readSome(resp *http.Response) []byte {
	if resp.Body == nil {
		return nil
	}
	defer resp.Body.Close()
	b := make([]byte, 1024)
	n, _ := resp.Body.Read(b)
	return b[:n]
}
