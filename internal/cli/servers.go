package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// ConditionSummary is one condition of an object, as the tables read it.
type ConditionSummary struct {
	Status  metav1.ConditionStatus `json:"status"`
	Reason  string                 `json:"reason"`
	Message string                 `json:"message,omitempty"`
}

func summarise(conds []metav1.Condition, condType string) *ConditionSummary {
	c := meta.FindStatusCondition(conds, condType)
	if c == nil {
		return nil
	}
	return &ConditionSummary{Status: c.Status, Reason: c.Reason, Message: c.Message}
}

// ServersReport gathers ServerItems.
type ServersReport struct {
	Items []ServerItem `json:"items"`
}

// ServerItem is one MCPServer: whether its tools reach agents, and whether
// agents could call it without their gate.
type ServerItem struct {
	Namespace    string `json:"namespace"`
	Name         string `json:"name"`
	Tools        int32  `json:"tools"`
	HighestLevel string `json:"highestLevel,omitempty"`
	// Ready and GateBypassable are the server's conditions; nil when the
	// operator has not set them yet.
	Ready          *ConditionSummary `json:"ready,omitempty"`
	GateBypassable *ConditionSummary `json:"gateBypassable,omitempty"`
}

// ServerItems summarises servers, sorted by namespace and name.
func ServerItems(servers []toolgatev1alpha1.MCPServer) []ServerItem {
	items := make([]ServerItem, 0, len(servers))
	for i := range servers {
		s := &servers[i]
		items = append(items, ServerItem{
			Namespace: s.Namespace, Name: s.Name, Tools: s.Status.ToolCount, HighestLevel: string(s.Status.HighestLevel),
			Ready:          summarise(s.Status.Conditions, toolgatev1alpha1.ConditionReady),
			GateBypassable: summarise(s.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable),
		})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Namespace != items[j].Namespace {
			return items[i].Namespace < items[j].Namespace
		}
		return items[i].Name < items[j].Name
	})
	return items
}

// bypassCell is the BYPASSABLE column: the condition's status in words,
// with its reason.
func bypassCell(c *ConditionSummary) string {
	if c == nil {
		return "not checked yet"
	}
	word := map[metav1.ConditionStatus]string{metav1.ConditionTrue: "YES", metav1.ConditionFalse: "no", metav1.ConditionUnknown: "unknown"}[c.Status]
	return fmt.Sprintf("%s (%s)", orDash(word), c.Reason)
}

func conditionCell(c *ConditionSummary) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%s)", c.Status, c.Reason)
}

// writeBypassNotes follows a table with what to do about each row whose
// gate can be walked around, or might be: the condition's whole message,
// which the table has no room for.
func writeBypassNotes(w io.Writer, notes [][2]string) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintln(w, "\nGate bypass:")
	for _, n := range notes {
		fmt.Fprintf(w, "  %s: %s\n", n[0], oneLine(n[1]))
	}
}

