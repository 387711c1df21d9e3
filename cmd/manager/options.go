package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateserver"
	"github.com/toolgate/toolgate/internal/inject"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/internal/probe"
)

// options are the manager's flags, checked and completed.
type options struct {
	metricsAddr       string
	metricsSecure     bool
	probeAddr         string
	pprofAddr         string
	leaderElection    bool
	leaderElectionNS  string
	enableHTTP2       bool
	requiredApprovers int
	webhookPort       int
	webhookCertDir    string
	operatorUser      string
	approverSAsFlag   string
	adminUsersFlag    string
	adminGroupsFlag   string
	probeConcurrency  int
	apiQPS            float64
	apiBurst          int
	maxProbeTimeout   time.Duration
	removedRetention  time.Duration
	maxRemovedPins    int

	// The probe's memory and the addresses it may reach.
	probeMemoryBudget    quantity
	probeMemoryPerServer quantity
	probeAllowLinkLocal  bool
	defaultMaxLevel      string
	maxLevelCap          string
	ceilings             policy.Ceilings

	// The gates' configuration server.
	gatePort          int
	gateBindAddress   string
	gateMaxStreams    int
	gateMaxConnecting int
	gateHeartbeat     time.Duration
	gateResync        time.Duration
	gateMaxStreamLife time.Duration

	// The gate injector. Injection is off while
	// gateImage is empty.
	gateImage           string
	gateImagePullPolicy string
	gateCPURequest      string
	gateMemoryRequest   string
	gateCPULimit        string
	gateMemoryLimit     string
	operatorService     string
	operatorNamespace   string
	gateArgsFlag        string
	gateArgs            []string
	gateAcceptedFlag    string
	gateAcceptedImages  []string
	gateServeUninjected bool
	gateOpenMetrics     bool
	gateOperatorURL     string
	operatorCAFile      string
	injectExcludedFlag  string

	// The webhook certificate rotated by the operator itself (certs.go).
	certRotation       bool
	certSecret         string
	certMutatingFlag   string
	certValidatingFlag string

	// approverSAs, adminUsers and adminGroups are their flags, parsed by
	// complete.
	approverSAs, adminUsers, adminGroups []string
	// gateResources and injectExcluded are the injector's flags, parsed
	// by complete.
	gateResources  corev1.ResourceRequirements
	injectExcluded []string
	// certMutating and certValidating are the certificate's flags, parsed
	// by completeCertRotation.
	certMutating, certValidating []string
}

