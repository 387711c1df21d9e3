package argfloor

import "bytes"

// commandLine cuts a command line into arguments as a POSIX shell would —
// quotes group, a backslash escapes, ; | & ( ) < > and new lines end an
// argument — and judges each. A quoted phrase is one argument, so a
// commit message that mentions --force is not a --force.
func (e *evaluator) commandLine(s []byte) {
	arg := e.arg[:0]
	started := false
	flush := func() {
		if started {
			e.commandArg(arg)
		}
		arg, started = arg[:0], false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r', ';', '|', '&', '(', ')', '<', '>':
			flush()
		case '\'':
			started = true
			j := bytes.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			arg = append(arg, s[i+1:i+1+j]...)
			i += j + 1
		case '"':
			started = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && bytes.IndexByte([]byte("\"\\$`\n"), s[i+1]) >= 0 {
					i++
				}
				arg = append(arg, s[i])
			}
		case '\\':
			started = true
			if i+1 < len(s) {
				i++
				arg = append(arg, s[i])
			}
		default:
			started = true
			arg = append(arg, c)
		}
	}
	flush()
	e.arg = arg
}

// commandArg judges one argument of a command line: a long option by the
// words of its name, as a flag parameter is judged (--force,
// --force-with-lease, --no-verify, --all-namespaces, --recursive, --hard,
// --auto-approve), and the short options whose meaning command-line tools
// share: -A (all namespaces), -R (recursive), and -r with -f in one
// cluster (rm -rf). A lone -f is not judged: it names a file as often as
// it forces (kubectl apply -f, tail -f); nor is -y, which answers yes in
// package managers and means other things elsewhere.
func (e *evaluator) commandArg(arg []byte) {
	if len(arg) < 2 || arg[0] != '-' {
		return
	}
	if arg[1] == '-' {
		e.longOption(arg, arg[2:])
		return
	}
	// One dash before a word is a long option in Go's flag package,
	// terraform and PowerShell: -auto-approve, -Recurse, -Confirm:$false.
	if name := optionName(arg[1:]); len(name) >= 3 && classifyFlag(splitWords(string(name)), "", true).kind != flagNone {
		e.longOption(arg, arg[1:])
		return
	}
	cluster := arg[1:]
	if len(cluster) > 6 {
		return
	}
	r, recursive, force := false, false, false
	for _, c := range cluster {
		switch {
		case c == 'R':
			recursive = true
		case c == 'r':
			r = true
		case c == 'f':
			force = true
		case !isLower(c) && !isUpper(c):
			return // -1, -n5: a number, not options
		}
	}
	switch {
	case (r || recursive) && force:
		e.flagSet(flagForce, quoteValue(arg))
	case recursive, string(cluster) == "A":
		e.flagSet(flagReach, quoteValue(arg))
	}
}

// optionName is the name part of an option: before = or :.
func optionName(option []byte) []byte {
	if i := bytes.IndexAny(option, "=:"); i >= 0 {
		return option[:i]
	}
	return option
}

// longOption judges a named option: --name, --name=value, -Name:value.
func (e *evaluator) longOption(arg, option []byte) {
	name, value := optionName(option), []byte(nil)
	if len(name) < len(option) {
		value = bytes.TrimPrefix(option[len(name)+1:], []byte("$"))
	}
	if len(name) == 0 {
		return // "--" ends the options
	}
	v, known := true, true
	if value != nil {
		v, known = truth(value)
	}
	e.option(string(name), v, known, quoteValue(arg))
}
