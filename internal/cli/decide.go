package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli/offline"
	"github.com/toolgate/toolgate/internal/lifecycle"
)

// DecisionRequest is what a reviewer asks `toolgate approve|reject` to
// record.
type DecisionRequest struct {
	Action toolgatev1alpha1.DecisionAction
	// CallID, when set, decides on one pending call instead of the
	// definition.
	CallID  string
	Comment string
	// Fingerprint, when set, is the fingerprint the reviewer looked at
	// (from `toolgate describe`): the decision is refused unless it is
	// still the one to decide on.
	Fingerprint toolgatev1alpha1.Fingerprint
	// AcceptPartialArguments lets an approval through for a call whose
	// preview does not show every argument in full.
	AcceptPartialArguments bool
	// ResultOnly refuses a decision unless CallID names a held result
	// (`toolgate release` and `drop`), so that releasing a result never
	// approves a call by mistake.
	ResultOnly bool
	// Revoke refuses a rejection unless the pin is Trusted (`kubectl
	// toolgate revoke`): it withdraws the trust in the pinned definition,
	// and a definition under review is rejected, not revoked.
	Revoke bool
}

// ErrUnchanged reports a decision that would change nothing: the
// definition is trusted already, rejected already, the reviewer decided so
// already, or another reviewer's rejection stands. It is not sent.
var ErrUnchanged = errors.New("nothing changed")

// ErrChangedSinceRead reports that the API server refused the patch's test
// operations: the pin was redefined, decided or its call resolved between
// reading it and patching it. The patch is never retried on a fresh read:
// that would decide on a definition nobody looked at.
var ErrChangedSinceRead = errors.New("the pin changed after it was read (the patch's test operations failed): review it again")

