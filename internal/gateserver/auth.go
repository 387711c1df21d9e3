package gateserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/inject"
)

// The extras the API server puts in the user info of a token bound to a
// pod. A token without them was not minted for a pod (a plain TokenRequest,
// a legacy Secret token) and does not say which pod's configuration it may
// have.
const (
	extraPodName = "authentication.kubernetes.io/pod-name"
	extraPodUID  = "authentication.kubernetes.io/pod-uid"
)

// saUserPrefix starts the user name of every service account.
const saUserPrefix = "system:serviceaccount:"

// maxTokenBytes bounds the bearer token read from a request; projected
// tokens are around a kilobyte.
const maxTokenBytes = 16 << 10

// identity is who a gate is, taken from its verified token and nothing
// else.
type identity struct {
	Namespace      string
	ServiceAccount string
	Pod            string
	PodUID         types.UID
	// Expiry is when the gate's token stops being the one it holds: the
	// earlier of the JWT's exp and the kubelet's rotation hint. Zero when
	// the token says neither.
	Expiry time.Time
}

// podKey names the pod a stream serves, UID included, so that a recreated
// pod of the same name is another pod.
func (id identity) podKey() string { return id.Namespace + "/" + id.Pod + "/" + string(id.PodUID) }

// refusal is a request the server turns away: the status, the short reason
// the gate is told, and the label it is counted under.
type refusal struct {
	status int
	reason string
	label  string
}

func (r *refusal) Error() string { return r.reason }

func refuse(status int, label, reason string) *refusal {
	return &refusal{status: status, reason: reason, label: label}
}

// Labels of the auth failures metric.
const (
	failMissingToken  = "missing_token"
	failReviewError   = "review_error"
	failUnauthn       = "unauthenticated"
	failAudience      = "audience"
	failNotSA         = "not_service_account"
	failNotPodBound   = "not_pod_bound"
	failPodNotFound   = "pod_not_found"
	failPodUID        = "pod_uid_mismatch"
	failPodSA         = "service_account_mismatch"
	failPodTerminates = "pod_terminating"
	failGateTampered  = "gate_tampered"
	failNotInjected   = "pod_not_injected"
	failPodLookup     = "pod_lookup_error"
	failTooManyStream = "too_many_streams"
	failShutdown      = "shutting_down"
	failBusy          = "busy_connecting"
)

// bearerToken returns the token of an Authorization: Bearer header.
func bearerToken(r *http.Request) (string, *refusal) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", refuse(http.StatusUnauthorized, failMissingToken, "a bearer token is required")
	}
	token = strings.TrimSpace(token)
	if token == "" || len(token) > maxTokenBytes {
		return "", refuse(http.StatusUnauthorized, failMissingToken, "a bearer token is required")
	}
	return token, nil
}

// authenticator verifies tokens with the API server and remembers the
// identities it verified for a short while, so that a gate reconnecting,
// or a fleet reconnecting after an operator restart, does not cost one
// TokenReview each.
type authenticator struct {
	client client.Client
	// ttl is how long a review of a token of unknown expiry is reused;
	// maxAge bounds how long one of a known expiry is.
	ttl, maxAge time.Duration
	max         int
	now         func() time.Time

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cachedIdentity
}

type cachedIdentity struct {
	id    identity
	until time.Time
}

func newAuthenticator(c client.Client, ttl, maxAge time.Duration, maxEntries int) *authenticator {
	return &authenticator{client: c, ttl: ttl, maxAge: maxAge, max: maxEntries, now: time.Now,
		cache: map[[sha256.Size]byte]cachedIdentity{}}
}

// authenticate returns the identity a token proves. Only a successful
// review is cached, keyed by the token's hash: the token itself is kept
// nowhere.
func (a *authenticator) authenticate(ctx context.Context, token string) (identity, *refusal) {
	key := sha256.Sum256([]byte(token))
	now := a.now()
	a.mu.Lock()
	if c, ok := a.cache[key]; ok && now.Before(c.until) {
		a.mu.Unlock()
		return c.id, nil
	}
	a.mu.Unlock()

	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{
		Token: token, Audiences: []string{gateproto.Audience},
	}}
	if err := a.client.Create(ctx, review); err != nil {
		return identity{}, refuse(http.StatusServiceUnavailable, failReviewError,
			fmt.Sprintf("the token could not be reviewed: %v", errSummary(err)))
	}
	id, ref := identityFromReview(&review.Status, token)
	if ref != nil {
		return identity{}, ref
	}

	until := reviewCachedUntil(now, id.Expiry, a.ttl, a.maxAge)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cache) >= a.max {
		for k, c := range a.cache {
			if !now.Before(c.until) {
				delete(a.cache, k)
			}
		}
	}
	// A cache still full of live entries is left alone: reviewing again
	// costs a request, growing without bound costs the operator.
	if len(a.cache) < a.max {
		a.cache[key] = cachedIdentity{id: id, until: until}
	}
	return id, nil
}

