package gateproto

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A configuration travels as JSON and the gate checks its revision against
// what it decoded: a field that did not survive the trip, or that encoded
// differently on the two sides, would make every push look tampered with.
func TestConfigFrameRoundTrip(t *testing.T) {
	want := validConfig()
	sent := Frame{Version: Version, Type: FrameConfig, Time: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC), Config: want}
	line, err := json.Marshal(sent)
	if err != nil {
		t.Fatal(err)
	}
	var got Frame
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatalf("decoding %s: %v", line, err)
	}
	if !reflect.DeepEqual(got, sent) {
		t.Fatalf("the frame changed on the way:\nsent %+v\ngot  %+v", sent, got)
	}
	if err := got.Config.Validate(); err != nil {
		t.Fatalf("the decoded configuration is refused: %v", err)
	}
	if got.Config.ComputeRevision() != want.Revision {
		t.Fatal("the revision computed after decoding differs from the one stamped before encoding")
	}
	// Encoding again gives the same bytes: map order (headers) does not
	// leak into the revision.
	again, _ := json.Marshal(got)
	if !bytes.Equal(again, line) {
		t.Fatalf("encoding is not stable:\n%s\n%s", line, again)
	}
}

// The wire names are the contract with gates already running; renaming a
// field breaks them without changing Version unless a test says so.
func TestWireNames(t *testing.T) {
	b, err := json.Marshal(Frame{Version: Version, Type: FrameConfig, Config: validConfig(),
		Outcome: &CallOutcome{CallID: "c", Verdict: CallApproved, ArgumentsDigest: fpA, By: "b", Comment: "x"}, Error: "e"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		`"version":"toolgate.dev/gate/v1"`, `"type":"config"`, `"time":`, `"config":`, `"error":"e"`, `"outcome":`,
		`"revision":`, `"namespace":"agents"`, `"pod":"agent-0"`, `"policies":`, `"mode":"Enforce"`, `"approvalTimeout":"10m0s"`,
		`"servers":`, `"id":"tools/github"`, `"ready":true`, `"reason":"ServerNotReady"`, `"message":`, `"upstream":`, `"tools":`,
		`"url":`, `"transport":"StreamableHTTP"`, `"headers":`, `"caPEM":`, `"serverName":`, `"timeout":"30s"`,
		`"name":"get_issue"`, `"pin":`, `"fingerprint":`, `"level":"L1"`, `"effectiveLevel":"L3"`, `"decision":"Exposed"`,
		`"approvalRule":`, `"auditForwardable":true`, `"resultAction":"Redact"`, `"messageAction":"Withhold"`,
		`"callID":"c"`, `"verdict":"Approved"`, `"argumentsDigest":`, `"by":"b"`, `"comment":"x"`,
	} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("the frame does not carry %s", name)
		}
	}
	b, _ = json.Marshal(validCall())
	for _, name := range []string{`"version":`, `"callID":`, `"server":`, `"tool":`, `"pin":`, `"fingerprint":`, `"argumentsDigest":`, `"argumentsPreview":`} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("a call request does not carry %s", name)
		}
	}
	if bytes.Contains(b, []byte(`"kind"`)) || bytes.Contains(b, []byte(`"resultDigest"`)) || bytes.Contains(b, []byte(`"findings"`)) {
		t.Errorf("a call request carries a result's fields: %s", b)
	}
	b, _ = json.Marshal(validResult())
	for _, name := range []string{`"kind":"result"`, `"resultDigest":`, `"findings":[{"signal":`, `"field":`, `"excerpt":`} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("a held result does not carry %s", name)
		}
	}
	b, _ = json.Marshal(CallOutcome{CallID: "c", Verdict: CallApproved, ResultDigest: fpA})
	if !bytes.Contains(b, []byte(`"resultDigest":`)) {
		t.Errorf("an outcome does not carry resultDigest: %s", b)
	}
	b, _ = json.Marshal(validReport())
	for _, name := range []string{`"version":`, `"server":`, `"tool":`, `"method":"tools/call"`, `"action":"Redact"`, `"findings":`} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("a finding report does not carry %s", name)
		}
	}
}

