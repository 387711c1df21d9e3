package offline

import (
	"flag"
	"fmt"
	"io"
)

// parseInterspersed parses fs's flags wherever they stand among args, as
// kubectl and most command lines do: `score FILE --max-level L3` means what
// `score --max-level L3 FILE` means. The standard library's flag package
// stops at the first argument that is not a flag, so a flag after a file
// would otherwise be read as a second file. A "--" still ends the flags:
// everything after it is an argument. Afterwards fs.Args() holds the
// arguments alone, in their order.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Parsing "--" and the arguments sets no flag and leaves fs.Args() the
	// arguments, so the commands read them as before.
	return fs.Parse(append([]string{"--"}, positional...))
}

// printFlags writes fs's flags as kubectl's help does — `--name type`
// with the meaning beside it, one-letter flags with a single dash — rather
// than the flag package's single-dash style with every meaning on a line
// of its own, so that the offline verbs read like the plugin's others.
func printFlags(fs *flag.FlagSet, w io.Writer) {
	type row struct{ name, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		name := "    --" + f.Name
		if len(f.Name) == 1 {
			name = "-" + f.Name
		}
		if typ != "" {
			name += " " + typ
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			def := f.DefValue
			if typ == "string" {
				def = fmt.Sprintf("%q", def)
			}
			usage += " (default " + def + ")"
		}
		rows = append(rows, row{name, usage})
		width = max(width, len(name))
	})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s   %s\n", width, r.name, r.usage)
	}
}
