package injector

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// The pod-wide settings that choose where the names a pod's containers
// resolve lead, each with the field the guard policy names.
var redirections = []struct {
	field string
	set   func(*corev1.PodSpec)
}{
	{"hostAliases", func(s *corev1.PodSpec) {
		s.HostAliases = []corev1.HostAlias{{IP: "203.0.113.7", Hostnames: []string{"github-mcp.tools.svc"}}}
	}},
	{"dnsPolicy is None", func(s *corev1.PodSpec) {
		s.DNSPolicy = corev1.DNSNone
		s.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"203.0.113.53"}}
	}},
	{"dnsConfig.nameservers", func(s *corev1.PodSpec) {
		s.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"203.0.113.53"}}
	}},
	{"dnsConfig.searches", func(s *corev1.PodSpec) {
		s.DNSConfig = &corev1.PodDNSConfig{Searches: []string{"attacker.example"}}
	}},
}

// onlyOptions sets what names no server: ndots and a timeout.
func onlyOptions(s *corev1.PodSpec) {
	ndots, timeout := "2", "3"
	s.DNSConfig = &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: &ndots}, {Name: "timeout", Value: &timeout}}}
}

func requireRedirectionRefused(t *testing.T, what string, err error, path string) {
	t.Helper()
	if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) {
		t.Errorf("%s: %v, want refused", what, err)
		return
	}
	for _, want := range []string{path, "shares its /etc/hosts and /etc/resolv.conf", "toolgate.dev/inject=false"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want the guard policy's message naming %q", what, err, want)
		}
	}
}

// TestRedirectingPodsRefused: in an opted-in namespace, a pod that is not
// opted out may set no hosts, name servers or search domains of its own,
// whoever creates it; an opted-out pod may, and so may any pod set only
// resolver options. The namespace is one the injection webhook never
// selects (kube-public), so that what refuses is the guard policy alone:
// in other opted-in namespaces the injector refuses such pods first
// (TestRefusedPods), and the policy is what still holds where it is not
// called.
func TestRedirectingPodsRefused(t *testing.T) {
	ns := &corev1.Namespace{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: "kube-public"}, ns); err != nil {
		ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-public"}}
		if err := env.Client.Create(t.Context(), ns); err != nil {
			t.Fatal(err)
		}
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[toolgatev1alpha1.LabelInjection] = toolgatev1alpha1.InjectionEnabled
	if err := env.Client.Update(t.Context(), ns); err != nil {
		t.Fatal(err)
	}

	// The policy's plugin reads namespaces' labels from an informer:
	// wait until it sees this one enabled.
	first := redirections[0]
	eventually(t, "the guard policy sees kube-public opted in", func() (bool, string) {
		p := agentPod(ns.Name, "probe")
		first.set(&p.Spec)
		err := untrusted.Create(t.Context(), p, client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "spec.hostAliases is set"), "dry run: " + errString(err)
	})

	for _, r := range redirections {
		for _, c := range []struct {
			who string
			c   client.Client
		}{{"an untrusted creator", untrusted}, {"a trusted creator", trusted}} {
			p := agentPod(ns.Name, "redirecting")
			r.set(&p.Spec)
			requireRedirectionRefused(t, c.who+"'s pod with "+r.field, c.c.Create(t.Context(), p), "spec."+strings.Fields(r.field)[0])
		}
		p := freshName(optedOutPod(ns.Name, "opted-out-"+strings.ToLower(strings.NewReplacer(".", "-", " ", "-").Replace(r.field))))
		r.set(&p.Spec)
		if err := trusted.Create(t.Context(), p); err != nil {
			t.Errorf("a trusted creator's opted-out pod with %s: %v", r.field, err)
		}
	}
	p := freshName(agentPod(ns.Name, "resolver-options"))
	onlyOptions(&p.Spec)
	if err := untrusted.Create(t.Context(), p); err != nil {
		t.Errorf("a pod with dnsConfig.options only: %v", err)
	}
}

// workloads returns one object of every guarded workload kind whose pod
// template is spec, with the path to that template's spec.
func workloads(ns string, tmpl *corev1.Pod) []struct {
	obj  client.Object
	path string
} {
	one := int32(1)
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: tmpl.Spec}
	jobSpec := batchv1.JobSpec{Template: *template.DeepCopy()}
	jobSpec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	meta := func(kind string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: strings.ToLower(kind)}
	}
	return []struct {
		obj  client.Object
		path string
	}{
		{&appsv1.Deployment{ObjectMeta: meta("Deployment"), Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: selector, Template: template}}, "spec.template.spec"},
		{&appsv1.StatefulSet{ObjectMeta: meta("StatefulSet"), Spec: appsv1.StatefulSetSpec{Replicas: &one, Selector: selector, Template: template}}, "spec.template.spec"},
		{&appsv1.DaemonSet{ObjectMeta: meta("DaemonSet"), Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template}}, "spec.template.spec"},
		{&appsv1.ReplicaSet{ObjectMeta: meta("ReplicaSet"), Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: selector, Template: template}}, "spec.template.spec"},
		{&corev1.ReplicationController{ObjectMeta: meta("ReplicationController"), Spec: corev1.ReplicationControllerSpec{
			Replicas: &one, Selector: map[string]string{"app": "agent"}, Template: template.DeepCopy()}}, "spec.template.spec"},
		{&batchv1.Job{ObjectMeta: meta("Job"), Spec: jobSpec}, "spec.template.spec"},
		{&batchv1.CronJob{ObjectMeta: meta("CronJob"), Spec: batchv1.CronJobSpec{Schedule: "@hourly",
			JobTemplate: batchv1.JobTemplateSpec{Spec: *jobSpec.DeepCopy()}}}, "spec.jobTemplate.spec.template.spec"},
	}
}

