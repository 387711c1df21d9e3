package inject

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
)

// Names and places of what Mutate adds. They match cmd/gate's defaults, so
// that a gate run by hand behaves as an injected one.
const (
	// ContainerName is the gate's init container.
	ContainerName = "toolgate-gate"
	// VolumeName is the projected volume holding the gate's token and the
	// operator's CA.
	VolumeName = "toolgate-gate"
	// MountPath is where the gate finds them.
	MountPath = "/var/run/secrets/toolgate"
	// TokenFile is the gate's token in MountPath.
	TokenFile = "token"
	// CAFile is the operator's CA in MountPath.
	CAFile = "ca.crt"
	// OperatorURLFile is the operator's gate endpoint in MountPath: the
	// gate presents its token there and nowhere else.
	OperatorURLFile = "operator-url"
	// ListenPort is the gate's MCP port on loopback.
	ListenPort = 15001
	// HealthPort serves /healthz and /readyz on the pod's address, for the
	// kubelet's probes; they say nothing of the tools the gate judges.
	HealthPort = 15021
	// MetricsPort serves /metrics, on loopback unless the template opens
	// it: tool names, decisions and refusals are the agents' business.
	MetricsPort = 15090
	// EnvPrefix begins every variable Mutate sets in the agent's
	// containers; Mutate owns every variable of that prefix there.
	EnvPrefix = "TOOLGATE_MCP_"
	// DefaultUID is the gate's user and group: distroless's nonroot.
	DefaultUID int64 = 65532
	// DefaultTokenExpirySeconds is the shortest lifetime the API server
	// accepts for a projected token; the kubelet renews it at 80%.
	DefaultTokenExpirySeconds int64 = 600
)

// Template is what the injector was configured with. Its digest is the
// revision recorded on every injected pod, so a pod tells which
// configuration injected it.
type Template struct {
	// Image is the gate's image.
	Image string `json:"image"`
	// ImagePullPolicy of the gate; IfNotPresent when empty.
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	// Resources of the gate container.
	Resources corev1.ResourceRequirements `json:"resources"`
	// OperatorURL is the operator's gate endpoint, https://host:port.
	OperatorURL string `json:"operatorURL"`
	// CAPEM is the PEM CA of the operator's serving certificate.
	CAPEM string `json:"caPEM"`
	// UID runs the gate; DefaultUID when zero.
	UID int64 `json:"uid,omitempty"`
	// TokenExpirySeconds of the gate's token; DefaultTokenExpirySeconds
	// when zero.
	TokenExpirySeconds int64 `json:"tokenExpirySeconds,omitempty"`
	// Args are more of the gate's flags, --name=value, each one of
	// TunableGateFlags: the gate's log level and bounds.
	Args []string `json:"args,omitempty"`
	// OpenMetrics serves the gate's /metrics on the pod's address, for a
	// scraper outside the pod; by default it is on loopback only.
	OpenMetrics bool `json:"openMetrics,omitempty"`
}

// TunableGateFlags are the gate flags a Template may add. The rest are
// the injector's: where the gate listens, whom it trusts and where its
// token is. A flag such as --config-file or --operator-url would let
// whoever sets the template detach every gate from the operator (the gate
// refuses an --operator-url other than the one beside its token anyway).
var TunableGateFlags = []string{
	"log-level", "gc-percent", "memory-limit-bytes", "max-request-bytes", "max-list-bytes", "max-event-bytes",
	"max-in-flight", "max-streams", "max-sessions", "upstream-timeout", "upstream-idle-timeout", "session-idle-timeout", "list-ttl",
}

// CheckGateArg says why arg is not one a Template may add.
func CheckGateArg(arg string) error {
	name, value, ok := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
	switch {
	case !strings.HasPrefix(arg, "--") || !ok || value == "":
		return fmt.Errorf("gate argument %q is not --name=value", arg)
	case !slices.Contains(TunableGateFlags, name):
		return fmt.Errorf("gate argument %q: --%s is not one of %s", arg, name, strings.Join(TunableGateFlags, ", "))
	}
	return nil
}

