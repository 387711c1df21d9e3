package gateconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// groupKey is what pods share a configuration by: the set of policies
// they match, whatever order the cache lists them in.
func TestGroupKey(t *testing.T) {
	named := func(names ...string) []toolgatev1alpha1.ToolPolicy {
		out := make([]toolgatev1alpha1.ToolPolicy, len(names))
		for i, n := range names {
			out[i].Name = n
		}
		return out
	}
	for _, tc := range []struct {
		name string
		a, b []toolgatev1alpha1.ToolPolicy
		same bool
	}{
		{"none", nil, named(), true},
		{"order", named("readers", "everyone"), named("everyone", "readers"), true},
		{"one more", named("everyone"), named("everyone", "readers"), false},
		{"other", named("readers"), named("writers"), false},
		// A name cannot hold the separator, so two names never read as one.
		{"joined names", named("a", "b"), named("a-b"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := groupKey(tc.a) == groupKey(tc.b); got != tc.same {
				t.Errorf("groupKey(%q) == groupKey(%q) is %v, want %v", groupKey(tc.a), groupKey(tc.b), got, tc.same)
			}
		})
	}
}

// testRuns numbers the runs of the tests that create namespaces, which
// outlive a run in the package's control plane.
var testRuns atomic.Int64

// countingReader counts the evaluations a Builder makes: each reads its
// namespace once.
type countingReader struct {
	client.Reader
	namespaceGets atomic.Int64
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Namespace); ok {
		r.namespaceGets.Add(1)
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestGroupsShareOneEvaluation: pods that match the same policies are
// served what each would be served built alone, byte for byte, for one
// evaluation per group; an invalidation of their namespace makes the next
// build see the change, once per group however many pods build at once.
func TestGroupsShareOneEvaluation(t *testing.T) {
	needEnv(t)
	ctx := t.Context()
	// Namespaces of this run's own, so that -count runs it again.
	run := testRuns.Add(1)
	toolsNS, agentsNS := fmt.Sprintf("memo-tools-%d", run), fmt.Sprintf("memo-agents-%d", run)
	c := env.Client
	create := func(objs ...client.Object) {
		t.Helper()
		for _, o := range objs {
			if err := c.Create(ctx, o); err != nil {
				t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
			}
		}
	}
	create(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: toolsNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: agentsNS, Labels: map[string]string{"team": "agents"}}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: toolsNS, Name: "git-token", Labels: map[string]string{toolgatev1alpha1.LabelCredentials: "true"}},
			StringData: map[string]string{"token": "s3cret"},
		},
	)
	server := func(ns, name string, auth *toolgatev1alpha1.MCPServerAuth) {
		s := &toolgatev1alpha1.MCPServer{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: toolgatev1alpha1.MCPServerSpec{
				Endpoint: toolgatev1alpha1.MCPEndpoint{URL: "https://" + name + ".example.test/mcp"}, Auth: auth,
				Consumers: toolgatev1alpha1.ConsumerSpec{From: toolgatev1alpha1.NamespacesFromAll},
			},
		}
		create(s)
		s.Status.Conditions = []metav1.Condition{{Type: toolgatev1alpha1.ConditionReady, Status: metav1.ConditionTrue,
			Reason: toolgatev1alpha1.ReasonProbed, Message: "probed", ObservedGeneration: s.Generation, LastTransitionTime: metav1.Now()}}
		if err := c.Status().Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	server(toolsNS, "git", &toolgatev1alpha1.MCPServerAuth{BearerToken: &toolgatev1alpha1.KeyReference{Name: "git-token", Key: "token"}})
	server(agentsNS, "db", nil)
	pin := func(ns, srv, tool string, level toolgatev1alpha1.Level) *toolgatev1alpha1.ToolPin {
		p := &toolgatev1alpha1.ToolPin{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: srv + "-" + tool},
			Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: srv}, ToolName: tool},
		}
		create(p)
		fp := toolgatev1alpha1.Fingerprint(fmt.Sprintf("sha256:%064x", len(tool)))
		p.Status = toolgatev1alpha1.ToolPinStatus{
			State: toolgatev1alpha1.PinTrusted, ObservedFingerprint: fp,
			Pinned: &toolgatev1alpha1.PinnedDefinition{Fingerprint: fp, Time: metav1.Now(), Source: toolgatev1alpha1.PinnedOnFirstUse},
			Risk: &toolgatev1alpha1.ToolRisk{Level: level, EffectiveLevel: level, RiskLevel: toolgatev1alpha1.RiskLow,
				Category: toolgatev1alpha1.CategoryRead, BlastRadius: toolgatev1alpha1.BlastItem, Reversibility: toolgatev1alpha1.ReversibilityAuto,
				ApprovalRecommendation: toolgatev1alpha1.ApprovalNone, MinTrustLevel: 1},
		}
		if err := c.Status().Update(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pin(toolsNS, "git", "log", toolgatev1alpha1.LevelLow)
	push := pin(toolsNS, "git", "push", toolgatev1alpha1.LevelModerate)
	pin(agentsNS, "db", "query", toolgatev1alpha1.LevelLow)
	policy := func(name string, selector map[string]string, servers []toolgatev1alpha1.ServerReference, rules ...toolgatev1alpha1.ArgumentRule) client.Object {
		return &toolgatev1alpha1.ToolPolicy{
			ObjectMeta: metav1.ObjectMeta{Namespace: agentsNS, Name: name},
			Spec: toolgatev1alpha1.ToolPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: selector}, Servers: servers,
				MaxLevel: toolgatev1alpha1.LevelModerate, ArgumentRules: rules},
		}
	}
	git := toolgatev1alpha1.ServerReference{Namespace: toolsNS, Name: "git"}
	db := toolgatev1alpha1.ServerReference{Namespace: agentsNS, Name: "db"}
	create(
		policy("readers", map[string]string{"app": "reader"}, []toolgatev1alpha1.ServerReference{git}),
		// Argument rules read the agent: these pods differ in more than
		// their name.
		policy("writers", map[string]string{"app": "writer"}, []toolgatev1alpha1.ServerReference{git, db}, toolgatev1alpha1.ArgumentRule{
			Name: "main-only", Tools: []toolgatev1alpha1.ToolReference{{Name: "push"}},
			Expression: `has(args.branch) && args.branch != "main" && agent.labels["team"] != "release"`, Action: toolgatev1alpha1.ArgumentRuleRefuse,
		}),
		policy("everyone", nil, []toolgatev1alpha1.ServerReference{db}),
	)

	pod := func(name string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: agentsNS, Name: name, Labels: labels},
			Spec:       corev1.PodSpec{ServiceAccountName: "agent"},
		}
	}
	pods := []*corev1.Pod{
		pod("reader-0", map[string]string{"app": "reader"}),
		pod("reader-1", map[string]string{"app": "reader", "pod-template-hash": "abc"}),
		pod("writer-0", map[string]string{"app": "writer", "team": "release"}),
		pod("writer-1", map[string]string{"app": "writer", "team": "data"}),
		pod("loner", nil),
	}
	const groups = 3 // readers+everyone, writers+everyone, everyone

	plain := &Builder{Reader: informers}
	counted := &countingReader{Reader: informers}
	memo := &Builder{Reader: counted, GroupTTL: time.Hour}
	// alike builds every pod both ways and fails unless each pod's
	// configurations are the same; it returns the memo's.
	alike := func(what string) map[string]*gateproto.Config {
		t.Helper()
		out := map[string]*gateproto.Config{}
		for _, p := range pods {
			want, err := plain.Build(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := memo.BuildEncoded(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			got := enc.Config
			// What the gate receives is the configuration's own encoding,
			// and the revision the one it computes from it.
			if own, err := json.Marshal(got); err != nil || !bytes.Equal(enc.Bytes(), own) {
				t.Errorf("%s: pod %s: the encoding is not the configuration's (%v):\n got %s\nwant %s", what, p.Name, err, enc.Bytes(), own)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("%s: pod %s: %v", what, p.Name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: pod %s: the group's configuration is not the pod's own:\n got %+v\nwant %+v", what, p.Name, got, want)
			}
			out[p.Name] = got
		}
		return out
	}
	// The cache sees what was created when every group is served it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		cfg, err := plain.Build(ctx, pods[2])
		// Every policy and pin too: a group built while the cache still
		// lacks one is keyed, or evaluated, as another.
		var policies toolgatev1alpha1.ToolPolicyList
		var toolsPins, agentsPins toolgatev1alpha1.ToolPinList
		listed := informers.List(ctx, &policies, client.InNamespace(agentsNS)) == nil &&
			informers.List(ctx, &toolsPins, client.InNamespace(toolsNS)) == nil &&
			informers.List(ctx, &agentsPins, client.InNamespace(agentsNS)) == nil &&
			len(policies.Items) == 3 && len(toolsPins.Items) == 2 && len(agentsPins.Items) == 1 &&
			toolsPins.Items[0].Status.Risk != nil && toolsPins.Items[1].Status.Risk != nil && agentsPins.Items[0].Status.Risk != nil
		if err == nil && listed && len(cfg.Servers) == 2 && cfg.Servers[0].Ready && cfg.Servers[1].Ready && len(cfg.ArgumentRules) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cache did not show the fixtures in 30s: %+v, %v", cfg, err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	first := alike("first build")
	if n := counted.namespaceGets.Load(); n != groups {
		t.Errorf("%d pods in %d groups cost %d evaluations, want %d", len(pods), groups, n, groups)
	}
	if first["writer-0"].Revision == first["writer-1"].Revision || first["writer-0"].Agent.Labels["team"] != "release" {
		t.Errorf("pods whose rules read their labels share a revision or an agent: %+v, %+v", first["writer-0"].Agent, first["writer-1"].Agent)
	}
	if first["reader-0"].Agent != nil {
		t.Errorf("a pod no argument rule reads is described: %+v", first["reader-0"].Agent)
	}
	alike("again")
	if n := counted.namespaceGets.Load(); n != groups {
		t.Errorf("building again with nothing invalidated cost %d more evaluations", n-groups)
	}

	// A pin moves above the ceiling: withheld once the namespace that uses
	// it is invalidated, as the informer handlers do after the cache has
	// the change.
	push.Status.Risk.Level, push.Status.Risk.EffectiveLevel = toolgatev1alpha1.LevelCritical, toolgatev1alpha1.LevelCritical
	if err := c.Status().Update(ctx, push); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		var p toolgatev1alpha1.ToolPin
		if err := informers.Get(ctx, client.ObjectKeyFromObject(push), &p); err == nil && p.Status.Risk.Level == toolgatev1alpha1.LevelCritical {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cache did not see the pin's change in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if stale, err := memo.Build(ctx, pods[0]); err != nil || stale.Revision != first["reader-0"].Revision {
		t.Fatalf("without an invalidation the group's evaluation is not reused: %v", err)
	}
	before := counted.namespaceGets.Load()
	memo.Invalidate(agentsNS)

	// Every reader pod's stream rebuilds at once after the change: one
	// evaluation for them all.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := memo.Build(ctx, pod(fmt.Sprintf("reader-%d", 100+i), map[string]string{"app": "reader"})); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := counted.namespaceGets.Load() - before; n != 1 {
		t.Errorf("64 pods of one group building at once after an invalidation cost %d evaluations, want 1", n)
	}
	after := alike("after the change")
	for _, name := range []string{"reader-0", "writer-0"} {
		if after[name].Revision == first[name].Revision {
			t.Errorf("pod %s: the revision did not move with the pin", name)
		}
	}
	if after["loner"].Revision != first["loner"].Revision {
		t.Errorf("the pod that does not use the pin's server was served a new revision")
	}
}

// TestAnInvalidationDuringABuildIsNotHidden: a build that read a policy
// before its change, and reaches the memo after the change invalidated the
// namespace, evaluates for itself alone; what it evaluated is never what
// the builds the change started are served.
func TestAnInvalidationDuringABuildIsNotHidden(t *testing.T) {
	ctx := t.Context()
	revision := func(r string) func() (*evaluated, error) {
		return func() (*evaluated, error) { return &evaluated{cfg: &gateproto.Config{Revision: r}}, nil }
	}
	for _, tc := range []struct {
		name       string
		invalidate string
		// shared is whether the second build reuses what the first made.
		shared bool
	}{
		{"its namespace", "agents", false},
		{"every namespace", "", false},
		{"another namespace", "others", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newGroupMemo(time.Hour)
			since := m.snapshot() // the first build starts, and lists policy v1
			m.invalidate(tc.invalidate)
			first, err := m.get(ctx, "agents", "readers", since, revision("v1"))
			if err != nil || first.cfg.Revision != "v1" {
				t.Fatalf("the first build got %+v, %v", first, err)
			}
			// The build the change started lists policy v2.
			second, err := m.get(ctx, "agents", "readers", m.snapshot(), revision("v2"))
			if err != nil {
				t.Fatal(err)
			}
			want := "v2"
			if tc.shared {
				want = "v1"
			}
			if second.cfg.Revision != want {
				t.Errorf("after invalidating %q the next build was served %s, want %s", tc.invalidate, second.cfg.Revision, want)
			}
		})
	}
}