// WriteServersTable renders servers for people: a table, then the message
// of every server agents could call without their gate, or might.
func WriteServersTable(w io.Writer, items []ServerItem, allNamespaces bool) {
	if len(items) == 0 {
		fmt.Fprintln(w, "no MCPServers")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if allNamespaces {
		fmt.Fprint(tw, "NAMESPACE\t")
	}
	fmt.Fprintln(tw, "NAME\tREADY\tTOOLS\tHIGHEST\tBYPASSABLE")
	var notes [][2]string
	for _, it := range items {
		if allNamespaces {
			fmt.Fprintf(tw, "%s\t", it.Namespace)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", it.Name, conditionCell(it.Ready), it.Tools, orDash(it.HighestLevel), bypassCell(it.GateBypassable))
		if c := it.GateBypassable; c != nil && c.Status != metav1.ConditionFalse {
			notes = append(notes, [2]string{it.Namespace + "/" + it.Name, c.Message})
		}
	}
	tw.Flush()
	writeBypassNotes(w, notes)
}

// PoliciesReport gathers PolicyItems.
type PoliciesReport struct {
	Items []PolicyItem `json:"items"`
}

// PolicyItem is one ToolPolicy: what it exposes, and whether its agents
// could call a server it references without their gates.
type PolicyItem struct {
	Namespace      string            `json:"namespace"`
	Name           string            `json:"name"`
	Mode           string            `json:"mode,omitempty"`
	Ceiling        string            `json:"ceiling,omitempty"`
	Exposed        int32             `json:"exposed"`
	ApprovalGated  int32             `json:"approvalGated"`
	Withheld       int32             `json:"withheld"`
	Ready          *ConditionSummary `json:"ready,omitempty"`
	GateBypassable *ConditionSummary `json:"gateBypassable,omitempty"`
}

// PolicyItems summarises policies, sorted by namespace and name.
func PolicyItems(policies []toolgatev1alpha1.ToolPolicy) []PolicyItem {
	items := make([]PolicyItem, 0, len(policies))
	for i := range policies {
		p := &policies[i]
		items = append(items, PolicyItem{
			Namespace: p.Namespace, Name: p.Name, Mode: string(p.Spec.Mode), Ceiling: string(p.Status.Ceiling),
			Exposed: p.Status.Exposed, ApprovalGated: p.Status.ApprovalGated, Withheld: p.Status.Withheld,
			Ready:          summarise(p.Status.Conditions, toolgatev1alpha1.ConditionReady),
			GateBypassable: summarise(p.Status.Conditions, toolgatev1alpha1.ConditionGateBypassable),
		})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Namespace != items[j].Namespace {
			return items[i].Namespace < items[j].Namespace
		}
		return items[i].Name < items[j].Name
	})
	return items
}

// WritePoliciesTable renders policies for people: a table, then the
// message of every policy whose agents could call a server around their
// gates, or might.
func WritePoliciesTable(w io.Writer, items []PolicyItem, allNamespaces bool) {
	if len(items) == 0 {
		fmt.Fprintln(w, "no ToolPolicies")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if allNamespaces {
		fmt.Fprint(tw, "NAMESPACE\t")
	}
	fmt.Fprintln(tw, "NAME\tREADY\tMODE\tCEILING\tEXPOSED\tGATED\tWITHHELD\tBYPASSABLE")
	var notes [][2]string
	for _, it := range items {
		if allNamespaces {
			fmt.Fprintf(tw, "%s\t", it.Namespace)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", it.Name, conditionCell(it.Ready), orDash(it.Mode), orDash(it.Ceiling),
			it.Exposed, it.ApprovalGated, it.Withheld, bypassCell(it.GateBypassable))
		if c := it.GateBypassable; c != nil && c.Status != metav1.ConditionFalse {
			notes = append(notes, [2]string{it.Namespace + "/" + it.Name, c.Message})
		}
	}
	tw.Flush()
	writeBypassNotes(w, notes)
}

type listOptions struct {
	*options
	name          string
	out           *outputFlags
	allNamespaces bool
}

// newListCommand returns `servers` or `policies`: list the kind in a
// namespace or all, then render the table, or print the objects as
// kubectl get does.
func newListCommand(o *options, name string) *cobra.Command {
	l := &listOptions{options: o, name: name}
	short := map[string]string{
		"servers":  "List MCPServers: ready or not, their tools, and whether agents could call them without their gate",
		"policies": "List ToolPolicies: what they expose, and whether their agents could call a referenced server without their gates",
	}[name]
	cmd := &cobra.Command{
		Use:   name + " [-n NAMESPACE | -A] [-o wide|json|yaml|name]",
		Short: short,
		Long: short + ` (the GateBypassable condition).

The table says it in a line each, then the message of every one agents could call around
the gate, or might. -o json, yaml, name, jsonpath and go-template print the objects
themselves, as kubectl get does.`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return l.run(cmd.Context())
		},
	}
	l.out = addOutputFlags(cmd)
	cmd.Flags().BoolVarP(&l.allNamespaces, "all-namespaces", "A", false, "List across every namespace.")
	return cmd
}

func (l *listOptions) run(ctx context.Context) error {
	table, _ := l.out.table()
	var printer printers.ResourcePrinter
	if !table {
		var err error
		if printer, err = l.out.printer(); err != nil {
			return err
		}
	}
	c, ns, err := l.client()
	if err != nil {
		return failed("%w", err)
	}
	opts := []client.ListOption{client.Limit(listPageSize)}
	where := "namespace " + ns
	if l.allNamespaces {
		where = "any namespace"
	} else {
		opts = append(opts, client.InNamespace(ns))
	}
	var objs []k8sruntime.Object
	var writeTable func()
	switch l.name {
	case "servers":
		var all []toolgatev1alpha1.MCPServer
		for cont := ""; ; {
			var list toolgatev1alpha1.MCPServerList
			if err := c.List(ctx, &list, append(opts, client.Continue(cont))...); err != nil {
				return failed("listing mcpservers in %s: %w", where, err)
			}
			all = append(all, list.Items...)
			if cont = list.Continue; cont == "" {
				break
			}
		}
		for i := range all {
			objs = append(objs, &all[i])
		}
		writeTable = func() { WriteServersTable(l.streams.Out, ServerItems(all), l.allNamespaces) }
	default:
		var all []toolgatev1alpha1.ToolPolicy
		for cont := ""; ; {
			var list toolgatev1alpha1.ToolPolicyList
			if err := c.List(ctx, &list, append(opts, client.Continue(cont))...); err != nil {
				return failed("listing toolpolicies in %s: %w", where, err)
			}
			all = append(all, list.Items...)
			if cont = list.Continue; cont == "" {
				break
			}
		}
		for i := range all {
			objs = append(objs, &all[i])
		}
		writeTable = func() { WritePoliciesTable(l.streams.Out, PolicyItems(all), l.allNamespaces) }
	}
	if table {
		writeTable()
		return nil
	}
	list, err := objectList(objs)
	if err != nil {
		return failed("%w", err)
	}
	return printList(printer, list, l.streams.Out, l.name)
}
