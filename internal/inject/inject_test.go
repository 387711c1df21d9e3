package inject

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// testCA is not a certificate; Mutate only checks for the PEM header.
const testCA = "-----BEGIN CERTIFICATE-----\nTESTCA\n-----END CERTIFICATE-----\n"

func testTemplate() Template {
	return Template{
		Image:       "example.com/toolgate/gate:v1",
		OperatorURL: "https://toolgate-operator.toolgate-system.svc:9444",
		CAPEM:       testCA,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
		},
	}
}

// goldenCases are the input pods in testdata and the servers their
// policies reference.
var goldenCases = map[string][]string{
	"basic":     {"tools/github", "tools/kubernetes"},
	"collision": {"team-a/github", "team-b/github", "tools/my-db", "tools/my.db", "other/my-db"},
	"existing":  {"tools/search"},
	"forged":    {"tools/github"},
	"noservers": nil,
	// The same servers as basic: the webhook is called again for the
	// same pod.
	"reinvoked": {"tools/github", "tools/kubernetes"},
}

func readPod(t *testing.T, path string) *corev1.Pod {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p corev1.Pod
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &p
}

// TestGolden mutates every input pod, compares the result with its golden
// file and checks that mutating the result changes nothing.
func TestGolden(t *testing.T) {
	for name, servers := range goldenCases {
		t.Run(name, func(t *testing.T) {
			in := readPod(t, filepath.Join("testdata", name+".yaml"))
			before := in.DeepCopy()
			out, err := Mutate(in, testTemplate(), servers)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(in, before) {
				t.Error("Mutate changed its input")
			}
			got, err := yaml.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden.yaml")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the mutated pod differs from %s (go test -update rewrites it):\n%s", golden, got)
			}
			again, err := Mutate(out, testTemplate(), servers)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(again, out) {
				b, _ := yaml.Marshal(again)
				t.Errorf("injecting twice changed the pod:\n%s", b)
			}
			checkInvariants(t, out, len(servers))
		})
	}
}

// checkInvariants asserts what every injected pod must hold, whatever its
// golden file says: the gate first, a native sidecar, locked down, the
// token in the gate only, the agent given only the endpoints.
func checkInvariants(t *testing.T, p *corev1.Pod, servers int) {
	t.Helper()
	if len(p.Spec.InitContainers) == 0 || p.Spec.InitContainers[0].Name != ContainerName {
		t.Fatal("the gate is not the first init container")
	}
	g := p.Spec.InitContainers[0]
	if g.RestartPolicy == nil || *g.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Error("the gate is not a native sidecar")
	}
	sc := g.SecurityContext
	if sc == nil || !*sc.RunAsNonRoot || *sc.RunAsUser == 0 || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation ||
		len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("the gate's security context is not locked down: %+v", sc)
	}
	// What the injector writes is what the operator accepts as intact.
	if injected, err := CheckGate(p); !injected || err != nil {
		t.Errorf("CheckGate of a freshly injected pod: injected %v, %v", injected, err)
	}
	if g.StartupProbe == nil || g.StartupProbe.HTTPGet.Path != "/readyz" || g.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Error("the gate's probes are wrong")
	}
	gates := 0
	for _, c := range append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		if c.Name == ContainerName {
			gates++
			continue
		}
		for _, m := range c.VolumeMounts {
			if m.Name == VolumeName {
				t.Errorf("container %s mounts the gate's volume", c.Name)
			}
		}
		n := 0
		for _, e := range c.Env {
			if strings.HasPrefix(e.Name, EnvPrefix) {
				n++
				if !strings.HasPrefix(e.Value, "http://127.0.0.1:15001/mcp/") {
					t.Errorf("container %s: %s=%s is not a gate endpoint", c.Name, e.Name, e.Value)
				}
			}
		}
		if n != servers {
			t.Errorf("container %s has %d endpoint variables, want %d", c.Name, n, servers)
		}
	}
	if gates != 1 {
		t.Errorf("%d gate containers", gates)
	}
	tokens := 0
	for _, v := range p.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil && s.ServiceAccountToken.Audience == gateproto.Audience {
				tokens++
				if *s.ServiceAccountToken.ExpirationSeconds != DefaultTokenExpirySeconds {
					t.Errorf("token expiry %d", *s.ServiceAccountToken.ExpirationSeconds)
				}
			}
		}
	}
	if tokens != 1 {
		t.Errorf("%d gate tokens", tokens)
	}
	if p.Annotations[toolgatev1alpha1.AnnotationOperatorCA] != testCA || p.Annotations[toolgatev1alpha1.AnnotationInjected] == "" {
		t.Error("annotations not recorded")
	}
}

