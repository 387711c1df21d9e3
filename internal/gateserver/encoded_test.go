package gateserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// encodingBuilder is a testBuilder that returns each configuration's
// encoding too, as the operator's Builder does.
type encodingBuilder struct{ *testBuilder }

func (b encodingBuilder) BuildEncoded(ctx context.Context, pod *corev1.Pod) (*gateproto.Encoded, error) {
	c, err := b.Build(ctx, pod)
	if err != nil {
		return nil, err
	}
	return gateproto.EncodeConfig(c)
}

// TestEncodedConfigurationsReachTheGate: a configuration sent from its
// encoding is applied by the gate, which checks its revision, and a change
// reaches the open stream.
func TestEncodedConfigurationsReachTheGate(t *testing.T) {
	ctx := testContext(t)
	a := newAgent(ctx, t)
	b := newBuilder()
	srv := startServer(t, encodingBuilder{b}, "127.0.0.1:0", nil)
	g := startGate(t, srv.url, writeToken(t, a.token(ctx, t, a.pod, gateproto.Audience)))
	eventually(t, "the first configuration is applied", func() bool { return len(g.configs()) == 1 })
	if c := g.last(); c.Pod != a.pod.Name || c.Policies[0] != "initial" {
		t.Fatalf("applied %s (%v), want %s", c.Pod, c.Policies, a.pod.Name)
	}
	b.set(func(b *testBuilder) { b.marker[a.ns] = "second" })
	srv.Invalidate(a.ns)
	eventually(t, "the new configuration is pushed", func() bool { return len(g.configs()) == 2 })
	if c := g.last(); c.Policies[0] != "second" || c.Revision != c.ComputeRevision() {
		t.Fatalf("pushed %v revision %q, want the second configuration under its own revision", c.Policies, c.Revision)
	}
	if g.Refused() != 0 || testutil.ToFloat64(srv.metrics.invalid) != 0 {
		t.Fatalf("gate refused %d, operator counted %v invalid", g.Refused(), testutil.ToFloat64(srv.metrics.invalid))
	}
}

// deadlineRecorder is a ResponseRecorder whose write deadline can be set,
// as a real connection's can.
type deadlineRecorder struct{ *httptest.ResponseRecorder }

func (deadlineRecorder) SetWriteDeadline(time.Time) error { return nil }

// TestConfigFrameFromEncodingIsTheEncodedFrame: a frame written around a
// configuration's encoding is, but for its time, the frame json.Marshal
// writes, pieces longer than a write chunk included.
func TestConfigFrameFromEncodingIsTheEncodedFrame(t *testing.T) {
	s := &Server{o: Options{WriteTimeout: time.Second}}
	c := &gateproto.Config{Version: gateproto.Version, Namespace: "agents", Pod: "agent-0", Mode: gateproto.ModeEnforce}
	for i := range 60 {
		c.Policies = append(c.Policies, fmt.Sprintf("policy-%02d-%s", i, strings.Repeat("x", 90)))
	}
	enc, err := gateproto.EncodeConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	if enc.Len() <= writeChunk {
		t.Fatalf("the configuration is %d bytes, not more than a chunk", enc.Len())
	}
	frame := func(write func(w deadlineRecorder) error) []byte {
		w := deadlineRecorder{httptest.NewRecorder()}
		if err := write(w); err != nil {
			t.Fatal(err)
		}
		return w.Body.Bytes()
	}
	fromEncoding := frame(func(w deadlineRecorder) error {
		return s.writeConfigFrame(w, http.NewResponseController(w), enc)
	})
	marshalled := frame(func(w deadlineRecorder) error {
		return s.writeFrame(w, http.NewResponseController(w), gateproto.Frame{Type: gateproto.FrameConfig, Config: c})
	})
	stamp := regexp.MustCompile(`"time":"[^"]*"`)
	if got, want := stamp.ReplaceAll(fromEncoding, nil), stamp.ReplaceAll(marshalled, nil); !bytes.Equal(got, want) {
		t.Fatalf("frames differ:\n got %s\nwant %s", got, want)
	}
	var f gateproto.Frame
	if err := json.Unmarshal(fromEncoding, &f); err != nil {
		t.Fatal(err)
	}
	if err := f.Config.Validate(); err != nil {
		t.Fatalf("the gate refuses the frame's configuration: %v", err)
	}
}
