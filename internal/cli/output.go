package cli

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// outputFlags are the listing verbs' -o, as kubectl get has it: the table
// (default), wide, and every format of kubectl's printers — json, yaml,
// name, jsonpath, go-template and the rest.
type outputFlags struct {
	print *genericclioptions.PrintFlags
}

func addOutputFlags(cmd *cobra.Command) *outputFlags {
	f := &outputFlags{print: genericclioptions.NewPrintFlags("").WithTypeSetter(scheme)}
	f.print.AddFlags(cmd)
	cmd.Flags().Lookup("output").Usage = "Output format: wide, or one of kubectl's: json, yaml, name, jsonpath=…, go-template=… (default: a table)."
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return append([]string{"wide"}, f.print.AllowedFormats()...), cobra.ShellCompDirectiveNoFileComp
	})
	return f
}

// table reports whether the output is a table, and whether wide.
func (f *outputFlags) table() (table, wide bool) {
	switch *f.print.OutputFormat {
	case "":
		return true, false
	case "wide":
		return true, true
	}
	return false, false
}

// printer is kubectl's printer for the format asked; a format it does not
// know is a usage error.
func (f *outputFlags) printer() (printers.ResourcePrinter, error) {
	p, err := f.print.ToPrinter()
	if err != nil {
		return nil, usageError("%v", err)
	}
	return p, nil
}

// objectList wraps objects as kubectl does when it prints what it listed:
// a v1 List whose items carry their apiVersion and kind.
func objectList(objs []k8sruntime.Object) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}}
	for _, obj := range objs {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return nil, err
		}
		m, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u := unstructured.Unstructured{Object: m}
		u.SetGroupVersionKind(gvk)
		list.Items = append(list.Items, u)
	}
	return list, nil
}

// reportList wraps report items that are not API objects (pending's) as
// a v1 List, for the JSON, YAML and template printers: `-o json` keeps
// the {"items": [...]} shape, and jsonpath reads it as kubectl's lists.
func reportList[T any](items []T) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}}
	for _, it := range items {
		data, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		list.Items = append(list.Items, unstructured.Unstructured{Object: m})
	}
	return list, nil
}

// printList prints list with p, or fails with a message naming what.
func printList(p printers.ResourcePrinter, list k8sruntime.Object, w io.Writer, what string) error {
	if err := p.PrintObj(list, w); err != nil {
		return failed("printing %s: %w", what, err)
	}
	return nil
}

// namesOnly reports whether the format is -o name.
func (f *outputFlags) namesOnly() bool { return *f.print.OutputFormat == "name" }
