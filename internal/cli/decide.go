package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli/offline"
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
}

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
		case st.State == toolgatev1alpha1.PinTrusted:
			msg := fmt.Sprintf("%s: status.state is Trusted (%s is pinned): there is no definition to decide on", name, fp.Short())
			if n := len(st.PendingCalls); n > 0 {
				msg += fmt.Sprintf("; it holds %d pending call(s): name one with --call (see `toolgate pending`)", n)
			}
			return nil, "", errors.New(msg)
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

// runDecide runs approve and reject, and their names for held results:
// release (approve) and drop (reject), which decide on a held result only.
func runDecide(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) int {
	action, resultOnly := toolgatev1alpha1.DecisionApprove, false
	switch verb {
	case "reject":
		action = toolgatev1alpha1.DecisionReject
	case "release":
		resultOnly = true
	case "drop":
		action, resultOnly = toolgatev1alpha1.DecisionReject, true
	}
	fs := flag.NewFlagSet("toolgate "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var kf kubeFlags
	kf.register(fs, false)
	callID := fs.String("call", "", "decide on this pending call (its id in status.pendingCalls) instead of the definition")
	comment := fs.String("comment", "", "a note for the audit trail")
	fingerprint := fs.String("fingerprint", "", "the fingerprint you reviewed: refuse unless it is still the one to decide on")
	dryRun := fs.Bool("dry-run", false, "print the patch and the equivalent kubectl command without sending it")
	acceptPartial := fs.Bool("accept-partial-arguments", false, "approve a call whose argument preview was redacted or cut (the approval covers every argument)")
	usage := fmt.Sprintf("Usage: toolgate %s PIN [-n NAMESPACE] [--call ID [--accept-partial-arguments]] [--comment TEXT] [--fingerprint FP]\n\n"+
		"%ss the definition a ToolPin observes now, one of its pending calls, or a held result (--call ID), by appending a\n"+
		"decision to its status: the same JSON patch as `kubectl patch toolpin PIN --subresource=status --type=json`.", verb, string(action))
	if resultOnly {
		usage = fmt.Sprintf("Usage: toolgate %s PIN --call ID [-n NAMESPACE] [--comment TEXT] [--fingerprint FP]\n\n"+
			"%ss a tool's result that a gate holds because its scan found something in it (%s, for a held result only):\n"+
			"the same JSON patch as `kubectl patch toolpin PIN --subresource=status --type=json`.", verb, strings.ToTitle(verb[:1])+verb[1:], strings.ToLower(string(action)))
	}
	pos, code, ok := parseCommand(fs, args, stderr, usage)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "toolgate %s: want one PIN, got %d arguments\n", verb, len(pos))
		return ExitUsage
	}
	if resultOnly && *callID == "" {
		fmt.Fprintf(stderr, "toolgate %s: --call ID names the held result (see `toolgate pending`)\n", verb)
		return ExitUsage
	}
	req := DecisionRequest{Action: action, CallID: *callID, Comment: *comment, Fingerprint: toolgatev1alpha1.Fingerprint(*fingerprint),
		AcceptPartialArguments: *acceptPartial, ResultOnly: resultOnly}
	c, ns, err := kf.client()
	if err != nil {
		fmt.Fprintf(stderr, "toolgate %s: %v\n", verb, err)
		return ExitPolicy
	}
	ctx, cancel := context.WithTimeout(ctx, kf.timeout)
	defer cancel()
	var pin toolgatev1alpha1.ToolPin
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: pos[0]}, &pin); err != nil {
		fmt.Fprintf(stderr, "toolgate %s: reading toolpin %s/%s: %v\n", verb, ns, pos[0], err)
		return ExitPolicy
	}
	patch, fp, err := BuildDecisionPatch(&pin, req)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate %s: %v\n", verb, err)
		return ExitPolicy
	}
	on := "the definition of tool " + offline.Printable(pin.Spec.ToolName)
	if req.CallID != "" {
		on = "call " + req.CallID + " to tool " + offline.Printable(pin.Spec.ToolName)
		for _, call := range pin.Status.PendingCalls {
			if call.ID == req.CallID && call.Kind == toolgatev1alpha1.CallKindResult {
				on = "the held result of call " + req.CallID + " to tool " + offline.Printable(pin.Spec.ToolName)
			}
		}
	}
	fmt.Fprintf(stdout, "%s %s: %s of server %s, fingerprint %s\n", string(action), pin.Name, on, pin.Spec.ServerRef.Name, fp)
	for _, call := range pin.Status.PendingCalls {
		if call.ID == req.CallID && req.CallID != "" && call.Kind == toolgatev1alpha1.CallKindResult {
			fate := "released to the agent exactly as held"
			if action == toolgatev1alpha1.DecisionReject {
				fate = "dropped: the agent gets an error instead"
			}
			fmt.Fprintf(stdout, "result (digest %s), %s; the scan found:\n", call.ResultDigest, fate)
			for _, f := range call.Findings {
				fmt.Fprintf(stdout, "  %s\n", findingLine(f))
			}
			continue
		}
		if call.ID == req.CallID && req.CallID != "" {
			shown := "in full"
			if !call.ArgumentsComplete {
				shown = "partly: redacted or cut"
			}
			fmt.Fprintf(stdout, "arguments (%s, digest %s): %s\n", shown, call.ArgumentsDigest, offline.Printable(call.Arguments))
		}
	}
	fmt.Fprintf(stdout, "equivalent: %s\n", KubectlPatchCommand(pin.Namespace, pin.Name, patch))
	if *dryRun {
		return ExitOK
	}
	stored, _, err := PatchDecision(ctx, c, &pin, req)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate %s: %v\n", verb, err)
		return ExitPolicy
	}
	// The webhook stamped the identity: show what it recorded, so the
	// reviewer sees the name the audit trail carries.
	if n := len(stored.Status.Decisions); n > 0 {
		d := stored.Status.Decisions[n-1]
		when := ""
		if d.Time != nil {
			when = " at " + d.Time.UTC().Format("2006-01-02T15:04:05Z")
		}
		fmt.Fprintf(stdout, "recorded: %s by %s%s (identity stamped by the API server)\n", d.Action, orDash(d.User), when)
	}
	return ExitOK
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
