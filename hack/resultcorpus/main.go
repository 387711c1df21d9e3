package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	out := flag.String("o", "", "write the corpus to this file (default: standard output)")
	counts := flag.Bool("counts", false, "print the counts per kind, class, language and size as Markdown tables instead of the corpus")
	flag.Parse()
	if err := run(*out, *counts, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "resultcorpus: %v\n", err)
		os.Exit(1)
	}
}

func run(out string, counts bool, stdout io.Writer) error {
	items, err := build()
	if err != nil {
		return err
	}
	if counts {
		_, err := io.WriteString(stdout, countTables(items))
		return err
	}
	data, err := encode(items)
	if err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(data)
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// sizeBands are the ranges the counts report, in bytes: the corpus's
// requirements speak of items above 4 KB and above 12 KB.
var sizeBands = []struct {
	name string
	max  int
}{
	{"< 1 KB", 1024},
	{"1–4 KB", 4096},
	{"4–12 KB", 12288},
	{"12–20 KB", 20480},
}

func sizeBand(n int) string {
	for _, b := range sizeBands {
		if n <= b.max {
			return b.name
		}
	}
	return "> 20 KB"
}

// countTables renders the counts the README shows: per class, per
// language and per size band, attacks and benign items side by side.
func countTables(items []item) string {
	var b strings.Builder
	table := func(title string, key func(item) string, order []string) {
		c := map[string]map[string]int{}
		for _, it := range items {
			k := key(it)
			if c[k] == nil {
				c[k] = map[string]int{}
			}
			c[k][it.Kind]++
		}
		keys := order
		if keys == nil {
			for k := range c {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool {
				ti, tj := c[keys[i]]["attack"]+c[keys[i]]["benign"], c[keys[j]]["attack"]+c[keys[j]]["benign"]
				if ti != tj {
					return ti > tj
				}
				return keys[i] < keys[j]
			})
		}
		fmt.Fprintf(&b, "| %s | attack | benign |\n|---|---:|---:|\n", title)
		for _, k := range keys {
			a, n := c[k]["attack"], c[k]["benign"]
			fmt.Fprintf(&b, "| %s | %s | %s |\n", k, dash(a), dash(n))
		}
		b.WriteString("\n")
	}
	total := map[string]int{}
	for _, it := range items {
		total[it.Kind]++
	}
	fmt.Fprintf(&b, "%d attacks, %d benign items.\n\n", total["attack"], total["benign"])
	for _, kind := range []string{"attack", "benign"} {
		var classes []string
		n := map[string]int{}
		langs := map[string]map[string]bool{}
		for _, it := range items {
			if it.Kind != kind {
				continue
			}
			if n[it.Class] == 0 {
				classes = append(classes, it.Class)
				langs[it.Class] = map[string]bool{}
			}
			n[it.Class]++
			langs[it.Class][it.Lang] = true
		}
		fmt.Fprintf(&b, "| %s class | items | languages |\n|---|---:|---:|\n", kind)
		for _, c := range classes {
			fmt.Fprintf(&b, "| %s | %d | %d |\n", c, n[c], len(langs[c]))
		}
		b.WriteString("\n")
	}
	table("language", func(it item) string { return it.Lang }, nil)
	table("carrier", func(it item) string { return it.Carrier }, nil)
	var bandNames []string
	for _, sb := range sizeBands {
		bandNames = append(bandNames, sb.name)
	}
	table("size", func(it item) string { return sizeBand(it.size()) }, bandNames)
	return strings.TrimSuffix(b.String(), "\n")
}

func dash(n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprint(n)
}