// invalidatingReader invalidates a Builder's memo once, right after the
// Builder lists the namespace's policies: a change that lands in the middle
// of a build.
type invalidatingReader struct {
	*countingReader
	builder *Builder
	once    sync.Once
}

func (r *invalidatingReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	err := r.countingReader.List(ctx, list, opts...)
	if _, ok := list.(*toolgatev1alpha1.ToolPolicyList); ok {
		r.once.Do(func() { r.builder.Invalidate("") })
	}
	return err
}

// TestBuildNotesInvalidationsBeforeItReads: the Builder takes its place in
// the memo's order of invalidations before it lists the policies, so a
// change between its list and its evaluation leaves nothing in the memo.
func TestBuildNotesInvalidationsBeforeItReads(t *testing.T) {
	needEnv(t)
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("memo-race-%d", testRuns.Add(1))}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "agent-0"}}
	counted := &countingReader{Reader: informers}
	b := &Builder{GroupTTL: time.Hour}
	b.Reader = &invalidatingReader{countingReader: counted, builder: b}
	for range 2 {
		if _, err := b.BuildEncoded(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}
	// The first build was overtaken by the invalidation: it evaluated for
	// itself; the second evaluated again rather than take the first's.
	if n := counted.namespaceGets.Load(); n != 2 {
		t.Errorf("%d evaluations for two builds across an invalidation, want 2", n)
	}
	if _, err := b.BuildEncoded(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if n := counted.namespaceGets.Load(); n != 2 {
		t.Errorf("%d evaluations after a third build, want the second's shared (2)", n)
	}
}
