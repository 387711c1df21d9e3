package injector

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/inject"
)

func enabledLabels() map[string]string {
	return map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
}

func agentPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "agent"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "example.com/agent:1"}}},
	}
}

func optedOutPod(ns, name string) *corev1.Pod {
	p := agentPod(ns, name)
	p.Labels[toolgatev1alpha1.LabelInject] = toolgatev1alpha1.InjectOptOut
	return p
}

// namespace creates a namespace of its own for one test, named after
// prefix, and returns its name. Envtest runs no namespace controller, so
// objects stay; a name of its own per run lets a test run again on the
// same API server (go test -count).
func namespace(t *testing.T, prefix string, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}
	if err := env.Client.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// fixedNamespace makes sure a namespace whose name matters (kube-system,
// the operator's) exists, and returns its name.
func fixedNamespace(t *testing.T, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.Client.Create(t.Context(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return name
}

// freshName has the API server name p uniquely after its name, so that a
// test creating it in a shared namespace can run again.
func freshName(p *corev1.Pod) *corev1.Pod {
	p.GenerateName, p.Name = p.Name+"-", ""
	return p
}

func policyFor(t *testing.T, ns string, servers ...toolgatev1alpha1.ServerReference) {
	t.Helper()
	p := &toolgatev1alpha1.ToolPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agents"},
		Spec: toolgatev1alpha1.ToolPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Servers:     servers,
		},
	}
	if err := env.Client.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

func gateOf(p *corev1.Pod) *corev1.Container {
	for i := range p.Spec.InitContainers {
		if p.Spec.InitContainers[i].Name == inject.ContainerName {
			return &p.Spec.InitContainers[i]
		}
	}
	return nil
}

func requireUntouched(t *testing.T, p *corev1.Pod) {
	t.Helper()
	if gateOf(p) != nil || p.Annotations[toolgatev1alpha1.AnnotationInjected] != "" || len(p.Spec.InitContainers) != 0 {
		t.Errorf("pod %s/%s was injected: %+v", p.Namespace, p.Name, p.Spec.InitContainers)
	}
	for _, e := range p.Spec.Containers[0].Env {
		t.Errorf("pod %s/%s got %s", p.Namespace, p.Name, e.Name)
	}
}

// TestInjectsLabelledNamespace: a pod created in an opted-in namespace
// comes back from the API server with the gate, as a native sidecar, its
// token in the gate alone and the endpoints in the agent.
func TestInjectsLabelledNamespace(t *testing.T) {
	ns := namespace(t, "agents-injected", enabledLabels())
	// The cache sees the policy shortly after it is written.
	policyFor(t, ns, toolgatev1alpha1.ServerReference{Namespace: "tools", Name: "github"},
		toolgatev1alpha1.ServerReference{Namespace: "tools", Name: "kubernetes-tools"})

	var pod *corev1.Pod
	eventually(t, "both endpoints are injected", func() (bool, string) {
		p := agentPod(ns, "")
		p.GenerateName = "agent-"
		if err := untrusted.Create(t.Context(), p); err != nil {
			t.Fatalf("creating the pod: %v", err)
		}
		pod = p
		return len(p.Spec.Containers[0].Env) == 2, "env " + strings.Join(envNames(p.Spec.Containers[0]), ",")
	})

	g := gateOf(pod)
	if g == nil || pod.Spec.InitContainers[0].Name != inject.ContainerName {
		t.Fatalf("no gate first among the init containers: %+v", pod.Spec.InitContainers)
	}
	if g.RestartPolicy == nil || *g.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Error("the gate is not a native sidecar")
	}
	if g.Image != "example.com/toolgate/gate:test" || g.StartupProbe == nil || g.StartupProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("gate image %s, startup probe %+v", g.Image, g.StartupProbe)
	}
	if sc := g.SecurityContext; sc == nil || !*sc.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation {
		t.Errorf("security context %+v", sc)
	}
	want := map[string]string{
		"TOOLGATE_MCP_GITHUB_URL":           "http://127.0.0.1:15001/mcp/tools/github",
		"TOOLGATE_MCP_KUBERNETES_TOOLS_URL": "http://127.0.0.1:15001/mcp/tools/kubernetes-tools",
	}
	for _, e := range pod.Spec.Containers[0].Env {
		if want[e.Name] != e.Value {
			t.Errorf("agent env %s=%s", e.Name, e.Value)
		}
	}
	if len(pod.Spec.Containers[0].VolumeMounts) != 0 {
		// No service account token is auto-mounted in envtest (no
		// ServiceAccount admission's token volume without a controller),
		// so the agent mounts nothing at all.
		for _, m := range pod.Spec.Containers[0].VolumeMounts {
			if m.Name == inject.VolumeName {
				t.Errorf("the agent mounts the gate's volume")
			}
		}
	}
	var tokenVolume *corev1.Volume
	for i, v := range pod.Spec.Volumes {
		if v.Name == inject.VolumeName {
			tokenVolume = &pod.Spec.Volumes[i]
		}
	}
	if tokenVolume == nil || tokenVolume.Projected == nil || tokenVolume.Projected.Sources[0].ServiceAccountToken.Audience != gateproto.Audience {
		t.Fatalf("no projected gate token: %+v", pod.Spec.Volumes)
	}
	if string(env.WebhookCA()) != pod.Annotations[toolgatev1alpha1.AnnotationOperatorCA] {
		t.Error("the operator's CA is not on the pod")
	}
	if !strings.Contains(pod.Annotations[toolgatev1alpha1.AnnotationInjected], `"image":"example.com/toolgate/gate:test"`) {
		t.Errorf("injected record %q", pod.Annotations[toolgatev1alpha1.AnnotationInjected])
	}

	// The pod, created again exactly as it came back, is left as it is:
	// injecting twice changes nothing.
	again := pod.DeepCopy()
	again.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: pod.Name + "-again", Labels: pod.Labels, Annotations: pod.Annotations}
	if err := untrusted.Create(t.Context(), again); err != nil {
		t.Fatal(err)
	}
	if len(again.Spec.InitContainers) != 1 || len(again.Spec.Containers[0].Env) != 2 || len(again.Spec.Volumes) != len(pod.Spec.Volumes) {
		t.Errorf("re-injection changed the pod: %d init containers, %d env", len(again.Spec.InitContainers), len(again.Spec.Containers[0].Env))
	}

	// The CA and the operator's URL the injector wrote cannot be swapped
	// afterwards: the gate reads both beside its token, and presents the
	// token to that URL.
	if got := pod.Annotations[toolgatev1alpha1.AnnotationOperatorURL]; got == "" {
		t.Error("the operator's URL is not on the pod")
	}
	for _, swap := range []struct{ annotation, value string }{
		{toolgatev1alpha1.AnnotationOperatorCA, "-----BEGIN CERTIFICATE-----\nMINE\n-----END CERTIFICATE-----\n"},
		{toolgatev1alpha1.AnnotationOperatorURL, "https://elsewhere.example:443"},
	} {
		var live corev1.Pod
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(again), &live); err != nil {
			t.Fatal(err)
		}
		live.Annotations[swap.annotation] = swap.value
		if err := untrusted.Update(t.Context(), &live); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), swap.annotation) {
			t.Errorf("swapping %s: %v, want a refusal naming it", swap.annotation, err)
		}
	}
}

