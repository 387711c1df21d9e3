package serverstatus

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/probe"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestInterval(t *testing.T) {
	if got := Interval(toolgatev1alpha1.ProbeSpec{}); got != toolgatev1alpha1.DefaultProbeInterval {
		t.Errorf("no interval: %s, want the default", got)
	}
	if got := Interval(toolgatev1alpha1.ProbeSpec{Interval: &metav1.Duration{Duration: time.Minute}}); got != time.Minute {
		t.Errorf("a set interval: %s", got)
	}
}

func TestDue(t *testing.T) {
	last := metav1.NewTime(t0)
	for _, c := range []struct {
		name       string
		last       *metav1.Time
		sameConfig bool
		now        time.Time
		due        bool
		wait       time.Duration
	}{
		{"never probed", nil, true, t0, true, 0},
		{"configuration changed", &last, false, t0.Add(time.Second), true, 0},
		{"within the interval", &last, true, t0.Add(time.Minute), false, 4 * time.Minute},
		{"at the interval", &last, true, t0.Add(5 * time.Minute), true, 0},
		{"past the interval", &last, true, t0.Add(time.Hour), true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			due, wait := Due(c.last, 5*time.Minute, c.sameConfig, c.now)
			if due != c.due || wait != c.wait {
				t.Errorf("Due = %v, %s; want %v, %s", due, wait, c.due, c.wait)
			}
		})
	}
}

func TestWait(t *testing.T) {
	at := func(d time.Duration) *metav1.Time { m := metav1.NewTime(t0.Add(d)); return &m }
	reachable := func(status metav1.ConditionStatus, since time.Duration) []metav1.Condition {
		return []metav1.Condition{{Type: toolgatev1alpha1.ConditionReachable, Status: status, LastTransitionTime: *at(since)}}
	}
	for _, c := range []struct {
		name string
		st   toolgatev1alpha1.MCPServerStatus
		want time.Duration
	}{
		{"never probed", toolgatev1alpha1.MCPServerStatus{}, time.Hour},
		{"reachable", toolgatev1alpha1.MCPServerStatus{LastProbeTime: at(time.Minute), Conditions: reachable(metav1.ConditionTrue, 0)}, time.Hour},
		{"the first failure", toolgatev1alpha1.MCPServerStatus{LastProbeTime: at(0), Conditions: reachable(metav1.ConditionFalse, 0)}, FirstRetry},
		{"failing for 20 s", toolgatev1alpha1.MCPServerStatus{LastProbeTime: at(20 * time.Second), Conditions: reachable(metav1.ConditionFalse, 0)}, 20 * time.Second},
		{"failing for a day", toolgatev1alpha1.MCPServerStatus{LastProbeTime: at(24 * time.Hour), Conditions: reachable(metav1.ConditionFalse, 0)}, time.Hour},
		{"failing, no probe time", toolgatev1alpha1.MCPServerStatus{Conditions: reachable(metav1.ConditionFalse, 0)}, time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Wait(c.st, time.Hour); got != c.want {
				t.Errorf("Wait = %s, want %s", got, c.want)
			}
		})
	}
}

func pin(name string, state toolgatev1alpha1.PinState, level toolgatev1alpha1.Level) toolgatev1alpha1.ToolPin {
	p := toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Name: "pin-" + name, CreationTimestamp: metav1.NewTime(t0)},
		Spec: toolgatev1alpha1.ToolPinSpec{ToolName: name}, Status: toolgatev1alpha1.ToolPinStatus{State: state}}
	if level != "" {
		p.Status.Risk = &toolgatev1alpha1.ToolRisk{Level: level, Category: toolgatev1alpha1.CategoryRead}
	}
	return p
}