// jsonPatchOp is one RFC 6902 operation.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// BuildDecisionPatch returns the JSON patch that appends req's decision to
// pin's status, exactly as a reviewer would write it by hand, preceded by
// test operations that make the API server refuse it if what was read has
// changed: the observed fingerprint and state for a decision on the
// definition, the call's id, fingerprint and argument digest for a
// decision on a call. It returns the fingerprint decided on, and refuses
// when there is nothing to decide; errors name the pin and the field.
func BuildDecisionPatch(pin *toolgatev1alpha1.ToolPin, req DecisionRequest) ([]byte, toolgatev1alpha1.Fingerprint, error) {
	name := "toolpin " + pin.Namespace + "/" + pin.Name
	st := &pin.Status
	if st.Decisions == nil {
		return nil, "", fmt.Errorf("%s: status.decisions is absent: the operator has not recorded this pin yet", name)
	}
	decision := map[string]string{"action": string(req.Action)}
	var ops []jsonPatchOp
	var fp toolgatev1alpha1.Fingerprint
	if req.CallID != "" {
		idx := -1
		var ids []string
		for i, c := range st.PendingCalls {
			ids = append(ids, c.ID)
			if c.ID == req.CallID {
				idx = i
			}
		}
		if idx < 0 {
			pending := "none"
			if len(ids) > 0 {
				pending = strings.Join(ids, ", ")
			}
			return nil, "", fmt.Errorf("%s: no call %q in status.pendingCalls (pending: %s): it was decided, withdrawn or timed out", name, req.CallID, pending)
		}
		call := st.PendingCalls[idx]
		fp = call.Fingerprint
		isResult := call.Kind == toolgatev1alpha1.CallKindResult
		if req.Fingerprint != "" && req.Fingerprint != fp {
			return nil, "", fmt.Errorf("%s: call %s was made against %s (status.pendingCalls[%d].fingerprint), not the %s given", name, call.ID, fp, idx, req.Fingerprint)
		}
		if req.ResultOnly && !isResult {
			return nil, "", fmt.Errorf("%s: status.pendingCalls[%d] (%s) is a held call, not a held result: approve or reject it", name, idx, call.ID)
		}
		// A held result's call was made already: releasing it lets an
		// answer through, not arguments, so the preview's completeness
		// does not bear on it.
		if req.Action == toolgatev1alpha1.DecisionApprove && !isResult && !call.ArgumentsComplete && !req.AcceptPartialArguments {
			return nil, "", fmt.Errorf("%s: the preview of call %s does not show every argument in full (status.pendingCalls[%d].argumentsComplete is not true: "+
				"something was redacted or cut), yet the approval covers them all (argumentsDigest %s); read it with `toolgate describe`, "+
				"and add --accept-partial-arguments to approve it all the same", name, call.ID, idx, call.ArgumentsDigest)
		}
		base := fmt.Sprintf("/status/pendingCalls/%d", idx)
		ops = append(ops,
			jsonPatchOp{Op: "test", Path: base + "/id", Value: call.ID},
			jsonPatchOp{Op: "test", Path: base + "/fingerprint", Value: call.Fingerprint},
			jsonPatchOp{Op: "test", Path: base + "/argumentsDigest", Value: call.ArgumentsDigest})
		if isResult {
			// The release is of the result read: the same kind and digest.
			ops = append(ops,
				jsonPatchOp{Op: "test", Path: base + "/kind", Value: call.Kind},
				jsonPatchOp{Op: "test", Path: base + "/resultDigest", Value: call.ResultDigest})
		}
		decision["callID"] = call.ID
	} else {
		fp = st.ObservedFingerprint
		switch {
		case fp == "":
			return nil, "", fmt.Errorf("%s: status.observedFingerprint is empty: the tool has not been observed yet, there is nothing to decide on", name)
		case st.State == toolgatev1alpha1.PinTrusted && req.Action == toolgatev1alpha1.DecisionApprove:
			msg := fmt.Sprintf("%s: status.state is Trusted (%s is pinned): approving it changes nothing", name, fp.Short())
			if n := len(st.PendingCalls); n > 0 {
				msg += fmt.Sprintf("; it holds %d pending call(s): name one with --call (see `kubectl toolgate pending`)", n)
			}
			return nil, "", fmt.Errorf("%w: %s", ErrUnchanged, msg)
		case req.Revoke && st.State == toolgatev1alpha1.PinRejected:
			return nil, "", fmt.Errorf("%w: %s: status.state is Rejected: %s is not trusted, there is nothing to revoke", ErrUnchanged, name, fp.Short())
		case req.Revoke && st.State != toolgatev1alpha1.PinTrusted:
			return nil, "", fmt.Errorf("%s: status.state is %s, not Trusted: nothing is trusted to revoke; reject the definition under review with `kubectl toolgate reject`", name, orDash(string(st.State)))
		case st.State == toolgatev1alpha1.PinRemoved:
			return nil, "", fmt.Errorf("%s: status.state is Removed: the server no longer offers the tool", name)
		case st.State == "":
			return nil, "", fmt.Errorf("%s: status.state is empty: the operator has not judged the tool yet", name)
		}
		if req.Fingerprint != "" && req.Fingerprint != fp {
			return nil, "", fmt.Errorf("%s: status.observedFingerprint is %s, not the %s you reviewed: the server redefined the tool; review it again with `toolgate describe %s`", name, fp, req.Fingerprint, pin.Name)
		}
		ops = append(ops,
			jsonPatchOp{Op: "test", Path: "/status/observedFingerprint", Value: fp},
			jsonPatchOp{Op: "test", Path: "/status/state", Value: st.State})
	}
	decision["fingerprint"] = string(fp)
	if req.Comment != "" {
		decision["comment"] = req.Comment
	}
	ops = append(ops, jsonPatchOp{Op: "add", Path: "/status/decisions/-", Value: decision})
	data, err := json.Marshal(ops)
	if err != nil {
		return nil, "", err
	}
	return data, fp, nil
}