// TestForgedGateReplaced: a container named like the gate, a copied
// annotation and a mount of the gate's volume in the agent do not pass
// for a gate.
func TestForgedGateReplaced(t *testing.T) {
	ns := namespace(t, "agents-forged", enabledLabels())
	p := agentPod(ns, "forged")
	p.Annotations = map[string]string{toolgatev1alpha1.AnnotationInjected: `{"image":"example.com/toolgate/gate:test","revision":"x"}`}
	p.Spec.InitContainers = []corev1.Container{{Name: inject.ContainerName, Image: "attacker.example/gate:1"}}
	p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: inject.VolumeName, MountPath: "/stolen"}}
	p.Spec.Volumes = []corev1.Volume{{Name: inject.VolumeName, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if err := untrusted.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if g := gateOf(p); g == nil || g.Image != "example.com/toolgate/gate:test" || len(p.Spec.InitContainers) != 1 {
		t.Errorf("the forged gate survived: %+v", p.Spec.InitContainers)
	}
	if len(p.Spec.Containers[0].VolumeMounts) != 0 {
		t.Errorf("the agent kept a mount of the gate's volume: %+v", p.Spec.Containers[0].VolumeMounts)
	}
}

// TestRefusedPods: pods that could not run gated are refused, not
// admitted ungated.
func TestRefusedPods(t *testing.T) {
	ns := namespace(t, "agents-refused", enabledLabels())
	exp := int64(600)
	for _, tc := range []struct {
		name, want string
		mod        func(*corev1.Pod)
	}{
		{"host network", "spec.hostNetwork", func(p *corev1.Pod) { p.Spec.HostNetwork = true }},
		{"shared process namespace", "spec.shareProcessNamespace", func(p *corev1.Pod) {
			yes := true
			p.Spec.ShareProcessNamespace = &yes
		}},
		{"host PID", "spec.hostPID", func(p *corev1.Pod) { p.Spec.HostPID = true }},
		{"host IPC", "spec.hostIPC", func(p *corev1.Pod) { p.Spec.HostIPC = true }},
		// The kubelet writes one /etc/hosts and one resolv.conf for the
		// whole pod: these would choose where the gate sends credentials.
		{"host aliases naming an upstream", "spec.hostAliases", func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"mcp.tools.svc.cluster.local"}}}
		}},
		{"a resolver of the author's", "spec.dnsPolicy None", func(p *corev1.Pod) {
			p.Spec.DNSPolicy = corev1.DNSNone
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.9.9.9"}}
		}},
		{"a search domain of the author's", "spec.dnsConfig.searches", func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Searches: []string{"attacker.example"}}
		}},
		{"hostPath", "hostPath", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "kubelet", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/kubelet/pods"}}}}
		}},
		{"a gate token for the agent", gateproto.Audience, func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "mine", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: gateproto.Audience, ExpirationSeconds: &exp, Path: "t"}}},
			}}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := agentPod(ns, "refused")
			tc.mod(p)
			if err := untrusted.Create(t.Context(), p); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want refused naming %s", err, tc.want)
			}
		})
	}
}