// bindFlags declares the manager's flags on fs.
func bindFlags(fs *flag.FlagSet) *options {
	o := &options{}
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8443",
		"address of the metrics endpoint; \"0\" disables it")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true,
		"serve metrics over HTTPS, to callers the API server authenticates and authorizes (get on /metrics)")
	fs.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "0",
		"address of Go's /debug/pprof profiles of the operator, unauthenticated, for diagnosis; bind it to 127.0.0.1 and reach it with kubectl port-forward; \"0\" (the default) serves none")
	fs.BoolVar(&o.leaderElection, "leader-elect", false,
		"elect a leader among replicas so that only one reconciles")
	fs.StringVar(&o.leaderElectionNS, "leader-election-namespace", "",
		"namespace of the leader election Lease; the operator's own namespace when empty (in cluster)")
	fs.BoolVar(&o.enableHTTP2, "enable-http2", false,
		"serve metrics over HTTP/2 as well; off by default because of the HTTP/2 rapid reset and stream cancellation CVEs")
	fs.IntVar(&o.requiredApprovers, "required-approvers", 2,
		"distinct humans who must approve a tool whose approvalRecommendation is multi (at least 2)")
	fs.IntVar(&o.webhookPort, "webhook-port", 9443, "port of the admission webhook server")
	fs.StringVar(&o.webhookCertDir, "webhook-cert-dir", "",
		"directory holding tls.crt and tls.key for the webhook server; the default is controller-runtime's")
	fs.StringVar(&o.operatorUser, "operator-user", "",
		"the operator's own user name, the only identity that writes ToolPin status beyond appending decisions; "+
			"default system:serviceaccount:$POD_NAMESPACE:$SERVICE_ACCOUNT_NAME")
	fs.StringVar(&o.approverSAsFlag, "approver-service-accounts", "",
		"comma-separated service accounts (system:serviceaccount:NS:NAME) allowed to decide on tools; none by default")
	fs.StringVar(&o.adminUsersFlag, "admin-users", "",
		"comma-separated users who may delete a ToolPin that records a definition or decisions, forgetting its review, and exec into, attach to "+
			"or port-forward to an injected gate; none by default")
	fs.StringVar(&o.adminGroupsFlag, "admin-groups", "",
		"comma-separated groups whose members may delete a ToolPin that records a definition or decisions and reach an injected gate, as --admin-users; none by default")
	fs.IntVar(&o.probeConcurrency, "probe-concurrency", 32,
		"MCP servers probed at once; probes run apart from the reconcile workers, and servers whose last probe timed out share a quarter of these")
	fs.DurationVar(&o.maxProbeTimeout, "max-probe-timeout", time.Minute,
		"cap on every MCPServer's spec.probe.timeout, so slow servers cannot hold every probe worker")
	fs.DurationVar(&o.removedRetention, "removed-pin-retention", 24*time.Hour,
		"how long the pin of a tool gone from its server is kept when it was trusted and nobody decided on it; pins with decisions are always kept")
	fs.IntVar(&o.maxRemovedPins, "max-removed-pins", 100,
		"the most pins of removed tools without decisions one server keeps, so that renaming tools cannot grow pins without bound; 0 for no cap")
	fs.Float64Var(&o.apiQPS, "kube-api-qps", 50, "requests per second the operator may send the API server")
	fs.IntVar(&o.apiBurst, "kube-api-burst", 100, "burst of requests above --kube-api-qps")

	o.probeMemoryBudget = quantity(probe.DefaultGlobalBudget)
	fs.Var(&o.probeMemoryBudget, "probe-memory-budget",
		"memory all probes running at once may hold together (decoded catalogues and buffered responses), as a quantity such as 64Mi; "+
			"a probe that would exceed it fails with TooLarge and is tried again at its next interval; 0 is unlimited")
	o.probeMemoryPerServer = quantity(probe.DefaultMaxDecodedBytes)
	fs.Var(&o.probeMemoryPerServer, "probe-memory-per-server",
		"memory one probe's catalogue may take decoded, as a quantity such as 32Mi; a larger catalogue fails with TooLarge")
	fs.BoolVar(&o.probeAllowLinkLocal, "probe-allow-link-local", false,
		"let probes connect to link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10, 100.100.100.200, fd00:ec2::254), "+
			"refused by default because whoever creates an MCPServer chooses its URL and headers")

	fs.StringVar(&o.defaultMaxLevel, "default-max-level", string(toolgatev1alpha1.DefaultMaxLevel),
		"the ceiling (L0–L5) of a ToolPolicy that sets no spec.maxLevel")
	fs.StringVar(&o.maxLevelCap, "max-level-cap", string(toolgatev1alpha1.LevelCritical),
		"the highest ceiling (L0–L5) any ToolPolicy may have: a higher spec.maxLevel is lowered to it, and status.ceiling says so")

	fs.IntVar(&o.gatePort, "gate-port", gateserver.DefaultPort,
		"port on which gates stream their configuration, over TLS with the webhook server's certificate and HTTP/2; 0 disables it")
	fs.StringVar(&o.gateBindAddress, "gate-bind-address", "",
		"address the gate server listens on; every interface when empty")
	fs.IntVar(&o.gateMaxStreams, "gate-max-streams", gateserver.DefaultMaxStreams,
		"gates one replica serves at once; more are refused and retry, through the Service, on another replica")
	fs.IntVar(&o.gateMaxConnecting, "gate-max-connecting", gateserver.DefaultMaxConnecting,
		"gates one replica authenticates and sends a first configuration at once; more are told to retry within seconds, "+
			"so that a fleet reconnecting together is not queued behind --kube-api-qps")
	fs.DurationVar(&o.gateHeartbeat, "gate-heartbeat-interval", gateserver.DefaultHeartbeatInterval,
		"how often an idle configuration stream gets a heartbeat; keep it well under the gates' heartbeat timeout (45s by default)")
	fs.DurationVar(&o.gateResync, "gate-resync", gateserver.DefaultResync,
		"how often each gate's configuration is rebuilt with nothing changed, so that a relabelled pod gets its policies (give or take a fifth)")
	fs.DurationVar(&o.gateMaxStreamLife, "gate-max-stream-lifetime", gateserver.DefaultMaxStreamLifetime,
		"longest a configuration stream lasts before the gate reconnects and is authenticated again, however long its token lives")

	fs.StringVar(&o.gateAcceptedFlag, "gate-accepted-images", "",
		"comma-separated gate images, besides --gate-image, whose pods the gate server still serves: the images of an earlier release, "+
			"while its agent pods are restarted onto the new one")
	fs.BoolVar(&o.gateOpenMetrics, "gate-open-metrics", false,
		"serve the injected gates' /metrics on the pod's address for a scraper outside the pod; by default they stay on the pod's loopback, "+
			"since they name the tools, decisions and refusals of the agents")
	fs.BoolVar(&o.gateServeUninjected, "gate-serve-uninjected-pods", false,
		"serve gates of pods the injection webhook never injected, in namespaces not labelled toolgate.dev/injection=enabled "+
			"(gates run by hand, for development); off, any pod may otherwise project a token of the gate's audience and receive upstream credentials")
	fs.StringVar(&o.gateImage, "gate-image", "",
		"image of the gate the injection webhook adds to pods of opted-in namespaces; empty serves no injection webhook, "+
			"and with its webhook configuration installed pods there are then refused (failurePolicy Fail)")
	fs.StringVar(&o.gateImagePullPolicy, "gate-image-pull-policy", string(corev1.PullIfNotPresent), "pull policy of the injected gate: Always, IfNotPresent or Never")
	fs.StringVar(&o.gateCPURequest, "gate-cpu-request", "10m", "CPU request of the injected gate; empty for none")
	fs.StringVar(&o.gateMemoryRequest, "gate-memory-request", "32Mi", "memory request of the injected gate; empty for none")
	fs.StringVar(&o.gateCPULimit, "gate-cpu-limit", "", "CPU limit of the injected gate; none by default, as throttling a proxy adds latency to every call")
	fs.StringVar(&o.gateMemoryLimit, "gate-memory-limit", "128Mi", "memory limit of the injected gate; empty for none")
	fs.StringVar(&o.gateArgsFlag, "gate-args", "",
		"comma-separated flags added to every injected gate, --name=value, among --"+strings.Join(inject.TunableGateFlags, ", --"))
	fs.StringVar(&o.operatorService, "operator-service", "toolgate-operator",
		"name of the operator's Service in its namespace, which injected gates reach the gate server through")
	fs.StringVar(&o.operatorNamespace, "operator-namespace", "",
		"the operator's namespace, never injected; $POD_NAMESPACE when empty")
	fs.StringVar(&o.gateOperatorURL, "gate-operator-url", "",
		"URL injected gates reach the operator at; https://<--operator-service>.<--operator-namespace>.svc:<--gate-port> when empty")
	fs.StringVar(&o.operatorCAFile, "operator-ca-file", "",
		"PEM CA of the webhook server's certificate, which the gate server serves too; injected into every gate (required with --gate-image)")
	fs.StringVar(&o.injectExcludedFlag, "inject-excluded-namespaces", "",
		"comma-separated namespaces never injected besides kube-system, kube-public, kube-node-lease and the operator's own")

	fs.BoolVar(&o.certRotation, "cert-rotation", false,
		"issue and renew the webhook server's certificate in-process: a CA and a serving certificate for "+
			"<--operator-service>.<--operator-namespace>.svc in --cert-secret, mounted at --webhook-cert-dir, "+
			"the CA injected into the named webhook configurations; off when something else (cert-manager) issues it")
	fs.StringVar(&o.certSecret, "cert-secret", "toolgate-webhook-cert",
		"Secret in the operator's namespace that --cert-rotation keeps the certificate in; it must exist")
	fs.StringVar(&o.certMutatingFlag, "cert-mutating-webhooks", "",
		"comma-separated MutatingWebhookConfigurations whose caBundle --cert-rotation keeps")
	fs.StringVar(&o.certValidatingFlag, "cert-validating-webhooks", "",
		"comma-separated ValidatingWebhookConfigurations whose caBundle --cert-rotation keeps")
	return o
}

