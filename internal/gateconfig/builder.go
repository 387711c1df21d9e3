package gateconfig

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/policy"
)

// Builder makes the configuration of one agent pod's gate from the
// informer cache, and gathers the inputs of a namespace's policies for the
// ToolPolicy reconciler. The gate server calls it on every replica, leader
// or not: it only reads, and the cache runs on every replica.
//
// The operator makes one Builder and hands it to both the reconciler and
// the gate server, so that the cluster's ceilings are set in one place and
// a policy's status says what its gates are served.
type Builder struct {
	// Reader is the manager's cache (or its client, which reads the
	// cache); it must carry the field indexes RegisterIndexes adds.
	Reader client.Reader
	// Ceilings are the cluster's default ceiling, for policies that name
	// none, and its cap; the zero value is policy.Ceilings'.
	Ceilings policy.Ceilings
	// GroupTTL, when positive, lets Build evaluate once for every pod of
	// a namespace that matches the same policies, and reuse that
	// evaluation until Invalidate is called for the namespace or GroupTTL
	// has passed. Set it only where every change WatchInvalidations
	// reports reaches Invalidate; zero evaluates every Build afresh.
	GroupTTL time.Duration

	memoOnce sync.Once
	memo     *groupMemo
}

// Invalidate drops what Build remembers of a namespace's groups, or of
// every namespace when namespace is empty. Call it before telling the gate
// server, so that the streams rebuilding then evaluate afresh.
func (b *Builder) Invalidate(namespace string) {
	if m := b.groups(); m != nil {
		m.invalidate(namespace)
	}
}

// groups returns the memo, nil when GroupTTL is not set.
func (b *Builder) groups() *groupMemo {
	if b.GroupTTL <= 0 {
		return nil
	}
	b.memoOnce.Do(func() { b.memo = newGroupMemo(b.GroupTTL) })
	return b.memo
}

// Build returns the configuration for one pod, read from the informer cache.
// The pod's namespace and name are taken from the object given, which the
// caller must have from a source it trusts (the pod's token), never from
// the gate. The configuration passes gateproto's Validate; an error means
// the cache could not be read, and the caller keeps serving the last good
// configuration (or none: the gate then exposes nothing).
func (b *Builder) Build(ctx context.Context, pod *corev1.Pod) (*gateproto.Config, error) {
	e, err := b.BuildEncoded(ctx, pod)
	if err != nil {
		return nil, err
	}
	return e.Config, nil
}