// TestNotInjected: unlabelled, system and the operator's namespaces are
// never injected, even labelled; the system one is filtered out by the
// API server, the operator's by the handler.
func TestNotInjected(t *testing.T) {
	plain := namespace(t, "plain", nil)
	for _, ns := range []string{
		plain,
		fixedNamespace(t, "kube-system"),
		fixedNamespace(t, operatorNamespace),
	} {
		if ns != plain {
			n := &corev1.Namespace{}
			if err := env.Client.Get(t.Context(), client.ObjectKey{Name: ns}, n); err != nil {
				t.Fatal(err)
			}
			if n.Labels == nil {
				n.Labels = map[string]string{}
			}
			n.Labels[toolgatev1alpha1.LabelInjection] = toolgatev1alpha1.InjectionEnabled
			if err := env.Client.Update(t.Context(), n); err != nil {
				t.Fatal(err)
			}
		}
		p := freshName(agentPod(ns, "agent-not-injected"))
		if err := env.Client.Create(t.Context(), p); err != nil {
			t.Fatalf("%s: %v", ns, err)
		}
		requireUntouched(t, p)
	}
}

// TestOptOut: a trusted creator's opted-out pod and Deployment pass
// untouched; an untrusted creator's are refused by the guard, and so is
// an untrusted change of an opted-out Deployment's template — but not an
// untrusted scale.
func TestOptOut(t *testing.T) {
	ns := namespace(t, "agents-optout", enabledLabels())

	p := optedOutPod(ns, "trusted")
	if err := trusted.Create(t.Context(), p); err != nil {
		t.Fatalf("a trusted creator's opt-out: %v", err)
	}
	requireUntouched(t, p)

	if err := untrusted.Create(t.Context(), optedOutPod(ns, "untrusted")); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "opts out of the gate") {
		t.Errorf("an untrusted creator's opt-out pod: %v, want refused by the guard", err)
	}

	dep := func(name string, optOut bool) *appsv1.Deployment {
		tmpl := agentPod(ns, "")
		if optOut {
			tmpl = optedOutPod(ns, "")
		}
		replicas := int32(1)
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: tmpl.Spec},
			},
		}
	}
	if err := untrusted.Create(t.Context(), dep("untrusted-optout", true)); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "Deployment that opts out") {
		t.Errorf("an untrusted creator's opted-out Deployment: %v, want refused", err)
	}
	if err := untrusted.Create(t.Context(), dep("untrusted-gated", false)); err != nil {
		t.Errorf("an untrusted creator's gated Deployment: %v", err)
	}
	d := dep("trusted-optout", true)
	if err := trusted.Create(t.Context(), d); err != nil {
		t.Fatalf("a trusted creator's opted-out Deployment: %v", err)
	}
	// Anyone may scale it: the template does not change.
	*d.Spec.Replicas = 3
	if err := untrusted.Update(t.Context(), d); err != nil {
		t.Errorf("an untrusted scale of an opted-out Deployment: %v", err)
	}
	d.Spec.Template.Spec.Containers[0].Image = "example.com/agent:2"
	if err := untrusted.Update(t.Context(), d); !apierrors.IsForbidden(err) {
		t.Errorf("an untrusted change of an opted-out template: %v, want refused", err)
	}
	// A ReplicationController stamps pods out of its template as a
	// Deployment's ReplicaSet does, under a trusted controller's identity.
	rc := func(name string) *corev1.ReplicationController {
		tmpl := optedOutPod(ns, "")
		replicas := int32(1)
		return &corev1.ReplicationController{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.ReplicationControllerSpec{
				Replicas: &replicas, Selector: map[string]string{"app": "agent"},
				Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: tmpl.Spec},
			},
		}
	}
	if err := untrusted.Create(t.Context(), rc("untrusted-optout")); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ReplicationController that opts out") {
		t.Errorf("an untrusted creator's opted-out ReplicationController: %v, want refused", err)
	}
	if err := trusted.Create(t.Context(), rc("trusted-optout")); err != nil {
		t.Errorf("a trusted creator's opted-out ReplicationController: %v", err)
	}
	// Adding the opt-out to a gated Deployment is an opt-out too.
	g := &appsv1.Deployment{}
	if err := untrusted.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "untrusted-gated"}, g); err != nil {
		t.Fatal(err)
	}
	g.Spec.Template.Labels[toolgatev1alpha1.LabelInject] = toolgatev1alpha1.InjectOptOut
	if err := untrusted.Update(t.Context(), g); !apierrors.IsForbidden(err) {
		t.Errorf("an untrusted opt-out added to a Deployment: %v, want refused", err)
	}
}