func TestCount(t *testing.T) {
	changed := pin("changed", toolgatev1alpha1.PinAwaitingReview, "L2")
	changed.Status.Change = &toolgatev1alpha1.DefinitionChange{DetectedTime: metav1.NewTime(t0.Add(-time.Hour))}
	tally := Count([]toolgatev1alpha1.ToolPin{
		pin("b_read", toolgatev1alpha1.PinTrusted, "L1"),
		pin("a_read", toolgatev1alpha1.PinTrusted, "L1"),
		pin("unjudged", toolgatev1alpha1.PinAwaitingReview, ""),
		pin("gone", toolgatev1alpha1.PinRemoved, "L5"),
		changed,
	})
	var order []string
	for _, s := range tally.Summaries {
		order = append(order, fmt.Sprintf("%s:%s", s.Name, s.Level))
	}
	// An unjudged tool counts as the worst; a removed one is not offered;
	// equal levels sort by name.
	if got := strings.Join(order, " "); got != "unjudged:L5 changed:L2 a_read:L1 b_read:L1" {
		t.Errorf("summaries %s", got)
	}
	if tally.Highest != toolgatev1alpha1.LevelCritical {
		t.Errorf("highest %s, want L5 from the unjudged pin", tally.Highest)
	}
	if tally.Levels["L5"] != 1 || tally.Levels["L1"] != 2 || tally.States[toolgatev1alpha1.PinRemoved] != 1 || tally.Awaiting() != 2 {
		t.Errorf("levels %v, states %v", tally.Levels, tally.States)
	}
	if !tally.OldestAwaiting.Equal(t0.Add(-time.Hour)) {
		t.Errorf("oldest review since %s, want the change's detection time", tally.OldestAwaiting)
	}

	var many []toolgatev1alpha1.ToolPin
	for i := range toolgatev1alpha1.MaxToolSummaries + 20 {
		many = append(many, pin(fmt.Sprintf("t%03d", i), toolgatev1alpha1.PinTrusted, "L1"))
	}
	if n := len(Count(many).Summaries); n != toolgatev1alpha1.MaxToolSummaries {
		t.Errorf("%d summaries, want the API's cap", n)
	}
	if empty := Count(nil); empty.Highest != "" || len(empty.Summaries) != 0 {
		t.Errorf("no pins: %+v", empty)
	}
}

