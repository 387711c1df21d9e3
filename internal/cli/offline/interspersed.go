package offline

import "flag"

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
