package gateclient

import (
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

// ReportTimeout bounds one ReportFindings, connection included: a report
// is best-effort, and a slow operator must not keep it.
const ReportTimeout = 5 * time.Second

// maxReportsInFlight bounds the reports one client sends at once. One
// more is dropped at once (ErrReportDropped) rather than queued: the gate
// has acted on the finding and logged it already, and a server that puts
// a finding in every answer must not grow the gate's memory with reports.
const maxReportsInFlight = 4

// ErrReportDropped is returned when maxReportsInFlight reports are
// already on their way: this one is not sent.
var ErrReportDropped = errors.New("finding report dropped: too many reports on their way")

// ReportFindings tells the operator of a finding the gate recorded,
// redacted or withheld (a held result is opened with Approve instead), so
// that it marks the tool's ToolPin, or the MCPServer, with an Event. It
// POSTs rep to gateproto.FindingsPath over the configuration stream's
// connection, and returns within ReportTimeout whatever the operator
// does. It is best-effort: the gate must not wait on it before answering
// the agent, so call it from a goroutine of its own; beyond a few
// reports on their way at once it drops the report (ErrReportDropped). A
// report missing its version is given this gate's.
func (c *Client) ReportFindings(ctx context.Context, rep gateproto.FindingReport) error {
	if rep.Version == "" {
		rep.Version = gateproto.Version
	}
	if err := rep.Validate(); err != nil {
		return err
	}
	select {
	case c.reports <- struct{}{}:
		defer func() { <-c.reports }()
	default:
		return ErrReportDropped
	}
	body, err := json.Marshal(&rep)
	if err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, ReportTimeout)
	defer cancel()
	token, err := readBounded(c.opts.TokenFile, maxTokenBytes)
	if err != nil {
		return fmt.Errorf("reading the token: %w", err)
	}
	tr, err := c.transportFor()
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opts.URL+gateproto.FindingsPath, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("building the request: %w", err)
	}
	hreq.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr}).Do(hreq)
	if err != nil {
		return fmt.Errorf("reporting the finding: %w", err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusalBytes))
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("the operator refused the finding report: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