// BuildEncoded is Build with the configuration's encoding, for a server
// to send as it is. The configuration has passed gateproto's Validate
// (the group's for the pod that evaluated it; each other pod's differs in
// its name, which the API server accepted, and, where argument rules read
// it, its agent, which is checked again), and its revision is taken over
// the encoding returned, so the server need neither validate nor encode it
// again.
func (b *Builder) BuildEncoded(ctx context.Context, pod *corev1.Pod) (*gateproto.Encoded, error) {
	if pod == nil || pod.Namespace == "" || pod.Name == "" {
		return nil, errors.New("building a gate configuration: the pod has no namespace or name")
	}
	m := b.groups()
	var since uint64
	if m != nil {
		// Before anything is read: see groupMemo.get.
		since = m.snapshot()
	}
	var list toolgatev1alpha1.ToolPolicyList
	// The cache's own objects, not copies: a policy's status lists every
	// tool it judged, and copying every policy of the namespace for each
	// gate that rebuilds would cost more than the rest of the build.
	// Nothing here or in the evaluation writes to them.
	if err := b.Reader.List(ctx, &list, client.InNamespace(pod.Namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing the ToolPolicies of %s: %w", pod.Namespace, err)
	}
	matching := policy.Matching(list.Items, pod.Labels)
	eval := func() (*evaluated, error) { return b.evaluate(ctx, pod, matching) }
	var group *evaluated
	var err error
	if m != nil {
		group, err = m.get(ctx, pod.Namespace, groupKey(matching), since, eval)
	} else {
		group, err = eval()
	}
	if err != nil {
		return nil, err
	}
	e, err := forPod(group, pod)
	if err != nil {
		return nil, err
	}
	if e.Config.Agent != nil {
		if err := validate(e.Config); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// forPod is the pod's configuration and its encoding: its group's but for
// what is the pod's own. The group's slices and maps are shared, not
// copied: nothing modifies a configuration once built. Where argument
// rules read the pod's agent the configuration is the pod's alone and is
// encoded whole; otherwise only the pod's name and revision are.
func forPod(group *evaluated, pod *corev1.Pod) (*gateproto.Encoded, error) {
	var e *gateproto.Encoded
	var err error
	if group.enc != nil {
		e, err = group.enc.ForPod(pod.Name)
	} else {
		cfg := *group.cfg
		cfg.Pod = pod.Name
		// What argument rules see of the agent besides its namespace and
		// pod, carried only where a rule could read it.
		cfg.Agent = agentOf(pod)
		e, err = gateproto.EncodeConfig(&cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("encoding the configuration of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return e, nil
}

// validate refuses a configuration that fails the protocol's Validate.
// Evaluation keeps every bound of the protocol; a failure is a bug, and
// serving nothing is the safe answer to it.
func validate(cfg *gateproto.Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("the configuration of pod %s/%s is invalid: %w", cfg.Namespace, cfg.Pod, err)
	}
	return nil
}

// evaluate gathers and evaluates the policies a group of pods matches into
// the configuration every pod of the group shares, without a pod's name,
// agent or revision, encodes it once, and validates it as the
// configuration of pod, the group's pod that evaluates it.
func (b *Builder) evaluate(ctx context.Context, pod *corev1.Pod, matching []toolgatev1alpha1.ToolPolicy) (*evaluated, error) {
	namespace := pod.Namespace
	in, err := b.Gather(ctx, namespace, matching)
	if err != nil {
		return nil, err
	}
	upstreams, unresolved, err := resolveUpstreams(ctx, b.Reader, in)
	if err != nil {
		return nil, err
	}
	in.Unresolved = unresolved
	cfg := policy.Evaluate(in).Config(namespace, "", upstreams)
	cfg.Revision = ""
	group := &evaluated{cfg: cfg}
	if len(cfg.ArgumentRules) == 0 {
		if group.enc, err = gateproto.EncodeGroup(cfg); err != nil {
			return nil, fmt.Errorf("encoding the configuration of the pods of %s: %w", namespace, err)
		}
	}
	e, err := forPod(group, pod)
	if err != nil {
		return nil, err
	}
	if err := validate(e.Config); err != nil {
		return nil, err
	}
	return group, nil
}

// Gather reads what evaluating policies of one namespace needs: the
// namespace's labels, the servers the policies reference and those
// servers' pins, under the Builder's ceilings. A server that does not exist
// is left out (the evaluation reports it); any other read error is
// returned.
func (b *Builder) Gather(ctx context.Context, namespace string, policies []toolgatev1alpha1.ToolPolicy) (policy.Input, error) {
	c := b.Reader
	in := policy.Input{Namespace: namespace, Policies: policies, Ceilings: b.Ceilings}
	var ns corev1.Namespace
	switch err := c.Get(ctx, client.ObjectKey{Name: namespace}, &ns); {
	case err == nil:
		in.NamespaceLabels = ns.Labels
	case apierrors.IsNotFound(err):
		// Being deleted: no labels, so no selector admits it.
	default:
		return in, fmt.Errorf("reading namespace %s: %w", namespace, err)
	}

	var ids []client.ObjectKey
	for i := range policies {
		for _, ref := range policies[i].Spec.Servers {
			key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
			if !slices.Contains(ids, key) {
				ids = append(ids, key)
			}
		}
	}
	for _, key := range ids {
		var s toolgatev1alpha1.MCPServer
		if err := c.Get(ctx, key, &s); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return in, fmt.Errorf("reading MCPServer %s: %w", key, err)
		}
		in.Servers = append(in.Servers, s)
		var pins toolgatev1alpha1.ToolPinList
		if err := c.List(ctx, &pins, client.InNamespace(key.Namespace), client.MatchingFields{PinServerIndex: key.Name}); err != nil {
			return in, fmt.Errorf("listing the pins of MCPServer %s: %w", key, err)
		}
		in.Pins = append(in.Pins, pins.Items...)
	}
	return in, nil
}

// resolveUpstreams resolves the upstream of every server the policies
// reference that admits the namespace; a server whose credentials or CA do
// not resolve is reported in unresolved with why, and is not ready for the
// gate. Other servers are not resolved at all: their Secrets are none of
// this namespace's business.
func resolveUpstreams(ctx context.Context, c client.Reader, in policy.Input) (map[string]*gateproto.Upstream, map[string]string, error) {
	upstreams, unresolved := map[string]*gateproto.Upstream{}, map[string]string{}
	for i := range in.Servers {
		s := &in.Servers[i]
		if ok, _ := policy.Admits(s, in.Namespace, in.NamespaceLabels); !ok {
			continue
		}
		id := s.Namespace + "/" + s.Name
		u, err := ResolveUpstream(ctx, c, s)
		var cerr *ConfigError
		switch {
		case errors.As(err, &cerr):
			unresolved[id] = cerr.Reason + ": " + cerr.Message
		case err != nil:
			return nil, nil, fmt.Errorf("resolving the upstream of MCPServer %s: %w", id, err)
		default:
			upstreams[id] = u
		}
	}
	return upstreams, unresolved, nil
}

// agentOf is the pod's identity as argument rules see it: its service
// account and its labels (at most gateproto.MaxAgentLabels, by key).
func agentOf(pod *corev1.Pod) *gateproto.Agent {
	a := &gateproto.Agent{ServiceAccount: pod.Spec.ServiceAccountName}
	if len(pod.Labels) > 0 {
		a.Labels = make(map[string]string, min(len(pod.Labels), gateproto.MaxAgentLabels))
		for _, k := range slices.Sorted(maps.Keys(pod.Labels)) {
			if len(a.Labels) == gateproto.MaxAgentLabels {
				break
			}
			a.Labels[k] = pod.Labels[k]
		}
	}
	return a
}