// reviewCachedUntil says until when a successful review is reused. A
// token whose expiry it read is reused until then, for at most maxAge: a
// pod deleted meanwhile is still refused, since every connection reads the
// pod, and maxAge keeps the stream lifetime's periodic check a real one. A
// token that says nothing of its expiry is reused for ttl.
func reviewCachedUntil(now, expiry time.Time, ttl, maxAge time.Duration) time.Time {
	if expiry.IsZero() {
		return now.Add(ttl)
	}
	return minTime(expiry, now.Add(max(ttl, maxAge)))
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// errSummary keeps an API error short enough to send a gate.
func errSummary(err error) string {
	if s := apierrors.ReasonForError(err); s != "" {
		return string(s)
	}
	return "request failed"
}

// identityFromReview checks a TokenReview's verdict and reads the gate's
// identity from it. token is read only for its expiry, after the API
// server verified its signature.
func identityFromReview(st *authenticationv1.TokenReviewStatus, token string) (identity, *refusal) {
	if !st.Authenticated {
		return identity{}, refuse(http.StatusUnauthorized, failUnauthn, "the token is not valid")
	}
	audienceOK := false
	for _, a := range st.Audiences {
		audienceOK = audienceOK || a == gateproto.Audience
	}
	if !audienceOK {
		return identity{}, refuse(http.StatusUnauthorized, failAudience, "the token is not meant for "+gateproto.Audience)
	}
	rest, ok := strings.CutPrefix(st.User.Username, saUserPrefix)
	ns, sa, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 || ns == "" || sa == "" || strings.Contains(sa, ":") {
		return identity{}, refuse(http.StatusForbidden, failNotSA, "the token is not a service account's")
	}
	pod, uid := single(st.User.Extra[extraPodName]), single(st.User.Extra[extraPodUID])
	if pod == "" || uid == "" {
		return identity{}, refuse(http.StatusForbidden, failNotPodBound, "the token is not bound to a pod")
	}
	return identity{Namespace: ns, ServiceAccount: sa, Pod: pod, PodUID: types.UID(uid), Expiry: tokenExpiry(token)}, nil
}

// single returns the one value of an extra, or "" when there is not
// exactly one.
func single(v authenticationv1.ExtraValue) string {
	if len(v) != 1 {
		return ""
	}
	return v[0]
}

// tokenExpiry reads when a verified JWT stops being the gate's current
// token: its exp, or earlier the kubelet's rotation hint (kubernetes.io
// warnafter), which is the token's requested lifetime when the API server
// extended exp for legacy clients. It returns zero when the payload says
// neither; the stream's own lifetime cap still applies.
func tokenExpiry(token string) time.Time {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}
	}
	var claims struct {
		Exp        json.Number `json:"exp"`
		Kubernetes struct {
			WarnAfter json.Number `json:"warnafter"`
		} `json:"kubernetes.io"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return time.Time{}
	}
	var out time.Time
	for _, n := range []json.Number{claims.Exp, claims.Kubernetes.WarnAfter} {
		s, err := n.Int64()
		if err != nil || s <= 0 {
			continue
		}
		if t := time.Unix(s, 0); out.IsZero() || t.Before(out) {
			out = t
		}
	}
	return out
}

// servedPod is a pod that passed its checks, and what they read of its
// namespace.
type servedPod struct {
	pod *corev1.Pod
	// nsLabels are the labels of the pod's namespace the checks passed
	// under; nsRead is false when the checks did not read them.
	nsLabels map[string]string
	nsRead   bool
}

// slim keeps of the pod what a stream needs between two reads of it: what
// a Builder reads (its name, labels and service account) and its UID. The
// checks, which read the rest, run again on a pod read afresh.
func (p servedPod) slim() servedPod {
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name, pod.UID, pod.Labels = p.pod.Namespace, p.pod.Name, p.pod.UID, p.pod.Labels
	pod.Spec.ServiceAccountName = p.pod.Spec.ServiceAccountName
	p.pod = pod
	return p
}

// checkPod reads the pod of a verified identity and checks it.
func (s *Server) checkPod(ctx context.Context, id identity) (servedPod, *refusal) {
	pod, ref := readPod(ctx, s.o.PodReader, id)
	if ref != nil {
		return servedPod{}, ref
	}
	labels, read, ref := checkGate(ctx, s.o.NamespaceReader, pod, id, s.o.ServeUninjectedPods, s.o.CheckServed)
	if ref != nil {
		return servedPod{}, ref
	}
	return servedPod{pod: pod, nsLabels: labels, nsRead: read}, nil
}

// readPod fetches the pod the token names and checks it is the one the
// token was bound to, still running under the token's service account and
// not terminating. checkGate then checks its gate: a pod whose gate image
// was swapped after creation, or whose token another container can now
// read, is refused even where the guard policy that forbids those changes
// is missing.
func readPod(ctx context.Context, pods client.Reader, id identity) (*corev1.Pod, *refusal) {
	pod := &corev1.Pod{}
	if err := pods.Get(ctx, client.ObjectKey{Namespace: id.Namespace, Name: id.Pod}, pod); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, refuse(http.StatusForbidden, failPodNotFound, "the token's pod does not exist")
		}
		return nil, refuse(http.StatusServiceUnavailable, failPodLookup,
			fmt.Sprintf("the token's pod could not be read: %v", errSummary(err)))
	}
	switch {
	case pod.UID != id.PodUID:
		return nil, refuse(http.StatusForbidden, failPodUID, "the token's pod has been replaced")
	case pod.Spec.ServiceAccountName != id.ServiceAccount:
		return nil, refuse(http.StatusForbidden, failPodSA, "the pod does not run as the token's service account")
	case pod.DeletionTimestamp != nil:
		return nil, refuse(http.StatusForbidden, failPodTerminates, "the token's pod is terminating")
	}
	// The stream keeps the pod until its next resync; what wrote which
	// field is nothing it checks, and a few kilobytes a gate.
	pod.ManagedFields = nil
	return pod, nil
}

// checkGate checks that a pod read by readPod, when it was injected, still
// runs the injected gate, and, unless uninjected pods are served, that it
// was injected in a namespace labelled for injection. It returns the
// namespace's labels when it read them: the pod and those labels decide
// its verdict, so that a stream that keeps the pod need only look at the
// labels again.
func checkGate(ctx context.Context, namespaces client.Reader, pod *corev1.Pod, id identity, serveUninjected bool, served func(*corev1.Pod, map[string]string) error) (map[string]string, bool, *refusal) {
	injected, err := inject.CheckGate(pod)
	if err != nil {
		return nil, false, refuse(http.StatusForbidden, failGateTampered, "the pod's gate is not the one injected: "+err.Error())
	}
	if serveUninjected {
		return nil, false, nil
	}
	// Only a gate the webhook injected, in a namespace the webhook and the
	// guard policy cover, is served. Anyone who may create a pod may give
	// it a projected token of the gate's audience; without these checks
	// such a pod, in a namespace that has a ToolPolicy but was never
	// enabled for injection, would receive the upstream credentials with
	// no gate between its agent and the servers.
	if !injected {
		return nil, false, refuse(http.StatusForbidden, failNotInjected, "the pod was not injected with the gate")
	}
	labels, ref := namespaceLabels(ctx, namespaces, id.Namespace)
	if ref != nil {
		return nil, false, ref
	}
	if labels[toolgatev1alpha1.LabelInjection] != toolgatev1alpha1.InjectionEnabled {
		return nil, false, refuse(http.StatusForbidden, failNotInjected,
			fmt.Sprintf("the pod's namespace is not labelled %s=%s", toolgatev1alpha1.LabelInjection, toolgatev1alpha1.InjectionEnabled))
	}
	// The pod's own record is its author's word; the operator's template
	// is not.
	if served != nil {
		if err := served(pod, labels); err != nil {
			return nil, false, refuse(http.StatusForbidden, failNotInjected, "the pod's gate is not one this operator injects: "+err.Error())
		}
	}
	return labels, true, nil
}

// namespaceLabels reads the labels of a gate's namespace.
func namespaceLabels(ctx context.Context, namespaces client.Reader, name string) (map[string]string, *refusal) {
	var ns corev1.Namespace
	if err := namespaces.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, refuse(http.StatusForbidden, failNotInjected, "the pod's namespace does not exist")
		}
		return nil, refuse(http.StatusServiceUnavailable, failPodLookup,
			fmt.Sprintf("the pod's namespace could not be read: %v", errSummary(err)))
	}
	return ns.Labels, nil
}