// Validate says whether t can inject a working gate.
func (t Template) Validate() error {
	var errs []error
	if t.Image == "" {
		errs = append(errs, errors.New("no gate image"))
	}
	if u, err := url.Parse(t.OperatorURL); err != nil || u.Scheme != "https" || u.Host == "" {
		errs = append(errs, fmt.Errorf("operator URL %q is not https://host:port", t.OperatorURL))
	}
	if !strings.Contains(t.CAPEM, "-----BEGIN CERTIFICATE-----") {
		errs = append(errs, errors.New("no PEM CA for the operator"))
	}
	if t.UID < 0 {
		errs = append(errs, errors.New("negative gate UID"))
	}
	for _, a := range t.Args {
		if err := CheckGateArg(a); err != nil {
			errs = append(errs, err)
		}
	}
	if t.TokenExpirySeconds != 0 && t.TokenExpirySeconds < DefaultTokenExpirySeconds {
		errs = append(errs, fmt.Errorf("token expiry %ds is under the API server's minimum of %ds", t.TokenExpirySeconds, DefaultTokenExpirySeconds))
	}
	return errors.Join(errs...)
}

// withDefaults fills in what the template leaves empty.
func (t Template) withDefaults() Template {
	if t.UID == 0 {
		t.UID = DefaultUID
	}
	if t.TokenExpirySeconds == 0 {
		t.TokenExpirySeconds = DefaultTokenExpirySeconds
	}
	if t.ImagePullPolicy == "" {
		t.ImagePullPolicy = corev1.PullIfNotPresent
	}
	return t
}

// Revision is a digest of the template, its defaults filled in: equal
// templates inject equal gates.
func (t Template) Revision() string {
	b, _ := json.Marshal(t.withDefaults()) // a struct of strings, numbers and quantities: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Record is the value of the injected annotation.
type Record struct {
	// Image is the gate's image.
	Image string `json:"image"`
	// Revision is the template's.
	Revision string `json:"revision"`
}

// Mutate returns a copy of pod with the gate added for the servers
// ("namespace/name") the pod's ToolPolicies reference. It is idempotent:
// everything it adds replaces what carries the same name, so Mutate of its
// own output is that output. A stale or forged gate is replaced.
func Mutate(pod *corev1.Pod, t Template, servers []string) (*corev1.Pod, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("injection template: %w", err)
	}
	t = t.withDefaults()
	env, err := EnvVars(servers)
	if err != nil {
		return nil, err
	}
	out := pod.DeepCopy()
	spec := &out.Spec

	spec.Containers = slices.DeleteFunc(spec.Containers, isGate)
	spec.InitContainers = slices.DeleteFunc(spec.InitContainers, isGate)
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			agent(&cs[i], env)
		}
	}
	spec.InitContainers = append([]corev1.Container{gateContainer(t)}, spec.InitContainers...)
	// The ServiceAccount admission plugin names "default" before
	// webhooks run; a control plane without it (envtest) would refuse a
	// projected token for a pod that names none.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = "default"
	}
	spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == VolumeName })
	spec.Volumes = append(spec.Volumes, volume(t))

	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	rec, _ := json.Marshal(Record{Image: t.Image, Revision: t.Revision()})
	out.Annotations[toolgatev1alpha1.AnnotationInjected] = string(rec)
	out.Annotations[toolgatev1alpha1.AnnotationOperatorCA] = t.CAPEM
	out.Annotations[toolgatev1alpha1.AnnotationOperatorURL] = t.OperatorURL
	return out, nil
}

func isGate(c corev1.Container) bool { return c.Name == ContainerName }

// agent gives one of the agent's containers the gate's endpoints, takes
// away any mount of the gate's volume (its token is the gate's alone), and
// drops NET_RAW, which container runtimes grant by default: the agent
// shares the gate's network namespace, and with raw sockets it could read
// the gate's requests to a plain-HTTP server, credentials included.
func agent(c *corev1.Container, env []corev1.EnvVar) {
	if c.SecurityContext == nil {
		c.SecurityContext = &corev1.SecurityContext{}
	}
	if c.SecurityContext.Capabilities == nil {
		c.SecurityContext.Capabilities = &corev1.Capabilities{}
	}
	if drop := c.SecurityContext.Capabilities.Drop; !slices.Contains(drop, "NET_RAW") && !slices.Contains(drop, "ALL") {
		c.SecurityContext.Capabilities.Drop = append(drop, "NET_RAW")
	}
	c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return strings.HasPrefix(e.Name, EnvPrefix) })
	c.Env = append(c.Env, env...)
	c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == VolumeName })
	if len(c.Env) == 0 {
		c.Env = nil
	}
	if len(c.VolumeMounts) == 0 {
		c.VolumeMounts = nil
	}
}

