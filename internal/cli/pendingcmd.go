package cli

import (
	"context"
	"io"
	"slices"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// listPageSize bounds one page of pins: a pin can carry two definitions of
// up to 256 KiB, and only what is pending is kept from each page.
const listPageSize = 100

type pendingOptions struct {
	*options
	out           *outputFlags
	allNamespaces bool
	watch         bool
}

func newPendingCommand(o *options) *cobra.Command {
	p := &pendingOptions{options: o}
	cmd := &cobra.Command{
		Use:   "pending [-n NAMESPACE | -A] [-o wide|json|yaml|name] [-w]",
		Short: "List the definitions awaiting review, the calls awaiting approval and the results held for release",
		Long: `List what awaits a person's decision: ToolPins whose observed definition awaits review,
calls a gate holds for approval, and results a gate holds because its scan found something.

LEVEL is the level a reviewer decides on: the tool's applied level, then the level a held
call's arguments raised it to (L1→L4), or else the tool's effective level when every call
waits for approval (L5→L4). -o wide adds the fingerprint a decision names, what held each
call and the rule, and gives WHY whole; -o json and yaml carry every field, levelShown
among them.

With --watch, print the table, then a row each time an item appears, changes or stops
waiting, until interrupted (Ctrl-C, exit 0).`,
		Example: `  kubectl toolgate pending -A
  kubectl toolgate pending -n tools -o wide
  kubectl toolgate pending -A -o jsonpath='{range .items[*]}{.pin} {.callID}{"\n"}{end}'
  kubectl toolgate pending -n tools --watch`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return p.run(cmd.Context())
		},
	}
	p.out = addOutputFlags(cmd)
	cmd.Flags().BoolVarP(&p.allNamespaces, "all-namespaces", "A", false, "List across every namespace.")
	cmd.Flags().BoolVarP(&p.watch, "watch", "w", false, "After listing, print a row as each item appears, changes or stops waiting, until interrupted.")
	return cmd
}

func (p *pendingOptions) run(ctx context.Context) error {
	table, wide := p.out.table()
	var printer printers.ResourcePrinter
	if !table {
		var err error
		if printer, err = p.out.printer(); err != nil {
			return err
		}
	}
	c, ns, err := p.client()
	if err != nil {
		return failed("%w", err)
	}
	opts := []client.ListOption{client.Limit(listPageSize)}
	where := "namespace " + ns
	if p.allNamespaces {
		where = "any namespace"
	} else {
		opts = append(opts, client.InNamespace(ns))
	}
	var pins []toolgatev1alpha1.ToolPin
	var resourceVersion string
	for cont := ""; ; {
		var list toolgatev1alpha1.ToolPinList
		if err := c.List(ctx, &list, append(opts, client.Continue(cont))...); err != nil {
			return failed("listing toolpins in %s: %w", where, err)
		}
		// Only what is pending is kept from each page.
		for i := range list.Items {
			if len(PendingItems(list.Items[i:i+1])) > 0 {
				pins = append(pins, list.Items[i])
			}
		}
		resourceVersion = list.ResourceVersion
		if cont = list.Continue; cont == "" {
			break
		}
	}
	items := PendingItems(pins)
	w := p.streams.Out
	tableOpts := PendingTableOptions{AllNamespaces: p.allNamespaces, Wide: wide}
	// The columns' widths, kept so that the rows --watch prints line up
	// under the table.
	var widths []int
	switch {
	case table && len(items) == 0:
		WritePendingRows(w, items, tableOpts, p.now())
		if p.watch {
			// The header, for the rows to come.
			o := tableOpts
			writeColumns(w, pendingRows(nil, o, p.now()), &widths)
		}
	case table:
		writeColumns(w, pendingRows(items, tableOpts, p.now()), &widths)
	default:
		if err := p.print(printer, items, w); err != nil {
			return err
		}
	}
	if !p.watch {
		return nil
	}
	return p.watchPins(ctx, ns, resourceVersion, pins, func(rows []PendingItem, gone bool) error {
		if !table {
			if gone {
				// A format for programs prints what is pending now; a
				// pin with nothing left prints nothing.
				return nil
			}
			return p.print(printer, rows, w)
		}
		o := tableOpts
		o.NoHeaders, o.Gone = true, gone
		writeColumns(w, pendingRows(rows, o, p.now()), &widths)
		return nil
	})
}