func catalogue(t *testing.T, n int) *tooldef.Catalogue {
	t.Helper()
	var tools []string
	for i := range n {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i))
	}
	cat, err := tooldef.ParseCatalogue([]byte(`{"tools":[`+strings.Join(tools, ",")+`]}`), tooldef.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestNext(t *testing.T) {
	probed := func(unpinnable, firstUse int) Input {
		return Input{Generation: 3, Now: t0, Probed: &Catalogue{
			Result: &probe.Result{ServerName: "srv", ServerVersion: "1.0", ProtocolVersion: "2025-11-25", Instructions: "Use me.",
				Catalogue: catalogue(t, 2), Pages: 1, Bytes: 120, Duration: 15 * time.Millisecond},
			Server: vet.ServerReport{Level: "L3", Reasons: []string{"catalogue trust Unknown"}},
			Reach:  []string{"can delete pods in every namespace"},
			Pins: Count([]toolgatev1alpha1.ToolPin{pin("t0", toolgatev1alpha1.PinTrusted, "L1"),
				pin("t1", toolgatev1alpha1.PinAwaitingReview, "L4")}),
			TrustedOnFirstUse: firstUse, Unpinnable: unpinnable,
		}}
	}
	ready := func(reason string, status metav1.ConditionStatus) toolgatev1alpha1.MCPServerStatus {
		var st toolgatev1alpha1.MCPServerStatus
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: toolgatev1alpha1.ConditionReady, Status: status, Reason: reason})
		return st
	}
	long := strings.Repeat("ü", 2000)
	for _, c := range []struct {
		name  string
		prev  toolgatev1alpha1.MCPServerStatus
		in    Input
		check func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event)
	}{
		{"misconfigured: not probed, Reachable unknown", toolgatev1alpha1.MCPServerStatus{},
			Input{Generation: 2, Now: t0, Misconfigured: &Failure{Reason: toolgatev1alpha1.ReasonSecretNotFound, Message: "secret token not found"}},
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonSecretNotFound, 2)
				expectCondition(t, st, toolgatev1alpha1.ConditionReachable, metav1.ConditionUnknown, toolgatev1alpha1.ReasonSecretNotFound, 2)
				if st.LastProbeTime != nil || st.ObservedGeneration != 2 {
					t.Errorf("lastProbeTime %v, observedGeneration %d", st.LastProbeTime, st.ObservedGeneration)
				}
				expectEvents(t, events, "Warning/SecretNotFound")
			}},
		{"a failed probe is dated and explained", ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue),
			Input{Generation: 1, Now: t0, ProbeFailed: ProbeFailure(&probe.Error{Reason: probe.Timeout, Err: errors.New("no answer in 30s")})},
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonTimeout, 1)
				expectCondition(t, st, toolgatev1alpha1.ConditionReachable, metav1.ConditionFalse, toolgatev1alpha1.ReasonTimeout, 1)
				if st.LastProbeTime == nil || !st.LastProbeTime.Time.Equal(t0) {
					t.Errorf("lastProbeTime %v", st.LastProbeTime)
				}
				expectEvents(t, events, "Warning/Timeout")
			}},
		{"an error that is not the probe's reads as an invalid response", toolgatev1alpha1.MCPServerStatus{},
			Input{Now: t0, ProbeFailed: ProbeFailure(errors.New("eof"))},
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, _ []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonInvalidResponse, 0)
			}},
		{"the same failure again raises no event", ready(toolgatev1alpha1.ReasonTimeout, metav1.ConditionFalse),
			Input{Now: t0, ProbeFailed: &Failure{Reason: toolgatev1alpha1.ReasonTimeout, Message: "again"}},
			func(t *testing.T, _ toolgatev1alpha1.MCPServerStatus, events []Event) { expectEvents(t, events) }},
		{"a long message is cut within the bound, whole runes only", toolgatev1alpha1.MCPServerStatus{},
			Input{Now: t0, ProbeFailed: &Failure{Reason: toolgatev1alpha1.ReasonInvalidResponse, Message: long}},
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, _ []Event) {
				msg := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady).Message
				if len(msg) > toolgatev1alpha1.MaxConditionMessageLength || !utf8.ValidString(msg) || !strings.HasSuffix(msg, "...") {
					t.Errorf("message of %d bytes, valid %v", len(msg), utf8.ValidString(msg))
				}
			}},
		{"a judged catalogue fills the status", ready(toolgatev1alpha1.ReasonTimeout, metav1.ConditionFalse), probed(0, 1),
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, 3)
				expectCondition(t, st, toolgatev1alpha1.ConditionReachable, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, 3)
				if msg := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady).Message; msg != "2 tools: 1 trusted, 1 awaiting review, 0 rejected" {
					t.Errorf("ready message %q", msg)
				}
				if st.ToolCount != 2 || st.HighestLevel != "L4" || len(st.Tools) != 2 || st.Tools[0].Name != "t1" {
					t.Errorf("tools %d, highest %s, summaries %+v", st.ToolCount, st.HighestLevel, st.Tools)
				}
				if st.ServerInfo.Name != "srv" || string(st.ServerInfo.InstructionsFingerprint) != tooldef.InstructionsFingerprint("Use me.") {
					t.Errorf("server info %+v", st.ServerInfo)
				}
				if st.Risk.Level != "L3" || len(st.Reach) != 1 {
					t.Errorf("risk %+v, reach %v", st.Risk, st.Reach)
				}
				expectEvents(t, events, "Normal/PinnedOnFirstUse", "Normal/Probed")
			}},
		{"a probe that read no instructions records none, in place of the last ones", func() toolgatev1alpha1.MCPServerStatus {
			st := ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue)
			st.ServerInfo = &toolgatev1alpha1.ServerInfo{Name: "srv", InstructionsFingerprint: toolgatev1alpha1.Fingerprint(tooldef.InstructionsFingerprint("Use me."))}
			return st
		}(), func() Input {
			in := probed(0, 0)
			in.Probed.Result.Instructions = ""
			return in
		}(),
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, _ []Event) {
				if st.ServerInfo == nil || st.ServerInfo.InstructionsFingerprint != "" {
					t.Errorf("server info %+v", st.ServerInfo)
				}
			}},
		{"an answer refused for member names a case-insensitive decoder reads otherwise is an invalid response", ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue),
			Input{Generation: 3, Now: t0, ProbeFailed: ProbeFailure(&probe.Error{Reason: probe.InvalidResponse,
				Msg: `tools/list: the members "tools" and "Tools" in the result are one name to a decoder that ignores case`})},
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonInvalidResponse, 3)
				if msg := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady).Message; !strings.Contains(msg, `"tools" and "Tools"`) {
					t.Errorf("ready message %q", msg)
				}
				expectEvents(t, events, "Warning/InvalidResponse")
			}},
		{"tools whose names no pin can hold are said to be withheld", ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue), probed(3, 0),
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				if msg := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady).Message; !strings.Contains(msg, "3 tool(s) withheld because their names are longer than 128 bytes") {
					t.Errorf("ready message %q", msg)
				}
				expectEvents(t, events)
			}},
		{"a pin that cannot be written leaves the server not Ready, naming the tool", ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue),
			func() Input {
				in := probed(0, 0)
				in.Probed.PinFailures = []PinFailure{{Tool: "t1", Message: "request entity too large"}}
				return in
			}(),
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonPinWriteFailed, 3)
				expectCondition(t, st, toolgatev1alpha1.ConditionReachable, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, 3)
				msg := meta.FindStatusCondition(st.Conditions, toolgatev1alpha1.ConditionReady).Message
				if !strings.Contains(msg, `"t1"`) || !strings.Contains(msg, "request entity too large") {
					t.Errorf("ready message %q", msg)
				}
				expectEvents(t, events, "Warning/PinWriteFailed")
			}},
		{"a bypassable server stays Ready, and its finding is a warning", ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue),
			func() Input {
				in := probed(0, 0)
				in.GateBypass = &metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable, Status: metav1.ConditionTrue,
					Reason: toolgatev1alpha1.ReasonReachableWithoutCredentials, Message: "answered", ObservedGeneration: 3}
				return in
			}(),
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionTrue, toolgatev1alpha1.ReasonProbed, 3)
				expectCondition(t, st, toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionTrue, toolgatev1alpha1.ReasonReachableWithoutCredentials, 3)
				expectEvents(t, events, "Warning/ReachableWithoutCredentials")
			}},
		{"a bypass condition set even when the server is misconfigured, apart from Ready", toolgatev1alpha1.MCPServerStatus{},
			Input{Generation: 2, Now: t0, Misconfigured: &Failure{Reason: toolgatev1alpha1.ReasonSecretNotFound, Message: "secret token not found"},
				GateBypass: &metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable, Status: metav1.ConditionUnknown,
					Reason: toolgatev1alpha1.ReasonBypassNotChecked, Message: "not checked", ObservedGeneration: 2}},
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, events []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionReady, metav1.ConditionFalse, toolgatev1alpha1.ReasonSecretNotFound, 2)
				expectCondition(t, st, toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionUnknown, toolgatev1alpha1.ReasonBypassNotChecked, 2)
				expectEvents(t, events, "Normal/NotChecked", "Warning/SecretNotFound")
			}},
		{"a pass that did not check keeps the last finding, and the same finding again raises no event", func() toolgatev1alpha1.MCPServerStatus {
			st := ready(toolgatev1alpha1.ReasonProbed, metav1.ConditionTrue)
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable, Status: metav1.ConditionFalse,
				Reason: toolgatev1alpha1.ReasonCredentialsRequired, Message: "refused", ObservedGeneration: 3})
			return st
		}(), probed(0, 0),
			func(t *testing.T, st toolgatev1alpha1.MCPServerStatus, _ []Event) {
				expectCondition(t, st, toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired, 3)
				again, events := Next(st, func() Input {
					in := probed(0, 0)
					in.GateBypass = &metav1.Condition{Type: toolgatev1alpha1.ConditionGateBypassable, Status: metav1.ConditionFalse,
						Reason: toolgatev1alpha1.ReasonCredentialsRequired, Message: "refused", ObservedGeneration: 3}
					return in
				}())
				expectCondition(t, again, toolgatev1alpha1.ConditionGateBypassable, metav1.ConditionFalse, toolgatev1alpha1.ReasonCredentialsRequired, 3)
				expectEvents(t, events)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prev := c.prev.DeepCopy()
			st, events := Next(c.prev, c.in)
			c.check(t, st, events)
			if len(c.prev.Conditions) != len(prev.Conditions) {
				t.Error("Next changed its input")
			}
		})
	}
}

