package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

// completionTimeout bounds the API request a completion makes: a shell
// waits for it at every Tab.
const completionTimeout = 5 * time.Second

// completePins completes the first argument with the names of the pins in
// the namespace the flags name, as kubectl completes resource names. One
// list, of metadata only: the pins' definitions are large.
func completePins(o *options) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, ns, err := o.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(contextOf(cmd), completionTimeout)
		defer cancel()
		var list metav1.PartialObjectMetadataList
		list.SetGroupVersionKind(toolgatev1alpha1.GroupVersion.WithKind("ToolPinList"))
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		var names []string
		for _, p := range list.Items {
			if strings.HasPrefix(p.Name, toComplete) {
				names = append(names, p.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeCalls completes --call with the ids of the pin's pending calls
// and held results, those held results only for release and drop.
func completeCalls(o *options, resultsOnly bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) != 1 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, ns, err := o.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(contextOf(cmd), completionTimeout)
		defer cancel()
		var pin toolgatev1alpha1.ToolPin
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: args[0]}, &pin); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
		}
		var ids []string
		for _, call := range pin.Status.PendingCalls {
			if resultsOnly && call.Kind != toolgatev1alpha1.CallKindResult {
				continue
			}
			if strings.HasPrefix(call.ID, toComplete) {
				ids = append(ids, call.ID+"\t"+pendingCallSummary(call))
			}
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

// pendingCallSummary describes a held call or result in a completion's
// description: what it is and its arguments, clipped and escaped.
func pendingCallSummary(call toolgatev1alpha1.PendingCall) string {
	if call.Kind == toolgatev1alpha1.CallKindResult {
		return clipRunes("held result, digest "+call.ResultDigest.Short(), 60)
	}
	return clipRunes("held call, args "+oneLine(call.Arguments), 60)
}

func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