func TestVersioning(t *testing.T) {
	if Version != "toolgate.dev/gate/v1" || !strings.HasSuffix(ConfigPath, "/v1/config") || !strings.HasSuffix(CallsPath, "/v1/calls") ||
		FindingsPath != "/gate/v1/findings" {
		t.Fatalf("version %q and paths %q, %q moved apart", Version, ConfigPath, CallsPath)
	}
	// A configuration of another version is refused even when its content
	// is otherwise valid and correctly stamped.
	for _, v := range []string{"toolgate.dev/gate/v2", "toolgate.dev/gate/v0", "toolgate.dev/gate/V1", "toolgate.dev/gate/v1 ", ""} {
		c := validConfig()
		c.Version = v
		c.Revision = c.ComputeRevision()
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "config.version") {
			t.Errorf("version %q: %v", v, err)
		}
	}
	// A field added by a later operator decodes away on this gate. Left
	// at its zero value it is not sent (omitempty), and the revision
	// holds; set, it was part of what the operator stamped, and this gate,
	// which cannot enforce it, refuses the configuration whole.
	c := validConfig()
	line, _ := json.Marshal(c)
	withZero := bytes.Replace(line, []byte(`"mode":`), []byte(`"futureField":null,"mode":`), 1)
	var decoded Config
	if err := json.Unmarshal(withZero, &decoded); err != nil {
		t.Fatal(err)
	}
	if err := decoded.Validate(); err != nil {
		t.Fatalf("an unset later field made the configuration invalid: %v", err)
	}
	var m map[string]any
	_ = json.Unmarshal(line, &m)
	m["futureField"] = "enforce-me"
	stamped, _ := json.Marshal(m)
	later := &Config{}
	_ = json.Unmarshal(stamped, later)
	// The later operator's revision covers the new field; this gate
	// recomputes without it.
	later.Revision = digestOf(t, stamped)
	if err := later.Validate(); err == nil || !strings.Contains(err.Error(), "config.revision") {
		t.Fatalf("a configuration with a field this gate cannot enforce: %v", err)
	}
}

// digestOf stamps raw JSON as a later operator would, with the algorithm
// of ComputeRevision over everything it sent, Revision aside.
func digestOf(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["revision"] = ""
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func TestRevisionFollowsContent(t *testing.T) {
	a, b := validConfig(), validConfig()
	if a.Revision != b.Revision || a.Revision == "" || len(a.Revision) != 16 {
		t.Fatalf("revisions %q and %q of the same content", a.Revision, b.Revision)
	}
	b.Servers[0].Tools[0].Fingerprint = fpB
	if b.ComputeRevision() == a.Revision {
		t.Fatal("a changed fingerprint does not change the revision")
	}
	b = validConfig()
	b.Revision = "something else"
	if b.ComputeRevision() != a.Revision {
		t.Fatal("the revision depends on itself")
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{`"10m"`: 10 * time.Minute, `"0s"`: 0, `"1h30m"`: 90 * time.Minute, `"250ms"`: 250 * time.Millisecond} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.Duration != want {
			t.Errorf("%s: %v, %v", in, d.Duration, err)
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Duration
		if err := json.Unmarshal(out, &back); err != nil || back != d {
			t.Errorf("%s did not survive a round trip: %s", in, out)
		}
	}
	for _, in := range []string{`600`, `"-1s"`, `"ten minutes"`, `""`, `{}`} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("%s accepted as %v", in, d.Duration)
		}
	}
}

func TestServerLookup(t *testing.T) {
	c := validConfig()
	if s := c.Server("tools/legacy"); s == nil || s != &c.Servers[1] {
		t.Fatalf("Server(tools/legacy) = %v", s)
	}
	if s := c.Server("tools/absent"); s != nil {
		t.Fatalf("Server(tools/absent) = %v", s)
	}
}