// gateContainer is the gate's container. Fields the API server would default are
// set to those defaults, so that a pod read back equals its mutation.
func gateContainer(t Template) corev1.Container {
	always := corev1.ContainerRestartPolicyAlways
	probe := func(path string, period, failures int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: path, Port: intstr.FromInt32(HealthPort), Scheme: corev1.URISchemeHTTP,
			}},
			PeriodSeconds: period, FailureThreshold: failures, TimeoutSeconds: 1, SuccessThreshold: 1,
		}
	}
	yes, no := true, false
	uid := t.UID
	metricsAddr := "127.0.0.1:" + strconv.Itoa(MetricsPort)
	ports := []corev1.ContainerPort{{Name: "gate-health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP}}
	if t.OpenMetrics {
		metricsAddr = ":" + strconv.Itoa(MetricsPort)
		ports = append(ports, corev1.ContainerPort{Name: "gate-metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP})
	}
	return corev1.Container{
		Name:            ContainerName,
		Image:           t.Image,
		ImagePullPolicy: t.ImagePullPolicy,
		// The tunable flags come first: the gate's flag package keeps the
		// last value of a flag given twice, so the injector's own win. The
		// operator's URL and CA are not among them: the gate reads them
		// beside its token, from the pod's annotations.
		Args: append(slices.Clone(t.Args),
			"--listen=127.0.0.1:"+strconv.Itoa(ListenPort),
			"--health-addr=:"+strconv.Itoa(HealthPort),
			"--metrics-addr="+metricsAddr,
			"--token-file="+MountPath+"/"+TokenFile,
		),
		Ports:         ports,
		RestartPolicy: &always,
		Resources:     t.Resources,
		// The startup probe holds every later container back until the
		// gate has applied a configuration (/readyz): an agent never
		// meets a gate that exposes nothing because it has not heard from
		// the operator yet. Two minutes, then the kubelet restarts it.
		StartupProbe:   probe("/readyz", 1, 120),
		ReadinessProbe: probe("/readyz", 5, 3),
		LivenessProbe:  probe("/healthz", 10, 3),
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             &yes,
			RunAsUser:                &uid,
			RunAsGroup:               &uid,
			ReadOnlyRootFilesystem:   &yes,
			AllowPrivilegeEscalation: &no,
			Privileged:               &no,
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts:             []corev1.VolumeMount{{Name: VolumeName, MountPath: MountPath, ReadOnly: true}},
		TerminationMessagePath:   corev1.TerminationMessagePathDefault,
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
	}
}

// volume holds the gate's token and the operator's CA. The token is bound
// to the pod and of the gate's audience only, so the API server refuses
// it and the operator knows the pod it comes from.
func volume(t Template) corev1.Volume {
	expiry := t.TokenExpirySeconds
	// 0644, not 0400: the kubelet makes the token file the gate's own
	// (and 0600) only when every container of the pod runs as one
	// runAsUser; otherwise it writes the file as root with this mode, and
	// 0400 or 0440 would lock out the gate, which runs as UID 65532.
	// Read access to the file is not what guards the token: the volume is
	// mounted into the gate's container alone, whose only process is the
	// gate, and Decide refuses the pods (shared process namespace, host
	// PID, hostPath) through which another container could reach it.
	mode := int32(0o644)
	return corev1.Volume{Name: VolumeName, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
				Audience: gateproto.Audience, ExpirationSeconds: &expiry, Path: TokenFile,
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path: CAFile,
				FieldRef: &corev1.ObjectFieldSelector{
					APIVersion: "v1", FieldPath: "metadata.annotations['" + toolgatev1alpha1.AnnotationOperatorCA + "']",
				},
			}, {
				Path: OperatorURLFile,
				FieldRef: &corev1.ObjectFieldSelector{
					APIVersion: "v1", FieldPath: "metadata.annotations['" + toolgatev1alpha1.AnnotationOperatorURL + "']",
				},
			}}}},
		},
	}}}
}
