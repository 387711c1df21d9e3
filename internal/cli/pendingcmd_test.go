package cli

import (
	"bytes"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// TestPendingWideGolden: -o wide adds the fingerprint decided on, what
// held each call and the rule, and gives WHY whole.
func TestPendingWideGolden(t *testing.T) {
	var buf bytes.Buffer
	WritePendingRows(&buf, PendingItems(fixturePins(t)), PendingTableOptions{AllNamespaces: true, Wide: true}, fixtureNow)
	golden(t, "pending/wide.txt", buf.String())
	for _, want := range []string{"FINGERPRINT ", " HELD BY ", " RULE ", "ArgumentLevel", "web-guard/internal-hosts", "rule data-guard/drops-need-a-dba: a DBA approves every drop of a table\\u001B[2K"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the wide table lacks %q", want)
		}
	}
}

// TestPendingLevelShown: the level a reviewer decides on, in the table
// and in the items -o json and yaml print: raised by the arguments, or
// the effective level when every call is approved.
func TestPendingLevelShown(t *testing.T) {
	byCall := map[string]string{}
	for _, it := range PendingItems(fixturePins(t)) {
		byCall[it.Kind+"/"+it.CallID+"/"+it.Tool] = it.LevelShown
	}
	for key, want := range map[string]string{
		"call/c-7f3a/run_query":         "L5→L4", // the tool's effective level: every call is approved
		"call/c-60/fetch_url":           "L1→L4", // raised by an argument rule
		"call/c-1/delete_repository":    "L5",
		"definition//get_weather":       "L3",
		"result/r-51/fetch_url":         "L1",
		"definition//delete_repository": "L5",
	} {
		if byCall[key] != want {
			t.Errorf("%s: levelShown %q, want %q", key, byCall[key], want)
		}
	}
	for _, format := range []string{"json", "yaml"} {
		var buf bytes.Buffer
		list, err := reportList(PendingItems(fixturePins(t)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := genericclioptions.NewPrintFlags("").WithDefaultOutput(format).ToPrinter()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.PrintObj(list, &buf); err != nil {
			t.Fatal(err)
		}
		for _, want := range map[string][]string{
			"json": {`"kind": "List"`, `"levelShown": "L5→L4"`, `"callID": "c-7f3a"`, `"levelShown": "L1→L4"`},
			"yaml": {"kind: List", "levelShown: L5→L4", "callID: c-7f3a", "callLevel: L4"},
		}[format] {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("-o %s lacks %q:\n%s", format, want, buf.String())
			}
		}
	}
}

// TestPendingChanges: --watch prints an item again when what a reviewer
// sees of it changes, and once as gone when it stops waiting.
func TestPendingChanges(t *testing.T) {
	pins := fixturePins(t)
	before := PendingItems(pins[3:4]) // c-1 and c-2
	approvedMore := pins[3].DeepCopy()
	approvedMore.Status.Decisions = append(approvedMore.Status.Decisions, toolgatev1alpha1.Decision{Action: toolgatev1alpha1.DecisionApprove,
		Fingerprint: approvedMore.Status.PendingCalls[1].Fingerprint, CallID: "c-2", User: "bob"})
	changed, gone := PendingChanges(before, PendingItems([]toolgatev1alpha1.ToolPin{*approvedMore}))
	if len(changed) != 1 || changed[0].CallID != "c-2" || changed[0].Approvals != 1 || len(gone) != 0 {
		t.Errorf("an approval of c-2: changed %+v, gone %+v", changed, gone)
	}
	resolved := pins[3].DeepCopy()
	resolved.Status.PendingCalls = resolved.Status.PendingCalls[1:]
	changed, gone = PendingChanges(before, PendingItems([]toolgatev1alpha1.ToolPin{*resolved}))
	if len(changed) != 0 || len(gone) != 1 || gone[0].CallID != "c-1" {
		t.Errorf("c-1 resolved: changed %+v, gone %+v", changed, gone)
	}
	if changed, gone := PendingChanges(before, before); len(changed)+len(gone) != 0 {
		t.Errorf("nothing changed: %+v %+v", changed, gone)
	}
	changed, _ = PendingChanges(nil, before)
	if len(changed) != 2 {
		t.Errorf("a new pin: %+v", changed)
	}
	var buf bytes.Buffer
	WritePendingRows(&buf, gone, PendingTableOptions{NoHeaders: true, Gone: true}, fixtureNow)
	if got := buf.String(); strings.Contains(got, "PIN") || !strings.Contains(got, "call c-1") || !strings.Contains(got, "no longer pending") {
		t.Errorf("a gone row: %q", got)
	}
}

// TestWatchRowsLineUp: the rows --watch prints after the table keep its
// columns, widening one only where a cell needs it.
func TestWatchRowsLineUp(t *testing.T) {
	var buf bytes.Buffer
	var widths []int
	writeColumns(&buf, [][]string{{"PIN", "KIND", "WHAT"}, {"a-long-pin", "call c-1", "args {}"}}, &widths)
	writeColumns(&buf, [][]string{{"b", "definition", "new tool"}}, &widths)
	want := "PIN         KIND      WHAT\n" +
		"a-long-pin  call c-1  args {}\n" +
		"b           definition  new tool\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	writeColumns(&buf, [][]string{{"c", "call c-2", "x"}}, &widths)
	if got := buf.String(); got != "c           call c-2    x\n" {
		t.Errorf("a later row under the widened column: %q", got)
	}
}