// print prints items in a format for programs: as a v1 List of the
// items, or, for -o name, the pins they are on, which kubectl reads.
func (p *pendingOptions) print(printer printers.ResourcePrinter, items []PendingItem, w io.Writer) error {
	if p.out.namesOnly() {
		var objs []k8sruntime.Object
		seen := map[string]bool{}
		for _, it := range items {
			if key := it.Namespace + "/" + it.Pin; !seen[key] {
				seen[key] = true
				objs = append(objs, &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: it.Namespace, Name: it.Pin}})
			}
		}
		list, err := objectList(objs)
		if err != nil {
			return failed("%w", err)
		}
		return printList(printer, list, w, "the pins")
	}
	list, err := reportList(items)
	if err != nil {
		return failed("%w", err)
	}
	return printList(printer, list, w, "the pending items")
}

// watchPins watches the pins from resourceVersion and calls emit with the
// items of a pin that appeared or changed, and, marked gone, the items it
// no longer has. It returns nil when ctx ends (an interrupt), and an error
// when the watch cannot go on.
func (p *pendingOptions) watchPins(ctx context.Context, ns, resourceVersion string, pins []toolgatev1alpha1.ToolPin,
	emit func(items []PendingItem, gone bool) error) error {
	cfg, err := p.restConfig()
	if err != nil {
		return failed("%w", err)
	}
	// A watch is meant to outlive a request's bound: the server ends it
	// after its own timeout, and the retry watcher resumes where it was.
	cfg.Timeout = 0
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return failed("connecting to the API server: %w", err)
	}
	listOpts := &client.ListOptions{}
	if !p.allNamespaces {
		listOpts.Namespace = ns
	}
	lw := &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, raw metav1.ListOptions) (watch.Interface, error) {
			o := *listOpts
			o.Raw = &raw
			return wc.Watch(ctx, &toolgatev1alpha1.ToolPinList{}, &o)
		},
	}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, lw)
	if err != nil {
		return failed("watching toolpins: %w", err)
	}
	defer rw.Stop()
	last := map[string][]PendingItem{}
	for i := range pins {
		last[pins[i].Namespace+"/"+pins[i].Name] = PendingItems(pins[i : i+1])
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-rw.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return failed("the watch of toolpins ended")
			}
			switch ev.Type {
			case watch.Error:
				err := apierrors.FromObject(ev.Object)
				return failed("watching toolpins: %w", err)
			case watch.Bookmark:
				continue
			}
			pin, ok := ev.Object.(*toolgatev1alpha1.ToolPin)
			if !ok {
				continue
			}
			key := pin.Namespace + "/" + pin.Name
			var now []PendingItem
			if ev.Type != watch.Deleted {
				now = PendingItems([]toolgatev1alpha1.ToolPin{*pin})
			}
			changed, gone := PendingChanges(last[key], now)
			last[key] = now
			if len(now) == 0 {
				delete(last, key)
			}
			if len(gone) > 0 {
				if err := emit(gone, true); err != nil {
					return err
				}
			}
			if len(changed) > 0 {
				if err := emit(changed, false); err != nil {
					return err
				}
			}
		}
	}
}

// PendingChanges compares one pin's pending items before and after a
// change: the items new or different (their approvals, fingerprint or
// why they wait), and the items no longer there. The age alone never
// counts as a change.
func PendingChanges(before, after []PendingItem) (changed, gone []PendingItem) {
	key := func(it PendingItem) string { return it.Kind + "/" + it.CallID }
	old := map[string]PendingItem{}
	for _, it := range before {
		old[key(it)] = it
	}
	for _, it := range after {
		prev, ok := old[key(it)]
		delete(old, key(it))
		if !ok || !samePending(prev, it) {
			changed = append(changed, it)
		}
	}
	for _, it := range before {
		if _, ok := old[key(it)]; ok {
			gone = append(gone, it)
		}
	}
	return changed, gone
}

// samePending compares what the table shows of an item, but its age.
func samePending(a, b PendingItem) bool {
	return a.Fingerprint == b.Fingerprint && a.Approvals == b.Approvals && a.Needed == b.Needed && a.LevelShown == b.LevelShown &&
		a.Reason == b.Reason && slices.Equal(a.Kinds, b.Kinds) && slices.Equal(a.Details, b.Details) &&
		a.ArgumentsDigest == b.ArgumentsDigest && a.ResultDigest == b.ResultDigest && a.HeldBy == b.HeldBy && a.Rule == b.Rule &&
		timeEqual(a.Expiry, b.Expiry)
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}