func expectCondition(t *testing.T, st toolgatev1alpha1.MCPServerStatus, typ string, status metav1.ConditionStatus, reason string, generation int64) {
	t.Helper()
	c := meta.FindStatusCondition(st.Conditions, typ)
	if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != generation {
		t.Errorf("%s = %+v, want %s/%s at generation %d", typ, c, status, reason, generation)
	}
}

func expectEvents(t *testing.T, events []Event, want ...string) {
	t.Helper()
	var got []string
	for _, e := range events {
		got = append(got, e.Type+"/"+e.Reason)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events %v, want %v", got, want)
	}
}

func TestConfigDigest(t *testing.T) {
	base := probe.Config{URL: "https://a.example/mcp", Header: http.Header{"Authorization": {"Bearer one"}}}
	rotated := base
	rotated.Header = http.Header{"Authorization": {"Bearer two"}}
	if ConfigDigest(base, 1, false) == ConfigDigest(rotated, 1, false) {
		t.Error("a rotated credential must change the digest")
	}
	if ConfigDigest(base, 1, false) == ConfigDigest(base, 2, false) {
		t.Error("a new generation must change the digest")
	}
	if ConfigDigest(base, 1, false) == ConfigDigest(base, 1, true) {
		t.Error("agents starting or ceasing to run beside the server must change the digest")
	}
	withCA := base
	withCA.TLS, withCA.RootCAsPEM = &tls.Config{MinVersion: tls.VersionTLS12}, []byte("-----BEGIN CERTIFICATE-----\none")
	rotatedCA := withCA
	rotatedCA.RootCAsPEM = []byte("-----BEGIN CERTIFICATE-----\ntwo")
	if ConfigDigest(withCA, 1, false) == ConfigDigest(rotatedCA, 1, false) {
		t.Error("a rotated CA bundle must change the digest")
	}
	again := base
	again.Header = base.Header.Clone()
	if ConfigDigest(base, 1, false) != ConfigDigest(again, 1, false) {
		t.Error("the digest must be stable")
	}
}
