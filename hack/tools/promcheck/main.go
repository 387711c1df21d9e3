// Command promcheck checks Prometheus rules and PromQL expressions the way
// promtool check rules does, with Prometheus' own rule-file parser
// (model/rulefmt) and PromQL parser, and says which metrics each
// expression reads. It lives in a module of its own so that Prometheus'
// dependencies never enter the project's go.mod; the chart's tests run it.
//
//	promcheck -rules FILE [-exprs FILE]
//
// -rules is a rule file (groups:, as a PrometheusRule's spec holds), checked
// whole: YAML, expressions, durations, label and annotation templates, and
// no two rules alike. -exprs is a JSON array of further expressions (a
// dashboard's). On success it prints a JSON object mapping every
// expression, the rules' and the others', to the metric names it reads,
// and exits 0; otherwise it prints every error and exits 1.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("promcheck", flag.ContinueOnError)
	rulesFile := fs.String("rules", "", "a Prometheus rule file")
	exprsFile := fs.String("exprs", "", "a JSON array of PromQL expressions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	p := parser.NewParser(parser.Options{})
	var exprs []string
	var errs []error
	if *rulesFile != "" {
		groups, perrs := rulefmt.ParseFile(*rulesFile, false, model.UTF8Validation, p, slog.New(slog.DiscardHandler))
		errs = append(errs, perrs...)
		if groups != nil {
			errs = append(errs, duplicates(groups)...)
			for _, g := range groups.Groups {
				for _, r := range g.Rules {
					exprs = append(exprs, r.Expr)
				}
			}
		}
	}
	if *exprsFile != "" {
		raw, err := os.ReadFile(*exprsFile)
		if err != nil {
			return err
		}
		var more []string
		if err := json.Unmarshal(raw, &more); err != nil {
			return fmt.Errorf("%s: %w", *exprsFile, err)
		}
		exprs = append(exprs, more...)
	}
	names := map[string][]string{}
	for _, e := range exprs {
		n, err := metricNames(p, e)
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %w", e, err))
			continue
		}
		names[e] = n
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(names)
}

// metricNames are the metric names the selectors of expr read, sorted.
func metricNames(p parser.Parser, expr string) ([]string, error) {
	node, err := p.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	var unnamed error
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		if vs.Name == "" {
			unnamed = fmt.Errorf("the selector %s names no metric", vs)
			return nil
		}
		if !slices.Contains(names, vs.Name) {
			names = append(names, vs.Name)
		}
		return nil
	})
	slices.Sort(names)
	return names, unnamed
}

// duplicates refuses two rules of one group alike (the same record or
// alert, expression and labels), as promtool's lint does.
func duplicates(groups *rulefmt.RuleGroups) []error {
	var errs []error
	for _, g := range groups.Groups {
		seen := map[string]bool{}
		for _, r := range g.Rules {
			labels, _ := json.Marshal(r.Labels)
			key := r.Record + "\x00" + r.Alert + "\x00" + r.Expr + "\x00" + string(labels)
			if seen[key] {
				errs = append(errs, fmt.Errorf("group %s: the rule %s%s appears twice", g.Name, r.Record, r.Alert))
			}
			seen[key] = true
		}
	}
	return errs
}