// TestRedirectingTemplatesRefused: the pod template of every guarded
// workload kind is judged as a pod is, when the workload is written, so
// that the refusal reaches whoever applied it rather than a controller's
// event; an opted-out template of a trusted creator passes, as does one
// with resolver options only.
func TestRedirectingTemplatesRefused(t *testing.T) {
	ns := namespace(t, "agents-redirecting-templates", enabledLabels())
	for _, r := range redirections {
		tmpl := agentPod(ns, "")
		r.set(&tmpl.Spec)
		for _, w := range workloads(ns, tmpl) {
			kind := w.obj.GetName()
			requireRedirectionRefused(t, "a "+kind+" with "+r.field, untrusted.Create(t.Context(), w.obj), w.path+"."+strings.Fields(r.field)[0])
		}
	}
	tmpl := agentPod(ns, "")
	redirections[0].set(&tmpl.Spec)
	if err := trusted.Create(t.Context(), workloads(ns, tmpl)[0].obj); !apierrors.IsForbidden(err) {
		t.Errorf("a trusted creator's Deployment with hostAliases, not opted out: %v, want refused", err)
	}
	optedOut := optedOutPod(ns, "")
	redirections[0].set(&optedOut.Spec)
	for _, w := range workloads(ns, optedOut) {
		if err := trusted.Create(t.Context(), w.obj); err != nil {
			t.Errorf("a trusted creator's opted-out %s with hostAliases: %v", w.obj.GetName(), err)
		}
	}
	resolver := agentPod(ns, "")
	onlyOptions(&resolver.Spec)
	w := workloads(ns, resolver)[0]
	w.obj.SetName("resolver-options")
	if err := untrusted.Create(t.Context(), w.obj); err != nil {
		t.Errorf("a Deployment with dnsConfig.options only: %v", err)
	}
}

// TestRedirectingTemplateLeftAlone: a Deployment that set hostAliases
// before its namespace opted in can still be scaled by anyone, but its
// template cannot change until the hostAliases go: a change would roll out
// gated pods that redirect.
func TestRedirectingTemplateLeftAlone(t *testing.T) {
	ns := namespace(t, "agents-redirecting-before", nil)
	tmpl := agentPod(ns, "")
	redirections[0].set(&tmpl.Spec)
	d := workloads(ns, tmpl)[0].obj.(*appsv1.Deployment)
	if err := untrusted.Create(t.Context(), d); err != nil {
		t.Fatalf("a Deployment with hostAliases in a namespace without injection: %v", err)
	}
	n := &corev1.Namespace{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: ns}, n); err != nil {
		t.Fatal(err)
	}
	n.Labels = enabledLabels()
	if err := env.Client.Update(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	var changeErr error
	eventually(t, "a change of the template is refused once the namespace opts in", func() (bool, string) {
		live := &appsv1.Deployment{}
		if err := untrusted.Get(t.Context(), client.ObjectKeyFromObject(d), live); err != nil {
			t.Fatal(err)
		}
		live.Spec.Template.Spec.Containers[0].Image = "example.com/agent:2"
		changeErr = untrusted.Update(t.Context(), live, client.DryRunAll)
		return changeErr != nil, "the change: " + errString(changeErr)
	})
	requireRedirectionRefused(t, "a change of the template", changeErr, "spec.template.spec.hostAliases")

	live := &appsv1.Deployment{}
	if err := untrusted.Get(t.Context(), client.ObjectKeyFromObject(d), live); err != nil {
		t.Fatal(err)
	}
	*live.Spec.Replicas = 3
	if err := untrusted.Update(t.Context(), live); err != nil {
		t.Errorf("scaling it: %v", err)
	}
	live.Spec.Template.Spec.HostAliases = nil
	live.Spec.Template.Spec.Containers[0].Image = "example.com/agent:2"
	if err := untrusted.Update(t.Context(), live); err != nil {
		t.Errorf("changing the template with the hostAliases dropped: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "allowed"
	}
	return err.Error()
}