// quantity is a flag holding a number of bytes, written as a Kubernetes
// quantity (96Mi, 1Gi, 100M or plain bytes), as a chart's memory settings
// are.
type quantity int64

func (q *quantity) String() string {
	return resource.NewQuantity(int64(*q), resource.BinarySI).String()
}

func (q *quantity) Set(s string) error {
	v, err := resource.ParseQuantity(s)
	if err != nil {
		return fmt.Errorf("want a quantity of bytes such as 64Mi: %w", err)
	}
	if v.Sign() < 0 {
		return fmt.Errorf("%s is negative", s)
	}
	*q = quantity(v.Value())
	return nil
}

// complete checks the flags and fills in what the environment gives: the
// operator's own identity in a pod. getenv is os.Getenv outside tests.
func (o *options) complete(getenv func(string) string) error {
	if o.operatorUser == "" {
		ns, sa := getenv("POD_NAMESPACE"), getenv("SERVICE_ACCOUNT_NAME")
		if ns == "" || sa == "" {
			return fmt.Errorf("--operator-user is required outside a pod (or set POD_NAMESPACE and SERVICE_ACCOUNT_NAME)")
		}
		o.operatorUser = "system:serviceaccount:" + ns + ":" + sa
	}
	o.approverSAs = nil
	for _, a := range strings.Split(o.approverSAsFlag, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if parts := strings.Split(a, ":"); len(parts) != 4 || parts[0] != "system" || parts[1] != "serviceaccount" || parts[2] == "" || parts[3] == "" {
			return fmt.Errorf("--approver-service-accounts: %q is not system:serviceaccount:NAMESPACE:NAME", a)
		}
		o.approverSAs = append(o.approverSAs, a)
	}
	o.adminUsers, o.adminGroups = splitList(o.adminUsersFlag), splitList(o.adminGroupsFlag)
	for _, u := range o.adminUsers {
		if u == o.operatorUser {
			return fmt.Errorf("--admin-users: %q is the operator, which needs no other right", u)
		}
	}
	if o.requiredApprovers < 2 {
		return fmt.Errorf("--required-approvers is %d: multi means at least two distinct people", o.requiredApprovers)
	}
	if o.probeConcurrency < 1 {
		return fmt.Errorf("--probe-concurrency is %d: at least one server must be probed at a time", o.probeConcurrency)
	}
	if o.removedRetention < 0 || o.maxRemovedPins < 0 {
		return fmt.Errorf("--removed-pin-retention and --max-removed-pins cannot be negative")
	}
	if o.maxProbeTimeout < 0 {
		return fmt.Errorf("--max-probe-timeout is %s: want zero (no cap) or a positive duration", o.maxProbeTimeout)
	}
	if o.probeMemoryPerServer <= 0 {
		return fmt.Errorf("--probe-memory-per-server is %s: a probe needs some memory", &o.probeMemoryPerServer)
	}
	if o.probeMemoryBudget > 0 && o.probeMemoryBudget < o.probeMemoryPerServer {
		return fmt.Errorf("--probe-memory-budget (%s) is less than --probe-memory-per-server (%s): the largest catalogue allowed could never be probed",
			&o.probeMemoryBudget, &o.probeMemoryPerServer)
	}
	for _, l := range []struct {
		flag, value string
		into        *toolgatev1alpha1.Level
	}{{"--default-max-level", o.defaultMaxLevel, &o.ceilings.Default}, {"--max-level-cap", o.maxLevelCap, &o.ceilings.Cap}} {
		if !toolgatev1alpha1.Level(l.value).Valid() {
			return fmt.Errorf("%s is %q: want a level L0 to L5", l.flag, l.value)
		}
		*l.into = toolgatev1alpha1.Level(l.value)
	}
	if o.gatePort < 0 || o.gatePort > 65535 {
		return fmt.Errorf("--gate-port is %d: want a port, or 0 to serve no gates", o.gatePort)
	}
	if o.gateMaxStreams < 1 || o.gateHeartbeat <= 0 || o.gateMaxStreamLife <= 0 || o.gateResync <= 0 {
		return fmt.Errorf("--gate-max-streams, --gate-heartbeat-interval, --gate-max-stream-lifetime and --gate-resync must be positive")
	}
	if o.gateMaxStreamLife < 2*o.gateHeartbeat {
		return fmt.Errorf("--gate-max-stream-lifetime (%s) is less than two --gate-heartbeat-interval (%s)", o.gateMaxStreamLife, o.gateHeartbeat)
	}
	if err := o.completeCertRotation(getenv); err != nil {
		return err
	}
	return o.completeInjection(getenv)
}