// TestRevision: the revision follows the template, the record names it.
func TestRevision(t *testing.T) {
	a, b := testTemplate(), testTemplate()
	if a.Revision() != b.Revision() {
		t.Error("equal templates differ in revision")
	}
	b.Image = "example.com/toolgate/gate:v2"
	if a.Revision() == b.Revision() {
		t.Error("another image, the same revision")
	}
	c := testTemplate()
	c.CAPEM = strings.Replace(testCA, "TESTCA", "ROTATED", 1)
	if a.Revision() == c.Revision() {
		t.Error("another CA, the same revision")
	}
	p, err := Mutate(&corev1.Pod{}, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"image":"example.com/toolgate/gate:v1","revision":"` + a.Revision() + `"}`
	if got := p.Annotations[toolgatev1alpha1.AnnotationInjected]; got != want {
		t.Errorf("record %s, want %s", got, want)
	}
	// A pod injected by an older template is brought up to this one.
	old, _ := Mutate(&corev1.Pod{}, b, nil)
	re, _ := Mutate(old, a, nil)
	if !equality.Semantic.DeepEqual(re, p) {
		t.Error("re-injecting with a new template does not give the new template's pod")
	}
}

func TestTemplateValidate(t *testing.T) {
	for name, mod := range map[string]func(*Template){
		"no image":     func(t *Template) { t.Image = "" },
		"http url":     func(t *Template) { t.OperatorURL = "http://op:9444" },
		"no ca":        func(t *Template) { t.CAPEM = "" },
		"short expiry": func(t *Template) { t.TokenExpirySeconds = 60 },
		// Flags that would detach the gate from the operator, or move it.
		"gate arg --config-file":  func(t *Template) { t.Args = []string{"--config-file=/tmp/open.json"} },
		"gate arg --operator-url": func(t *Template) { t.Args = []string{"--operator-url=https://evil.example"} },
		"gate arg --listen":       func(t *Template) { t.Args = []string{"--listen=0.0.0.0:15000"} },
		"gate arg without value":  func(t *Template) { t.Args = []string{"--log-level"} },
		"gate arg without dashes": func(t *Template) { t.Args = []string{"log-level=debug"} },
	} {
		tmpl := testTemplate()
		mod(&tmpl)
		if _, err := Mutate(&corev1.Pod{}, tmpl, nil); err == nil {
			t.Errorf("%s: Mutate accepted the template", name)
		}
	}
	if _, err := Mutate(&corev1.Pod{}, testTemplate(), []string{"not-an-id"}); err == nil {
		t.Error("Mutate accepted a server that is not namespace/name")
	}
}

func TestEnvVars(t *testing.T) {
	got, err := EnvVars([]string{"tools/github", "a/k8s", "b/k8s", "tools/github"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"TOOLGATE_MCP_GITHUB_URL": "http://127.0.0.1:15001/mcp/tools/github",
		"TOOLGATE_MCP_A__K8S_URL": "http://127.0.0.1:15001/mcp/a/k8s",
		"TOOLGATE_MCP_B__K8S_URL": "http://127.0.0.1:15001/mcp/b/k8s",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for _, e := range got {
		if want[e.Name] != e.Value {
			t.Errorf("%s=%s, want %q", e.Name, e.Value, want[e.Name])
		}
	}
}

func TestDecide(t *testing.T) {
	enabled := map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
	optOut := map[string]string{toolgatev1alpha1.LabelInject: toolgatev1alpha1.InjectOptOut}
	settings := Settings{OperatorNamespace: "toolgate-system", ExcludedNamespaces: []string{"monitoring"}}
	pod := func(labels map[string]string, mod ...func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
		for _, m := range mod {
			m(p)
		}
		return p
	}
	foreign := func(p *corev1.Pod) {
		exp := int64(600)
		p.Spec.Volumes = []corev1.Volume{{Name: "mine", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: gateproto.Audience, ExpirationSeconds: &exp}}},
		}}}}
	}
	hostPath := func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "kubelet", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/kubelet"}}}}
	}
	for _, tc := range []struct {
		name     string
		pod      *corev1.Pod
		ns       string
		nsLabels map[string]string
		want     Reason
		inject   bool
		deny     bool
	}{
		{"opted-in namespace", pod(nil), "agents", enabled, ReasonInject, true, false},
		{"other label values do not opt in", pod(nil), "agents", map[string]string{toolgatev1alpha1.LabelInjection: "true"}, ReasonNamespaceNotEnabled, false, false},
		{"unlabelled namespace", pod(nil), "default", nil, ReasonNamespaceNotEnabled, false, false},
		{"opt-out", pod(optOut), "agents", enabled, ReasonOptedOut, false, false},
		{"opt-out needs the exact value", pod(map[string]string{toolgatev1alpha1.LabelInject: "no"}), "agents", enabled, ReasonInject, true, false},
		{"operator namespace, even labelled", pod(nil), "toolgate-system", enabled, ReasonOperatorNamespace, false, false},
		{"kube-system, even labelled", pod(nil), "kube-system", enabled, ReasonSystemNamespace, false, false},
		{"kube-node-lease", pod(nil), "kube-node-lease", enabled, ReasonSystemNamespace, false, false},
		{"configured exclusion", pod(nil), "monitoring", enabled, ReasonSystemNamespace, false, false},
		{"host network refused", pod(nil, func(p *corev1.Pod) { p.Spec.HostNetwork = true }), "agents", enabled, ReasonHostNetwork, false, true},
		{"host network opted out passes", pod(optOut, func(p *corev1.Pod) { p.Spec.HostNetwork = true }), "agents", enabled, ReasonOptedOut, false, false},
		{"a gate token for the agent refused", pod(nil, foreign), "agents", enabled, ReasonForeignGateToken, false, true},
		{"a shared process namespace refused", pod(nil, func(p *corev1.Pod) { p.Spec.ShareProcessNamespace = ptr(true) }), "agents", enabled, ReasonSharedProcessNamespace, false, true},
		{"shareProcessNamespace false passes", pod(nil, func(p *corev1.Pod) { p.Spec.ShareProcessNamespace = ptr(false) }), "agents", enabled, ReasonInject, true, false},
		{"host PID refused", pod(nil, func(p *corev1.Pod) { p.Spec.HostPID = true }), "agents", enabled, ReasonHostPID, false, true},
		{"host IPC refused", pod(nil, func(p *corev1.Pod) { p.Spec.HostIPC = true }), "agents", enabled, ReasonHostIPC, false, true},
		{"a hostPath volume refused", pod(nil, hostPath), "agents", enabled, ReasonHostPath, false, true},
		{"host aliases refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"mcp.tools.svc.cluster.local"}}}
		}), "agents", enabled, ReasonHostAliases, false, true},
		{"dnsPolicy None refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.DNSPolicy = corev1.DNSNone
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.9.9.9"}}
		}), "agents", enabled, ReasonCustomDNS, false, true},
		{"custom nameservers refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.9.9.9"}}
		}), "agents", enabled, ReasonCustomDNS, false, true},
		{"custom searches refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Searches: []string{"attacker.example"}}
		}), "agents", enabled, ReasonCustomDNS, false, true},
		{"dnsConfig options pass", pod(nil, func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr("2")}}}
		}), "agents", enabled, ReasonInject, true, false},
		{"dnsPolicy Default passes", pod(nil, func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSDefault }), "agents", enabled, ReasonInject, true, false},
		{"host aliases opted out pass", pod(optOut, func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"x"}}}
		}), "agents", enabled, ReasonOptedOut, false, false},
		{"a privileged container refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{{Name: "agent", SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}}}
		}), "agents", enabled, ReasonPrivileged, false, true},
		{"NET_RAW added refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{{Name: "agent", SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_RAW"}}}}}
		}), "agents", enabled, ReasonCapability, false, true},
		{"CAP_SYS_ADMIN in an init container refused", pod(nil, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "setup", SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"cap_sys_admin"}}}}}
		}), "agents", enabled, ReasonCapability, false, true},
		{"a harmless capability passes", pod(nil, func(p *corev1.Pod) {
			p.Spec.Containers = []corev1.Container{{Name: "agent", SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}}}}}
		}), "agents", enabled, ReasonInject, true, false},
		{"host PID opted out passes", pod(optOut, func(p *corev1.Pod) { p.Spec.HostPID = true }), "agents", enabled, ReasonOptedOut, false, false},
		{"hostPath outside opted-in namespaces passes", pod(nil, hostPath), "default", nil, ReasonNamespaceNotEnabled, false, false},
		{"a forged gate is injected over", pod(nil, func(p *corev1.Pod) {
			p.Annotations = map[string]string{toolgatev1alpha1.AnnotationInjected: "{}"}
			p.Spec.Containers = []corev1.Container{{Name: ContainerName, Image: "attacker"}}
		}), "agents", enabled, ReasonInject, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.pod, tc.ns, tc.nsLabels, settings)
			if d.Reason != tc.want || d.Inject != tc.inject || d.Deny != tc.deny || d.Message == "" {
				t.Errorf("got %+v, want reason %s inject %v deny %v", d, tc.want, tc.inject, tc.deny)
			}
			// A refusal names the field the pod's author has to change.
			if field := refusedField[tc.want]; tc.deny && !strings.Contains(d.Message, field) {
				t.Errorf("the refusal %q does not name %s", d.Message, field)
			}
		})
	}
}

// refusedField is what each refusal's message must name.
var refusedField = map[Reason]string{
	ReasonHostNetwork:            "spec.hostNetwork",
	ReasonSharedProcessNamespace: "spec.shareProcessNamespace",
	ReasonHostPID:                "spec.hostPID",
	ReasonHostIPC:                "spec.hostIPC",
	ReasonHostPath:               "hostPath",
	ReasonPrivileged:             "securityContext.privileged",
	ReasonCapability:             "securityContext.capabilities.add",
	ReasonForeignGateToken:       gateproto.Audience,
	ReasonHostAliases:            "spec.hostAliases",
	ReasonCustomDNS:              "spec.dns",
}

func ptr[T any](v T) *T { return &v }

// TestCheckGate: a pod the injector wrote passes, and each change that
// would hand the gate's token or its configuration to something other
// than the injected gate is caught, whichever admission step was meant
// to stop it.
func TestCheckGate(t *testing.T) {
	injected, err := Mutate(readPod(t, filepath.Join("testdata", "basic.yaml")), testTemplate(), []string{"tools/github"})
	if err != nil {
		t.Fatal(err)
	}
	gate := func(p *corev1.Pod) *corev1.Container { return &p.Spec.InitContainers[0] }
	for _, tc := range []struct {
		name     string
		mod      func(*corev1.Pod)
		injected bool
		problem  string // in the error; "" for none
	}{
		{"as injected", func(*corev1.Pod) {}, true, ""},
		{"never injected", func(p *corev1.Pod) { *p = *readPod(t, filepath.Join("testdata", "basic.yaml")) }, false, ""},
		{"image swapped", func(p *corev1.Pod) { gate(p).Image = "evil.example/gate:1" }, true, "evil.example/gate:1"},
		{"image and record swapped together pass this check (the policy guards the record)", func(p *corev1.Pod) {
			gate(p).Image = "evil.example/gate:1"
			p.Annotations[toolgatev1alpha1.AnnotationInjected] = `{"image":"evil.example/gate:1","revision":"x"}`
		}, true, ""},
		{"record removed", func(p *corev1.Pod) { delete(p.Annotations, toolgatev1alpha1.AnnotationInjected) }, true, "annotation"},
		{"record unreadable", func(p *corev1.Pod) { p.Annotations[toolgatev1alpha1.AnnotationInjected] = "{" }, true, "image"},
		{"gate gone, record kept", func(p *corev1.Pod) { p.Spec.InitContainers = p.Spec.InitContainers[1:] }, true, "no init container"},
		{"gate moved among the containers", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, *gate(p))
			p.Spec.InitContainers = p.Spec.InitContainers[1:]
		}, true, "no init container"},
		{"gate mounts no token", func(p *corev1.Pod) { gate(p).VolumeMounts = nil }, true, "does not mount"},
		{"gate's mount writable", func(p *corev1.Pod) { gate(p).VolumeMounts[0].ReadOnly = false }, true, "does not mount"},
		{"gate's volume an emptyDir", func(p *corev1.Pod) {
			p.Spec.Volumes[len(p.Spec.Volumes)-1].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}, true, "does not project"},
		{"gate's volume gone", func(p *corev1.Pod) { p.Spec.Volumes = nil }, true, "no volume"},
		{"agent mounts the gate's volume", func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: VolumeName, MountPath: "/stolen"})
		}, true, "container agent"},
		{"another init container mounts it", func(p *corev1.Pod) {
			p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: "setup", VolumeMounts: []corev1.VolumeMount{{Name: VolumeName, MountPath: "/t"}}})
		}, true, "container setup"},
		{"an ephemeral container targets the gate", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{TargetContainerName: ContainerName,
				EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox"}}}
		}, true, "container debugger"},
		{"an ephemeral container mounts the gate's volume", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: "thief", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: VolumeName, MountPath: "/t"}}}}}
		}, true, "container thief"},
		{"an ephemeral container on the agent passes", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{TargetContainerName: "agent",
				EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox"}}}
		}, true, ""},
		{"an ephemeral container named like the gate", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: ContainerName, Image: "evil"}}}
		}, true, "no init container"},
		{"a forged gate with no record", func(p *corev1.Pod) {
			*p = *readPod(t, filepath.Join("testdata", "basic.yaml"))
			p.Spec.InitContainers = []corev1.Container{{Name: ContainerName, Image: "evil"}}
		}, true, "annotation"},
		{"a shared process namespace", func(p *corev1.Pod) { p.Spec.ShareProcessNamespace = ptr(true) }, true, "spec.shareProcessNamespace"},
		{"host PID", func(p *corev1.Pod) { p.Spec.HostPID = true }, true, "spec.hostPID"},
		{"host aliases", func(p *corev1.Pod) {
			p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"mcp.tools"}}}
		}, true, "spec.hostAliases"},
		{"a nameserver of the author's", func(p *corev1.Pod) {
			p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.9.9.9"}}
		}, true, "spec.dnsConfig.nameservers"},
		{"a hostPath volume", func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "node", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}})
		}, true, "hostPath"},
		{"a second gate-audience token", func(p *corev1.Pod) {
			exp := int64(600)
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "mine", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: gateproto.Audience, ExpirationSeconds: &exp, Path: "t"}}},
			}}})
		}, true, gateproto.Audience},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := injected.DeepCopy()
			tc.mod(p)
			got, err := CheckGate(p)
			if got != tc.injected {
				t.Errorf("injected %v, want %v", got, tc.injected)
			}
			switch {
			case tc.problem == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
				t.Errorf("error %v, want one about %q", err, tc.problem)
			}
		})
	}
}

// TestGateArgs: a template's tunable flags reach the gate, before the
// injector's own, and change the revision so that pods are re-injected.
func TestGateArgs(t *testing.T) {
	tmpl := testTemplate()
	tmpl.Args = []string{"--log-level=debug", "--max-sessions=64"}
	p, err := Mutate(&corev1.Pod{}, tmpl, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := p.Spec.InitContainers[0].Args
	if len(args) < 3 || args[0] != "--log-level=debug" || args[1] != "--max-sessions=64" || !strings.HasPrefix(args[len(args)-1], "--token-file=") {
		t.Errorf("gate args %q", args)
	}
	if tmpl.Revision() == testTemplate().Revision() {
		t.Error("other gate flags, the same revision")
	}
	// Metrics name tools, decisions and refusals: on loopback unless the
	// template opens them; the kubelet's probes have a port of their own.
	gate := p.Spec.InitContainers[0]
	if !slices.Contains(args, "--metrics-addr=127.0.0.1:15090") || !slices.Contains(args, "--health-addr=:15021") ||
		len(gate.Ports) != 1 || gate.Ports[0].ContainerPort != HealthPort || gate.StartupProbe.HTTPGet.Port.IntValue() != HealthPort {
		t.Errorf("by default: args %q, ports %+v", args, gate.Ports)
	}
	open := testTemplate()
	open.OpenMetrics = true
	po, err := Mutate(&corev1.Pod{}, open, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := po.Spec.InitContainers[0]; !slices.Contains(g.Args, "--metrics-addr=:15090") || len(g.Ports) != 2 || g.Ports[1].ContainerPort != MetricsPort {
		t.Errorf("metrics opened: args %q, ports %+v", g.Args, g.Ports)
	}
	if open.Revision() == testTemplate().Revision() {
		t.Error("metrics opened, the same revision")
	}
	if _, err := CheckGate(p); err != nil {
		t.Errorf("a gate with tunable flags does not pass CheckGate: %v", err)
	}
}

// TestCheckServed: the operator serves only a gate it would have injected
// itself. A pod whose author wrote a matching record for a gate of their
// own image — before the namespace was labelled, or where the webhook
// never runs — is refused, and so are opted-out pods and pods in the
// namespaces the injector skips.
func TestCheckServed(t *testing.T) {
	tmpl := testTemplate()
	s := Settings{OperatorNamespace: "toolgate-system", ExcludedNamespaces: []string{"legacy"}}
	enabled := map[string]string{toolgatev1alpha1.LabelInjection: toolgatev1alpha1.InjectionEnabled}
	injected := func(t *testing.T, ns string, tm Template) *corev1.Pod {
		t.Helper()
		p := readPod(t, filepath.Join("testdata", "basic.yaml"))
		p.Namespace = ns
		out, err := Mutate(p, tm, []string{"tools/github"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	forged := testTemplate()
	forged.Image = "evil.example/exfil:1"
	forgedURL := testTemplate()
	forgedURL.OperatorURL = "https://evil.example:9444"
	tuned := testTemplate()
	tuned.Args = []string{"--log-level=debug"}
	for _, tc := range []struct {
		name     string
		pod      func(t *testing.T) *corev1.Pod
		labels   map[string]string
		accepted []string
		problem  string // in the error; "" when served
	}{
		{"injected by this template", func(t *testing.T) *corev1.Pod { return injected(t, "agents", tmpl) }, enabled, nil, ""},
		{"tunable flags of another setting", func(t *testing.T) *corev1.Pod { return injected(t, "agents", tuned) }, enabled, nil, ""},
		{"a gate of the author's image, its record matching", func(t *testing.T) *corev1.Pod { return injected(t, "agents", forged) }, enabled, nil, "evil.example/exfil:1"},
		{"an earlier image the operator still accepts", func(t *testing.T) *corev1.Pod { return injected(t, "agents", forged) }, enabled, []string{"evil.example/exfil:1"}, ""},
		{"the operator URL rewritten", func(t *testing.T) *corev1.Pod { return injected(t, "agents", forgedURL) }, enabled, nil, toolgatev1alpha1.AnnotationOperatorURL},
		{"a flag the injector never adds", func(t *testing.T) *corev1.Pod {
			p := injected(t, "agents", tmpl)
			p.Spec.InitContainers[0].Args = append(p.Spec.InitContainers[0].Args, "--config-file=/open.json")
			return p
		}, enabled, nil, "--config-file"},
		{"the command replaced", func(t *testing.T) *corev1.Pod {
			p := injected(t, "agents", tmpl)
			p.Spec.InitContainers[0].Command = []string{"/bin/sh", "-c", "cat /var/run/secrets/toolgate/token"}
			return p
		}, enabled, nil, "command"},
		{"the security context loosened", func(t *testing.T) *corev1.Pod {
			p := injected(t, "agents", tmpl)
			p.Spec.InitContainers[0].SecurityContext.RunAsNonRoot = nil
			return p
		}, enabled, nil, "security context"},
		{"namespace not labelled", func(t *testing.T) *corev1.Pod { return injected(t, "agents", tmpl) }, nil, nil, "does not carry"},
		{"an excluded namespace", func(t *testing.T) *corev1.Pod { return injected(t, "legacy", tmpl) }, enabled, nil, "never injected"},
		{"the operator's namespace", func(t *testing.T) *corev1.Pod { return injected(t, "toolgate-system", tmpl) }, enabled, nil, "never injected"},
		{"a system namespace", func(t *testing.T) *corev1.Pod { return injected(t, "kube-system", tmpl) }, enabled, nil, "never injected"},
		{"opted out", func(t *testing.T) *corev1.Pod {
			p := injected(t, "agents", tmpl)
			p.Labels = map[string]string{toolgatev1alpha1.LabelInject: toolgatev1alpha1.InjectOptOut}
			return p
		}, enabled, nil, toolgatev1alpha1.LabelInject},
		{"never injected", func(t *testing.T) *corev1.Pod {
			p := readPod(t, filepath.Join("testdata", "basic.yaml"))
			p.Namespace = "agents"
			return p
		}, enabled, nil, "not injected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckServed(tc.pod(t), tc.labels, tmpl, s, tc.accepted)
			switch {
			case tc.problem == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
				t.Fatalf("error %v, want one naming %q", err, tc.problem)
			}
		})
	}
}

// TestAgentsDropNetRaw: every agent container loses NET_RAW, once, and a
// container that drops everything already is left as it is.
func TestAgentsDropNetRaw(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "setup"}},
		Containers: []corev1.Container{
			{Name: "agent"},
			{Name: "strict", SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}},
			{Name: "some", SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"MKNOD"}}}},
		},
	}}
	once, err := Mutate(p, testTemplate(), nil)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Mutate(once, testTemplate(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]corev1.Capability{"setup": {"NET_RAW"}, "agent": {"NET_RAW"}, "strict": {"ALL"}, "some": {"MKNOD", "NET_RAW"}}
	for _, cs := range [][]corev1.Container{twice.Spec.InitContainers, twice.Spec.Containers} {
		for _, c := range cs {
			if c.Name == ContainerName {
				continue
			}
			if got := c.SecurityContext.Capabilities.Drop; !slices.Equal(got, want[c.Name]) {
				t.Errorf("container %s drops %v, want %v", c.Name, got, want[c.Name])
			}
		}
	}
}
