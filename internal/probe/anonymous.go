package probe

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnonymousResult is how a server answered a probe that sent none of the
// configured headers: whether it let an MCP client in without the
// credentials only the gate is given.
type AnonymousResult struct {
	// Initialized: the server answered initialize with a result.
	Initialized bool
	// Listed: the server also answered the first tools/list page; Tools
	// counts the tools on it.
	Listed bool
	Tools  int
	// Refusal is set when the server refused a step: initialize, or the
	// first tools/list after an initialize it answered.
	Refusal *Refusal
	// Duration is how long the check took.
	Duration time.Duration
}

// Refusal is a server's refusal of a request made without credentials.
type Refusal struct {
	// Step is "initialize" or "tools/list".
	Step string
	// HTTPStatus is 401 or 403 when the refusal was HTTP's; zero for a
	// JSON-RPC error.
	HTTPStatus int
	// RPCCode is the JSON-RPC error's code when the refusal was MCP's.
	RPCCode int64
}

// Anonymous asks the server what Probe asks, as an agent that holds none of
// the configured headers would: cfg.Header is not sent, and every other
// setting — the URL, the transport, TLS, the guard against metadata
// addresses, the timeouts and the limits — is the probe's. It reads one
// tools/list page at most: that the server lists tools to anyone is the
// finding, the catalogue is Probe's to judge.
//
// A refusal (HTTP 401 or 403, or a JSON-RPC error) is an answer, reported in
// the result's Refusal. The error is set only when the check could not tell:
// nothing answered, no answer in time, an answer that is not MCP or is over
// a limit, an endpoint probes may not reach. It is a *Error, in the probe's
// own words like Probe's.
func Anonymous(ctx context.Context, cfg Config) (*AnonymousResult, error) {
	cfg.Header = nil
	cfg = cfg.withDefaults()
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	meter := &meter{limits: cfg.Limits, global: cfg.Budget}
	defer meter.close()
	cat := newCatalogue(cfg.Limits, meter)
	httpClient, _ := newHTTPClient(cfg, meter, cat)
	defer httpClient.CloseIdleConnections()

	transport, err := newTransport(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	res := &AnonymousResult{}
	done := func() (*AnonymousResult, error) {
		res.Duration = time.Since(start)
		return res, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: cfg.ClientName, Version: cfg.ClientVersion}, nil)
	session, err := client.Connect(ctx, &captureTransport{inner: transport, cat: cat}, nil)
	if err == nil {
		if perr := cat.failure(); perr != nil {
			session.Close()
			err = perr
		}
	}
	if err != nil {
		if res.Refusal = refusal(meter, "initialize", err); res.Refusal != nil {
			return done()
		}
		return nil, classify(ctx, cfg, meter, cat, "initialize", err)
	}
	defer session.Close()
	res.Initialized = true

	if _, err := session.ListTools(ctx, &mcp.ListToolsParams{}); err != nil {
		if res.Refusal = refusal(meter, "tools/list", err); res.Refusal != nil {
			return done()
		}
		return nil, classify(ctx, cfg, meter, cat, "tools/list", err)
	}
	cat.mu.Lock()
	res.Listed, res.Tools = true, len(cat.tools)
	cat.mu.Unlock()
	return done()
}

// refusal says whether err is the server refusing the request: HTTP 401 or
// 403, or, on an answer in MCP's own media type, a JSON-RPC error. Any
// other failure is no refusal: the check could not tell.
func refusal(m *meter, step string, err error) *Refusal {
	if m.overLimit() != nil || m.refusal() != nil {
		return nil
	}
	if status := m.status(); status == http.StatusUnauthorized || status == http.StatusForbidden {
		return &Refusal{Step: step, HTTPStatus: status}
	}
	// The error the server sent, checked before the last HTTP status: a
	// client whose initialize failed closes the session it never got, and
	// the server's answer to that is what the meter saw last.
	if rpcErr := serverRPCError(err); rpcErr != nil && m.answered() && !m.notMCPType() {
		return &Refusal{Step: step, RPCCode: rpcErr.Code}
	}
	return nil
}

// sdkRejected is how the SDK's client transport marks a request that got
// no JSON-RPC answer (an HTTP error without one, an unreachable server): a
// JSON-RPC error of its own making, which the server never sent.
const (
	sdkRejectedCode    = -32005
	sdkRejectedMessage = "rejected by transport"
)

// serverRPCError is the JSON-RPC error in err that the server sent, nil
// when there is none. The SDK puts the server's error before its own
// rejection when it wraps both.
func serverRPCError(err error) *jsonrpc.Error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code == 0 || rpc.Code == sdkRejectedCode && rpc.Message == sdkRejectedMessage {
		return nil
	}
	return rpc
}
