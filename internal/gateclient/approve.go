package gateclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// ErrNoOutcome is returned when the operator ended a pending call without
// an outcome: the call is refused.
var ErrNoOutcome = errors.New("the operator ended the pending call without an outcome")

// Approve opens a pending call with the operator and waits for its
// outcome: it POSTs req to gateproto.CallsPath over the transport, and so
// the HTTP/2 connection, of the configuration stream, and reads heartbeats
// until one FrameCallOutcome comes. Ending ctx (the agent gave up, or the
// approval timeout passed) closes the request, which the operator takes as
// the call's withdrawal: it is then never approved. Any error refuses the
// call. It implements gate.Approver.
func (c *Client) Approve(ctx context.Context, req gateproto.CallRequest) (gateproto.CallOutcome, error) {
	body, err := json.Marshal(&req)
	if err != nil {
		return gateproto.CallOutcome{}, fmt.Errorf("encoding the call: %w", err)
	}
	token, err := readBounded(c.opts.TokenFile, maxTokenBytes)
	if err != nil {
		return gateproto.CallOutcome{}, fmt.Errorf("reading the token: %w", err)
	}
	tr, err := c.transportFor()
	if err != nil {
		return gateproto.CallOutcome{}, err
	}
	// A call whose operator falls silent is refused, as a silent stream is
	// dropped: heartbeats come every interval while it waits.
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(c.opts.HeartbeatTimeout+c.opts.ConnectTimeout, func() { cancel(errSilent) })
	defer watchdog.Stop()

	hreq, err := http.NewRequestWithContext(cctx, http.MethodPost, c.opts.URL+gateproto.CallsPath, bytes.NewReader(body))
	if err != nil {
		return gateproto.CallOutcome{}, fmt.Errorf("building the request: %w", err)
	}
	hreq.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", gateproto.StreamContentType)
	resp, err := (&http.Client{Transport: tr}).Do(hreq)
	if err != nil {
		return gateproto.CallOutcome{}, fmt.Errorf("opening the pending call: %w", causeOr(cctx, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusalBytes))
		return gateproto.CallOutcome{}, fmt.Errorf("the operator refused the pending call: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	watchdog.Reset(c.opts.HeartbeatTimeout)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4<<10), 64<<10)
	for sc.Scan() {
		watchdog.Reset(c.opts.HeartbeatTimeout)
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var f gateproto.Frame
		if err := json.Unmarshal(line, &f); err != nil {
			return gateproto.CallOutcome{}, fmt.Errorf("reading the pending call: %w", err)
		}
		if f.Version != gateproto.Version {
			return gateproto.CallOutcome{}, fmt.Errorf("a frame of protocol %q, not %q", f.Version, gateproto.Version)
		}
		switch f.Type {
		case gateproto.FrameHeartbeat:
		case gateproto.FrameError:
			return gateproto.CallOutcome{}, fmt.Errorf("the operator ended the pending call: %s", f.Error)
		case gateproto.FrameCallOutcome:
			if err := f.Outcome.Validate(&req); err != nil {
				return gateproto.CallOutcome{}, fmt.Errorf("the operator's outcome: %w", err)
			}
			return *f.Outcome, nil
		default:
			return gateproto.CallOutcome{}, fmt.Errorf("a %q frame on a pending call", f.Type)
		}
	}
	if err := sc.Err(); err != nil {
		return gateproto.CallOutcome{}, fmt.Errorf("reading the pending call: %w", causeOr(cctx, err))
	}
	return gateproto.CallOutcome{}, ErrNoOutcome
}