// completeInjection checks the injector's flags when injection is on.
// Who may opt a pod out is not a flag: the API server enforces it, from
// the ConfigMap the opt-out guard policy reads (config/policy), and a
// second copy here could only drift from it.
func (o *options) completeInjection(getenv func(string) string) error {
	o.injectExcluded = splitList(o.injectExcludedFlag)
	if o.gateImage == "" {
		return nil
	}
	if o.operatorNamespace == "" {
		o.operatorNamespace = getenv("POD_NAMESPACE")
	}
	if o.operatorNamespace == "" {
		return errors.New("--operator-namespace is required with --gate-image outside a pod (or set POD_NAMESPACE)")
	}
	if o.operatorCAFile == "" {
		return errors.New("--operator-ca-file is required with --gate-image: a gate that cannot verify the operator never gets a configuration")
	}
	if o.gateOperatorURL == "" {
		if o.gatePort == 0 {
			return errors.New("--gate-image needs the gate server (--gate-port) or --gate-operator-url")
		}
		o.gateOperatorURL = fmt.Sprintf("https://%s.%s.svc:%d", o.operatorService, o.operatorNamespace, o.gatePort)
	}
	o.gateArgs = splitList(o.gateArgsFlag)
	o.gateAcceptedImages = splitList(o.gateAcceptedFlag)
	for _, a := range o.gateArgs {
		if err := inject.CheckGateArg(a); err != nil {
			return fmt.Errorf("--gate-args: %w", err)
		}
	}
	switch corev1.PullPolicy(o.gateImagePullPolicy) {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return fmt.Errorf("--gate-image-pull-policy %q is not Always, IfNotPresent or Never", o.gateImagePullPolicy)
	}
	o.gateResources = corev1.ResourceRequirements{}
	for _, q := range []struct {
		flag, value string
		list        *corev1.ResourceList
		name        corev1.ResourceName
	}{
		{"--gate-cpu-request", o.gateCPURequest, &o.gateResources.Requests, corev1.ResourceCPU},
		{"--gate-memory-request", o.gateMemoryRequest, &o.gateResources.Requests, corev1.ResourceMemory},
		{"--gate-cpu-limit", o.gateCPULimit, &o.gateResources.Limits, corev1.ResourceCPU},
		{"--gate-memory-limit", o.gateMemoryLimit, &o.gateResources.Limits, corev1.ResourceMemory},
	} {
		if q.value == "" {
			continue
		}
		v, err := resource.ParseQuantity(q.value)
		if err != nil || v.Sign() <= 0 {
			return fmt.Errorf("%s %q is not a positive quantity", q.flag, q.value)
		}
		if *q.list == nil {
			*q.list = corev1.ResourceList{}
		}
		(*q.list)[q.name] = v
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := o.gateResources.Requests[r]
		lim, hasLim := o.gateResources.Limits[r]
		if hasReq && hasLim && req.Cmp(lim) > 0 {
			return fmt.Errorf("the gate's %s request %s is above its limit %s", r, req.String(), lim.String())
		}
	}
	return nil
}

// splitList splits a comma-separated flag, dropping spaces and empty
// entries.
func splitList(list string) []string {
	var out []string
	for _, a := range strings.Split(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
