package bypass

import (
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/pkg/clip"
)

// Recheck is how long a conclusive check stands before it is made again at
// the next probe, when nothing in the server's configuration changed.
const Recheck = time.Hour

// Remedy is what every message that finds a way around the gate ends with.
const Remedy = "Make the server demand credentials that only the gate holds (spec.auth, from a Secret the agents cannot read), " +
	"and keep agent pods off it with a NetworkPolicy (the chart's networkPolicy values); see docs/install.md."

// Input is one check of a server.
type Input struct {
	// Generation is the MCPServer's.
	Generation int64
	// Credentials counts the headers the MCPServer's Secrets give the gate
	// (spec.auth, resolved). Zero: there is nothing to withhold, and the
	// server is not probed.
	Credentials int
	// AgentNamespace, when set, is the server's namespace, where the
	// credentials' Secret lives, and where agents run behind the gate: its
	// users (the edit role may read Secrets) hold what the gate holds.
	AgentNamespace string
	// Result and Err are probe.Anonymous's outcome.
	Result *probe.AnonymousResult
	Err    error
}

// Decide is the MCPServer's GateBypassable condition after a check.
func Decide(in Input) metav1.Condition {
	c := metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable, ObservedGeneration: in.Generation}
	switch res := in.Result; {
	case in.Credentials == 0:
		c.Status, c.Reason = metav1.ConditionTrue, toolgatev1alpha1.ReasonNoCredentials
		c.Message = "spec.auth gives the gate no credentials, so nothing the gate holds keeps agents from calling the server directly: " +
			"an agent shares its gate's network, and any pod that reaches the server can call its tools around the gate. " + Remedy

	case in.AgentNamespace != "":
		c.Status, c.Reason = metav1.ConditionTrue, toolgatev1alpha1.ReasonCredentialsReadableByAgents
		c.Message = fmt.Sprintf("the credentials the gate holds come from a Secret in namespace %s, where agents run behind the gate "+
			"(labelled toolgate.dev/injection=enabled): whoever may read Secrets there — the edit role may — can call the server around the gate. "+
			"Keep the MCPServer and its Secrets in a namespace agents do not use, and admit the agents' namespaces through spec.consumers. %s", in.AgentNamespace, Remedy)

	case in.Err != nil || res == nil:
		c.Status, c.Reason = metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassCheckFailed
		why := "it returned nothing"
		if in.Err != nil {
			why = in.Err.Error()
		}
		c.Message = fmt.Sprintf("a probe without the gate's credentials could not tell whether the server lets agents in around the gate (%s); "+
			"it is made again at the next probe. Until it tells, assume it does. %s", why, Remedy)

	case res.Initialized:
		// Checked before a refusal: a server that answers initialize to
		// anyone and refuses tools/list may still run tools/call.
		c.Status, c.Reason = metav1.ConditionTrue, toolgatev1alpha1.ReasonReachableWithoutCredentials
		what := "answered MCP initialize"
		switch {
		case res.Listed:
			what = fmt.Sprintf("answered MCP initialize and listed %d tool(s)", res.Tools)
		case res.Refusal != nil:
			what = "answered MCP initialize (and then refused " + refusalText(res) + ", which says nothing of tools/call)"
		}
		c.Message = fmt.Sprintf("the server %s to a probe without the credentials the gate holds: "+
			"an agent shares its gate's network, and any pod that reaches the server can call its tools around the gate. %s", what, Remedy)

	case res.Refusal != nil && res.Refusal.HTTPStatus == 0:
		// An MCP error is not an authentication refusal by itself: a
		// version mismatch or a rate limit answers so too.
		c.Status, c.Reason = metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassCheckFailed
		c.Message = fmt.Sprintf("without the credentials the gate holds, the server answered %s, not HTTP 401 or 403, which does not tell "+
			"whether it demands them; it is checked again at the next probe. Until it tells, assume agents can call it around the gate. %s", refusalText(res), Remedy)

	case res.Refusal != nil:
		c.Status, c.Reason = metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired
		c.Message = fmt.Sprintf("without the credentials only the gate holds, the server refused %s: an agent cannot call it around the gate "+
			"unless it gets them, so keep the Secret out of the agents' reach.", refusalText(res))

	default:
		// Anonymous returns an error whenever it neither got in nor was
		// refused; an outcome that says neither tells nothing.
		c.Status, c.Reason = metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassCheckFailed
		c.Message = "a probe without the gate's credentials neither got in nor was refused; it is made again at the next probe. " + Remedy
	}
	c.Message = clip.String(c.Message, toolgatev1alpha1.MaxConditionMessageLength)
	return c
}

// NotChecked is the condition of a server whose configuration could not be
// resolved (a missing Secret, say): with credentials configured but not
// readable there is nothing to check with. A server without spec.auth needs
// no check: Decide with zero Credentials says it is bypassable.
func NotChecked(generation int64, why string) metav1.Condition {
	return metav1.Condition{
		Type: toolgatev1alpha1.ConditionGateBypassable, Status: metav1.ConditionUnknown,
		Reason: toolgatev1alpha1.ReasonBypassNotChecked, ObservedGeneration: generation,
		Message: clip.String("not checked, the server's configuration cannot be used: "+why, toolgatev1alpha1.MaxConditionMessageLength),
	}
}

// refusalText says what the server refused, and how.
func refusalText(res *probe.AnonymousResult) string {
	r := res.Refusal
	how := fmt.Sprintf("with JSON-RPC error %d", r.RPCCode)
	if r.HTTPStatus != 0 {
		how = fmt.Sprintf("with HTTP %d %s", r.HTTPStatus, http.StatusText(r.HTTPStatus))
	}
	s := r.Step + " " + how
	if res.Initialized {
		s += " (it answered initialize)"
	}
	return s
}

// Mark is what is remembered of a server's last check.
type Mark struct {
	// Digest identifies the configuration checked (serverstatus.ConfigDigest).
	Digest string
	// At is when the check was made.
	At time.Time
	// Concluded: the check told (True or False), rather than failed.
	Concluded bool
}

// Due says whether a server whose probe is due now is checked along with
// it: when never checked since the operator started (last nil), checked
// with another configuration, last inconclusive, or checked Recheck ago.
func Due(last *Mark, digest string, now time.Time) bool {
	return last == nil || last.Digest != digest || !last.Concluded || !now.Before(last.At.Add(Recheck))
}

// Concluded reports whether a condition Decide returned tells.
func Concluded(c metav1.Condition) bool { return c.Status != metav1.ConditionUnknown }