// TestInjectedGateGuarded: after admission, whoever may patch pods in an
// opted-in namespace can change neither the gate nor what records it,
// nor put an ephemeral container beside it; the agent's own containers
// stay theirs to change.
func TestInjectedGateGuarded(t *testing.T) {
	ns := namespace(t, "agents-guarded", enabledLabels())
	pod := agentPod(ns, "gated")
	if err := untrusted.Create(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	if gateOf(pod) == nil {
		t.Fatal("the pod was not injected")
	}
	patch := func(c client.Client, mod func(*corev1.Pod), sub ...string) error {
		var live corev1.Pod
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(pod), &live); err != nil {
			t.Fatal(err)
		}
		before := live.DeepCopy()
		mod(&live)
		if len(sub) > 0 {
			return c.SubResource(sub[0]).Patch(t.Context(), &live, client.StrategicMergeFrom(before))
		}
		return c.Patch(t.Context(), &live, client.StrategicMergeFrom(before))
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want refused with %q", what, err, want)
		}
	}

	// kubectl set image pod/gated toolgate-gate=evil.example/gate:1
	refused("swapping the gate's image", patch(untrusted, func(p *corev1.Pod) { gateOf(p).Image = "evil.example/gate:1" }),
		"the gate container toolgate-gate is written by the injector")
	refused("a trusted identity swapping the gate's image", patch(trusted, func(p *corev1.Pod) { gateOf(p).Image = "evil.example/gate:1" }),
		"the gate container toolgate-gate is written by the injector")
	refused("rewriting the injection record", patch(untrusted, func(p *corev1.Pod) {
		p.Annotations[toolgatev1alpha1.AnnotationInjected] = `{"image":"evil.example/gate:1","revision":"x"}`
	}), "toolgate.dev/injected is written by the injector")
	refused("shrinking the gate in place", patch(untrusted, func(p *corev1.Pod) {
		gateOf(p).Resources.Limits[corev1.ResourceMemory] = resource.MustParse("64Mi")
	}, "resize"), "the gate container toolgate-gate is written by the injector")

	debugger := func(target string, mounts ...corev1.VolumeMount) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{
				TargetContainerName: target,
				EphemeralContainerCommon: corev1.EphemeralContainerCommon{
					Name: fmt.Sprintf("debugger-%d", len(p.Spec.EphemeralContainers)), Image: "busybox", VolumeMounts: mounts,
					TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent,
				},
			})
		}
	}
	// kubectl debug --target=toolgate-gate, by anyone.
	refused("an untrusted debugger of the gate", patch(untrusted, debugger(inject.ContainerName), "ephemeralcontainers"),
		"only identities toolgate trusts may add an ephemeral container")
	refused("an untrusted debugger of the agent", patch(untrusted, debugger("agent"), "ephemeralcontainers"),
		"only identities toolgate trusts may add an ephemeral container")
	refused("a trusted debugger of the gate", patch(trusted, debugger(inject.ContainerName), "ephemeralcontainers"),
		"no ephemeral container may target the gate")
	refused("a trusted debugger mounting the gate's token", patch(trusted,
		debugger("", corev1.VolumeMount{Name: inject.VolumeName, MountPath: "/t"}), "ephemeralcontainers"),
		"no ephemeral container may target the gate")

	// What the guard leaves alone: the agent's own image, and a trusted
	// debugger of the agent.
	if err := patch(untrusted, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "example.com/agent:2" }); err != nil {
		t.Errorf("changing the agent's image: %v", err)
	}
	if err := patch(trusted, debugger("agent"), "ephemeralcontainers"); err != nil {
		t.Errorf("a trusted debugger of the agent: %v", err)
	}
	var live corev1.Pod
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(pod), &live); err != nil {
		t.Fatal(err)
	}
	if g := gateOf(&live); g == nil || g.Image != "example.com/toolgate/gate:test" {
		t.Errorf("the gate changed: %+v", g)
	}
	if injected, err := inject.CheckGate(&live); !injected || err != nil {
		t.Errorf("after what the guard allowed, the operator would refuse the pod: %v", err)
	}
}

func envNames(c corev1.Container) []string {
	var out []string
	for _, e := range c.Env {
		out = append(out, e.Name)
	}
	return out
}
