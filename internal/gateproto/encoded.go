package gateproto

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Encoded is a configuration together with its JSON encoding, exactly as
// json.Marshal writes it, Revision included. The encoding is kept in
// pieces so that the pods of a group, whose configurations differ only in
// the pod's name and the revision, share the bulk of it: serving a change
// to every pod of a group then costs one encoding, not one for the
// revision, one for the check and one for the frame of each pod.
//
// The revision is ComputeRevision's, taken over the same bytes, so a gate
// of any version checks it as before. An Encoded is made only by
// EncodeConfig or EncodeGroup and never modified after.
type Encoded struct {
	// Config is the configuration the encoding is of. It must not be
	// modified.
	Config *Config
	// parts, in order, make the encoding: `{"version":…,"revision":`, the
	// quoted revision, then the rest, which EncodeGroup splits in two so
	// that the last part is the group's and shared.
	parts [4][]byte
}

// Len is the length of the encoding in bytes.
func (e *Encoded) Len() int {
	n := 0
	for _, p := range e.parts {
		n += len(p)
	}
	return n
}

// WriteTo writes the encoding to w, in the pieces it is kept in.
func (e *Encoded) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for _, p := range e.parts {
		m, err := w.Write(p)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Bytes returns the encoding in one slice (a copy).
func (e *Encoded) Bytes() []byte {
	var b bytes.Buffer
	b.Grow(e.Len())
	_, _ = e.WriteTo(&b)
	return b.Bytes()
}

// emptyRevision is how json.Marshal writes a configuration's Revision
// while ComputeRevision takes its digest.
var emptyRevision = []byte(`""`)

// revisionOf is ComputeRevision over an encoding made of head, the empty
// revision and rest: the digest of the configuration with Revision empty.
func revisionOf(head []byte, rest ...[]byte) string {
	h := sha256.New()
	h.Write(head)
	h.Write(emptyRevision)
	for _, r := range rest {
		h.Write(r)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:8])
}

// headOf is the start of the encoding of a configuration of version v, up
// to the value of its revision: Version and Revision are the first two
// fields of Config.
func headOf(version string) ([]byte, error) {
	v, err := json.Marshal(version)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"version":`), v...), `,"revision":`...), nil
}

// errLayout is returned when Config's encoding does not start as Encoded
// assumes; a change of the field order must come with a change here, and
// the tests say so.
var errLayout = errors.New("the configuration's encoding does not start with its version, revision, namespace and pod")

// EncodeConfig encodes c whole, stamps its revision, and returns both. c
// is modified: its Revision is set.
func EncodeConfig(c *Config) (*Encoded, error) {
	c.Revision = ""
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encoding the configuration: %w", err)
	}
	head, err := headOf(c.Version)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, head) || !bytes.HasPrefix(b[len(head):], emptyRevision) {
		return nil, errLayout
	}
	rest := b[len(head)+len(emptyRevision):]
	c.Revision = revisionOf(head, rest)
	rev, _ := json.Marshal(c.Revision)
	return &Encoded{Config: c, parts: [4][]byte{b[:len(head)], rev, rest}}, nil
}

// Group is the encoding of a configuration that several pods share but
// for their names: everything after the pod's name is encoded once.
type Group struct {
	config *Config
	head   []byte
	// namespace is `,"namespace":…,"pod":`, what lies between the
	// revision and the pod's name.
	namespace []byte
	// tail is everything after the pod's name.
	tail []byte
}

// EncodeGroup encodes a group's configuration once, for ForPod to derive
// each pod's from. The configuration's Pod and Revision are ignored, and
// its Agent must be nil: a configuration that carries the pod's agent is
// the pod's alone, and EncodeConfig encodes it.
func EncodeGroup(c *Config) (*Group, error) {
	if c.Agent != nil {
		return nil, errors.New("a configuration with an agent is one pod's, not a group's")
	}
	cp := *c
	cp.Revision, cp.Pod = "", ""
	b, err := json.Marshal(&cp)
	if err != nil {
		return nil, fmt.Errorf("encoding the configuration: %w", err)
	}
	head, err := headOf(c.Version)
	if err != nil {
		return nil, err
	}
	ns, err := json.Marshal(c.Namespace)
	if err != nil {
		return nil, err
	}
	namespace := append(append([]byte(`,"namespace":`), ns...), `,"pod":`...)
	rest, ok := bytes.CutPrefix(b, head)
	if ok {
		rest, ok = bytes.CutPrefix(rest, emptyRevision)
	}
	if ok {
		rest, ok = bytes.CutPrefix(rest, namespace)
	}
	if ok {
		rest, ok = bytes.CutPrefix(rest, emptyRevision)
	}
	if !ok {
		return nil, errLayout
	}
	return &Group{config: c, head: b[:len(head)], namespace: namespace, tail: rest}, nil
}

// ForPod is the configuration of the group's pod named pod, with its
// encoding and revision: the group's configuration with Pod and Revision
// set, sharing everything else with the group's (slices and maps
// included; nothing may modify them).
func (g *Group) ForPod(pod string) (*Encoded, error) {
	name, err := json.Marshal(pod)
	if err != nil {
		return nil, err
	}
	cfg := *g.config
	cfg.Pod = pod
	mid := append(g.namespace[:len(g.namespace):len(g.namespace)], name...)
	cfg.Revision = revisionOf(g.head, mid, g.tail)
	rev, _ := json.Marshal(cfg.Revision)
	return &Encoded{Config: &cfg, parts: [4][]byte{g.head, rev, mid, g.tail}}, nil
}
