package gateproto

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestEncodeConfigIsMarshal: the encoding is json.Marshal's, byte for
// byte, and the revision ComputeRevision's, so that a gate checks it as it
// checks any configuration.
func TestEncodeConfigIsMarshal(t *testing.T) {
	for name, c := range map[string]*Config{
		"full":           validConfig(),
		"at every bound": atEveryBound(),
		"empty":          {Version: Version, Namespace: "agents", Pod: "agent-0", Mode: ModeEnforce},
		"with an agent": func() *Config {
			c := validConfig()
			c.Agent = &Agent{ServiceAccount: "agent", Labels: map[string]string{"role": "writer"}}
			return c
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			e, err := EncodeConfig(c)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("encoding differs from json.Marshal:\n got %s\nwant %s", got, want)
			}
			if e.Len() != len(want) {
				t.Fatalf("Len %d, encoding %d bytes", e.Len(), len(want))
			}
			if c.Revision != c.ComputeRevision() {
				t.Fatalf("revision %q, ComputeRevision %q", c.Revision, c.ComputeRevision())
			}
			assertGateAccepts(t, e)
		})
	}
}

// TestGroupForPod: each pod's configuration derived from the group's one
// encoding is, byte for byte, the one encoded alone for that pod, with the
// revision a gate computes; pods of one group get different revisions.
func TestGroupForPod(t *testing.T) {
	group := validConfig()
	group.Pod, group.Revision = "", ""
	g, err := EncodeGroup(group)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, pod := range []string{"agent-0", "agent-7f9c4d-x2k8q", "a", "web.v2-0"} {
		e, err := g.ForPod(pod)
		if err != nil {
			t.Fatal(err)
		}
		alone := *group
		alone.Pod = pod
		alone.Revision = alone.ComputeRevision()
		want, err := json.Marshal(&alone)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("pod %s: derived encoding differs from its own:\n got %s\nwant %s", pod, got, want)
		}
		if e.Config.Pod != pod || e.Config.Revision != alone.Revision {
			t.Fatalf("pod %s: config names pod %q revision %q, want revision %q", pod, e.Config.Pod, e.Config.Revision, alone.Revision)
		}
		if other, ok := seen[e.Config.Revision]; ok {
			t.Fatalf("pods %s and %s share revision %s", other, pod, e.Config.Revision)
		}
		seen[e.Config.Revision] = pod
		assertGateAccepts(t, e)
	}
	if group.Pod != "" || group.Revision != "" {
		t.Fatalf("ForPod modified the group's configuration: pod %q revision %q", group.Pod, group.Revision)
	}
}

// TestEncodeGroupRefusesAnAgent: a configuration that carries a pod's
// agent is that pod's, and a group's encoding would serve it to others.
func TestEncodeGroupRefusesAnAgent(t *testing.T) {
	c := validConfig()
	c.Agent = &Agent{ServiceAccount: "agent"}
	if _, err := EncodeGroup(c); err == nil {
		t.Fatal("EncodeGroup accepted a configuration with an agent")
	}
}

// assertGateAccepts decodes the encoding as a gate does and validates it:
// a gate that recomputes the revision must find the one stamped.
func assertGateAccepts(t *testing.T, e *Encoded) {
	t.Helper()
	var got Config
	if err := json.Unmarshal(e.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("a gate refuses the encoding: %v", err)
	}
	if got.Revision != e.Config.Revision {
		t.Fatalf("decoded revision %q, stamped %q", got.Revision, e.Config.Revision)
	}
	// Tampering with what the encoding shares must break the revision.
	tampered := bytes.Replace(e.Bytes(), []byte(`"mode":"`), []byte(`"mode":"X`), 1)
	var bad Config
	if json.Unmarshal(tampered, &bad) == nil && bad.Validate() == nil {
		t.Fatal("a gate accepts a changed configuration under the same revision")
	}
}