// KubectlPatchCommand is the raw kubectl command that sends patch: what
// `toolgate approve|reject` does, for a reviewer to read or to run without
// the plugin.
func KubectlPatchCommand(namespace, pin string, patch []byte) string {
	return fmt.Sprintf("kubectl patch toolpin %s -n %s --subresource=status --type=json -p %s", pin, namespace, shellQuote(string(patch)))
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PatchDecision sends req's decision about pin, as read, to the API server
// and returns the pin as stored, with the decision stamped by the
// admission webhook. It builds the patch from pin as given, so a pin read
// earlier and changed since is refused with ErrChangedSinceRead.
func PatchDecision(ctx context.Context, c client.Client, pin *toolgatev1alpha1.ToolPin, req DecisionRequest) (*toolgatev1alpha1.ToolPin, []byte, error) {
	patch, _, err := BuildDecisionPatch(pin, req)
	if err != nil {
		return nil, nil, err
	}
	stored := pin.DeepCopy()
	if err := c.Status().Patch(ctx, stored, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		name := "toolpin " + pin.Namespace + "/" + pin.Name
		// A failed test operation comes back as a bare 422 that names no
		// field, so read the pin again to say what moved.
		if apierrors.IsInvalid(err) {
			var now toolgatev1alpha1.ToolPin
			if getErr := c.Get(ctx, client.ObjectKeyFromObject(pin), &now); getErr == nil {
				if what := changedSince(pin, &now, req.CallID); what != "" {
					return nil, patch, fmt.Errorf("%s: %w: %s", name, ErrChangedSinceRead, what)
				}
			}
		}
		return nil, patch, fmt.Errorf("%s: the API server refused the decision: %w", name, err)
	}
	return stored, patch, nil
}

// changedSince says which of the values the patch tests differ between
// the pin as read and as it is now; "" when none does.
func changedSince(read, now *toolgatev1alpha1.ToolPin, callID string) string {
	if callID != "" {
		byID := func(c toolgatev1alpha1.PendingCall) bool { return c.ID == callID }
		i, j := slices.IndexFunc(read.Status.PendingCalls, byID), slices.IndexFunc(now.Status.PendingCalls, byID)
		switch {
		case j < 0:
			return fmt.Sprintf("call %s is no longer in status.pendingCalls", callID)
		case i != j:
			return fmt.Sprintf("call %s moved in status.pendingCalls from %d to %d: run the command again", callID, i, j)
		case !equality.Semantic.DeepEqual(read.Status.PendingCalls[i], now.Status.PendingCalls[j]):
			return fmt.Sprintf("call %s in status.pendingCalls changed", callID)
		}
		return ""
	}
	var moved []string
	if read.Status.ObservedFingerprint != now.Status.ObservedFingerprint {
		moved = append(moved, fmt.Sprintf("status.observedFingerprint is now %s, not %s", now.Status.ObservedFingerprint, read.Status.ObservedFingerprint))
	}
	if read.Status.State != now.Status.State {
		moved = append(moved, fmt.Sprintf("status.state is now %s, not %s", now.Status.State, read.Status.State))
	}
	return strings.Join(moved, "; ")
}

// decisionVerb is one of the verbs that append a decision to a pin.
type decisionVerb struct {
	name   string
	action toolgatev1alpha1.DecisionAction
	// resultOnly: release and drop decide on a held result alone.
	resultOnly bool
	// revoke: a rejection of a Trusted pin's definition alone.
	revoke  bool
	short   string
	long    string
	example string
}

var decisionVerbs = []decisionVerb{
	{name: "approve", action: toolgatev1alpha1.DecisionApprove,
		short: "Approve the definition a ToolPin observes now, or one held call (--call ID)",
		long: `Approve the definition a ToolPin observes now, or one of its held calls or results (--call ID), by
appending a decision to its status: the same JSON patch as
"kubectl patch toolpin PIN --subresource=status --type=json". The API server stamps the
decision with the identity it authenticated (with --as, the identity impersonated).

A decision that would change nothing is not sent, and the command exits 3: the definition is
trusted already, you approved it already, or another reviewer's rejection stands.`,
		example: `  kubectl toolgate approve toolbox-get-weather-0123456789abcdef -n tools --comment "reviewed the schema"
  kubectl toolgate approve toolbox-delete-repository-fedcba9876543210 -n tools --call c-7f3a`},
	{name: "reject", action: toolgatev1alpha1.DecisionReject,
		short: "Reject the definition a ToolPin observes now — also a Trusted one — or one held call (--call ID)",
		long: `Reject the definition a ToolPin observes now, or one of its held calls or results (--call ID), by
appending a decision to its status. Rejecting a Trusted pin's definition revokes it, as
"kubectl toolgate revoke" does: the tool is withheld from agents until it is approved again.

A rejection of a pin Rejected already changes nothing: it is not sent, and the command exits 3.`,
		example: `  kubectl toolgate reject toolbox-list-files-0123456789abcdef -n tools --comment "not needed"`},
	{name: "revoke", action: toolgatev1alpha1.DecisionReject, revoke: true,
		short: "Withdraw the trust in a Trusted pin's definition: the tool is withheld from agents",
		long: `Withdraw the trust in the definition a Trusted ToolPin pins, whether it was trusted on first use
or approved: a rejection of that definition, appended to the pin's status. The operator marks
the pin Rejected and the gates withhold the tool from agents, until a reviewer approves the
definition again (the rejecter's own approval withdraws the rejection).

Only a Trusted pin can be revoked: one awaiting review is rejected ("kubectl toolgate reject"),
and revoking a Rejected pin changes nothing (exit 3).`,
		example: `  kubectl toolgate revoke toolbox-get-weather-0123456789abcdef -n tools --comment "the server was compromised"`},
	{name: "release", action: toolgatev1alpha1.DecisionApprove, resultOnly: true,
		short: "Release a tool result a gate holds because its scan found something (--call ID)",
		long: `Release a tool's result that a gate holds because its scan found something in it: an approval of
the held result alone (--call ID), never of a call. The agent receives the result exactly as held.`,
		example: `  kubectl toolgate release browser-fetch-url-8899aabbccddeeff -n web --call r-51`},
	{name: "drop", action: toolgatev1alpha1.DecisionReject, resultOnly: true,
		short: "Drop a tool result a gate holds (--call ID): the agent gets an error instead",
		long: `Drop a tool's result that a gate holds because its scan found something in it: a rejection of the
held result alone (--call ID). The agent gets an error instead of the result.`,
		example: `  kubectl toolgate drop browser-fetch-url-8899aabbccddeeff -n web --call r-51`},
}

type decideOptions struct {
	*options
	verb                  decisionVerb
	callID, comment       string
	fingerprint           string
	dryRun, acceptPartial bool
}

func newDecideCommand(o *options, verb decisionVerb) *cobra.Command {
	d := &decideOptions{options: o, verb: verb}
	use := verb.name + " PIN [-n NAMESPACE] [--call ID] [--comment TEXT] [--fingerprint FP]"
	switch {
	case verb.resultOnly:
		use = verb.name + " PIN --call ID [-n NAMESPACE] [--comment TEXT] [--fingerprint FP]"
	case verb.revoke:
		use = verb.name + " PIN [-n NAMESPACE] [--comment TEXT] [--fingerprint FP]"
	}
	cmd := &cobra.Command{
		Use:               use,
		Short:             verb.short,
		Long:              verb.long,
		Example:           verb.example,
		Args:              onePin,
		ValidArgsFunction: completePins(o),
		RunE: func(cmd *cobra.Command, args []string) error {
			return d.run(cmd.Context(), args[0])
		},
	}
	f := cmd.Flags()
	if !verb.revoke {
		what := "decide on this pending call or held result (its id in status.pendingCalls) instead of the definition"
		if verb.resultOnly {
			what = "the held result to decide on (its id in status.pendingCalls; see `kubectl toolgate pending`)"
		}
		f.StringVar(&d.callID, "call", "", what)
		_ = cmd.RegisterFlagCompletionFunc("call", completeCalls(o, verb.resultOnly))
	}
	if verb.resultOnly {
		_ = cmd.MarkFlagRequired("call")
	}
	f.StringVar(&d.comment, "comment", "", "a note for the audit trail")
	f.StringVar(&d.fingerprint, "fingerprint", "", "the fingerprint you reviewed (from describe): refuse unless it is still the one to decide on")
	f.BoolVar(&d.dryRun, "dry-run", false, "print the patch and the equivalent kubectl command without sending it")
	if verb.action == toolgatev1alpha1.DecisionApprove && !verb.resultOnly {
		f.BoolVar(&d.acceptPartial, "accept-partial-arguments", false, "approve a call whose argument preview was redacted or cut (the approval covers every argument)")
	}
	return cmd
}

func (d *decideOptions) run(ctx context.Context, name string) error {
	verb := d.verb
	req := DecisionRequest{Action: verb.action, CallID: d.callID, Comment: d.comment, Fingerprint: toolgatev1alpha1.Fingerprint(d.fingerprint),
		AcceptPartialArguments: d.acceptPartial, ResultOnly: verb.resultOnly, Revoke: verb.revoke}
	c, ns, err := d.client()
	if err != nil {
		return failed("%w", err)
	}
	var pin toolgatev1alpha1.ToolPin
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &pin); err != nil {
		return failed("reading toolpin %s/%s: %w", ns, name, err)
	}
	// Who the API server takes the reviewer for (--as included): what
	// the decision will be stamped with, and whose earlier decisions it
	// replaces.
	user := whoAmI(ctx, c)
	if why := Unchanged(&pin, req, user); why != "" {
		return &exitError{code: ExitUnchanged, err: errors.New(why)}
	}
	patch, fp, err := BuildDecisionPatch(&pin, req)
	if errors.Is(err, ErrUnchanged) {
		return &exitError{code: ExitUnchanged, err: err}
	}
	if err != nil {
		return failed("%w", err)
	}
	out := d.streams.Out
	on := "the definition of tool " + offline.Printable(pin.Spec.ToolName)
	var held *toolgatev1alpha1.PendingCall
	if req.CallID != "" {
		on = "call " + req.CallID + " to tool " + offline.Printable(pin.Spec.ToolName)
		for i := range pin.Status.PendingCalls {
			if call := &pin.Status.PendingCalls[i]; call.ID == req.CallID {
				held = call
				if call.Kind == toolgatev1alpha1.CallKindResult {
					on = "the held result of call " + req.CallID + " to tool " + offline.Printable(pin.Spec.ToolName)
				}
			}
		}
	}
	verbText := string(verb.action)
	if verb.revoke || req.CallID == "" && verb.action == toolgatev1alpha1.DecisionReject && pin.Status.State == toolgatev1alpha1.PinTrusted {
		verbText = "Revoke"
		on = "the trusted " + on[len("the "):]
	}
	fmt.Fprintf(out, "%s %s: %s of server %s, fingerprint %s\n", verbText, pin.Name, on, pin.Spec.ServerRef.Name, fp)
	switch {
	case held != nil && held.Kind == toolgatev1alpha1.CallKindResult:
		fate := "released to the agent exactly as held"
		if verb.action == toolgatev1alpha1.DecisionReject {
			fate = "dropped: the agent gets an error instead"
		}
		fmt.Fprintf(out, "result (digest %s), %s; the scan found:\n", held.ResultDigest, fate)
		for _, f := range held.Findings {
			fmt.Fprintf(out, "  %s\n", findingLine(f))
		}
	case held != nil:
		shown := "in full"
		if !held.ArgumentsComplete {
			shown = "partly: redacted or cut"
		}
		fmt.Fprintf(out, "arguments (%s, digest %s): %s\n", shown, held.ArgumentsDigest, offline.Printable(held.Arguments))
	}
	fmt.Fprintf(out, "equivalent: %s\n", KubectlPatchCommand(pin.Namespace, pin.Name, patch))
	if d.dryRun {
		return nil
	}
	stored, _, err := PatchDecision(ctx, c, &pin, req)
	if err != nil {
		return failed("%w", err)
	}
	// The webhook stamped the identity: show what it recorded, so the
	// reviewer sees the name the audit trail carries.
	if n := len(stored.Status.Decisions); n > 0 {
		rec := stored.Status.Decisions[n-1]
		when := ""
		if rec.Time != nil {
			when = " at " + rec.Time.UTC().Format("2006-01-02T15:04:05Z")
		}
		fmt.Fprintf(out, "recorded: %s by %s%s (identity stamped by the API server)\n", rec.Action, orDash(rec.User), when)
	}
	if next := Outcome(&pin, req, user); next != "" {
		fmt.Fprintf(out, "next: %s\n", next)
	}
	return nil
}

// latestDecisions returns each identity's latest decision on the
// definition fp (CallID "") or on one call (at fp), as the operator
// counts them: identities that are never a person left out.
func latestDecisions(decisions []toolgatev1alpha1.Decision, fp toolgatev1alpha1.Fingerprint, callID string) map[string]toolgatev1alpha1.DecisionAction {
	latest := map[string]toolgatev1alpha1.DecisionAction{}
	for _, d := range decisions {
		if d.CallID != callID || d.Fingerprint != fp || d.User == "" || lifecycle.NeverAPerson(d.User, d.Groups) != "" {
			continue
		}
		latest[d.User] = d.Action
	}
	return latest
}

// rejecters are the identities whose latest decision rejects, sorted,
// user excepted.
func rejecters(latest map[string]toolgatev1alpha1.DecisionAction, except string) []string {
	var out []string
	for u, a := range latest {
		if a == toolgatev1alpha1.DecisionReject && u != except {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

// Unchanged says why req, made by user (the identity the API server
// stamps; "" when unknown), would change nothing on pin as read, or ""
// when it would: the definition is trusted or rejected already, user's
// latest decision on it (or on the call) is this one already, or an
// approval meets another identity's rejection, which stands until they
// withdraw it. Each identity's latest decision is the one that counts,
// as the operator counts them (lifecycle).
func Unchanged(pin *toolgatev1alpha1.ToolPin, req DecisionRequest, user string) string {
	name := "toolpin " + pin.Namespace + "/" + pin.Name
	st := &pin.Status
	verbed := map[toolgatev1alpha1.DecisionAction]string{toolgatev1alpha1.DecisionApprove: "approved", toolgatev1alpha1.DecisionReject: "rejected"}[req.Action]
	if req.CallID != "" {
		call := lifecycle.PendingCall(st, req.CallID)
		if call == nil || user == "" {
			return ""
		}
		if latest := latestDecisions(st.Decisions, call.Fingerprint, call.ID); latest[user] == req.Action {
			return fmt.Sprintf("%s: %s %s call %s already; only each identity's latest decision counts", name, user, verbed, call.ID)
		}
		return ""
	}
	fp := st.ObservedFingerprint
	if fp == "" {
		return ""
	}
	latest := latestDecisions(st.Decisions, fp, "")
	others := rejecters(latest, user)
	switch req.Action {
	case toolgatev1alpha1.DecisionApprove:
		if st.State == toolgatev1alpha1.PinTrusted {
			return "" // BuildDecisionPatch says so, with the pending calls.
		}
		if len(others) > 0 {
			return fmt.Sprintf("%s: %s rejected %s, and a rejection stands until whoever made it approves: an approval by %s would leave the pin %s",
				name, strings.Join(others, ", "), fp.Short(), orDash(user), orDash(string(st.State)))
		}
		if user != "" && latest[user] == toolgatev1alpha1.DecisionApprove {
			have, needed, _ := approvalCount(pin)
			return fmt.Sprintf("%s: %s approved %s already (%d of %s approvals); only each identity's latest decision counts", name, user, fp.Short(), have, neededString(needed))
		}
	case toolgatev1alpha1.DecisionReject:
		if st.State == toolgatev1alpha1.PinRejected {
			by := strings.Join(rejecters(latest, ""), ", ")
			if by == "" {
				by = "a reviewer"
			}
			return fmt.Sprintf("%s: status.state is Rejected already (%s rejected %s)", name, by, fp.Short())
		}
	}
	return ""
}

func neededString(n int) string {
	if n <= 0 {
		return "2+"
	}
	return fmt.Sprint(n)
}

// Outcome says what follows from req once recorded, for the line after
// "recorded:", or "" for a call (its gate says). The operator decides it:
// this is what its rules give for the pin as read.
func Outcome(pin *toolgatev1alpha1.ToolPin, req DecisionRequest, user string) string {
	if req.CallID != "" {
		return ""
	}
	if req.Action == toolgatev1alpha1.DecisionReject {
		return "the operator marks the pin Rejected, and the gates withhold the tool from agents until the definition is approved again"
	}
	have, needed, multi := approvalCount(pin)
	if user != "" {
		if latest := latestDecisions(pin.Status.Decisions, pin.Status.ObservedFingerprint, ""); latest[user] != toolgatev1alpha1.DecisionApprove &&
			!(multi && strings.HasPrefix(user, "system:serviceaccount:")) {
			have++
		}
	}
	if !multi || needed > 0 && have >= needed {
		return "the operator pins the definition and marks the pin Trusted, and the gates offer the tool to agents"
	}
	return fmt.Sprintf("%d of %s approvals by distinct people: the definition stays withheld until enough approve", have, neededString(needed))
}

// findingLine is one finding of a held result for a reviewer, escaped.
func findingLine(f toolgatev1alpha1.Finding) string {
	s := oneLine(f.Signal)
	if f.Field != "" {
		s += " in " + oneLine(f.Field)
	}
	if f.Excerpt != "" {
		s += `: "` + oneLine(f.Excerpt) + `"`
	}
	return s
}
