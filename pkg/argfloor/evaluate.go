package argfloor

import (
	"bytes"
	"errors"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/pkg/namefold"
)

var errShape = errors.New("argfloor: unexpected JSON")

// value reads the next value of the arguments, which n describes. Only
// the parameters the plan names are decoded; everything else is skipped
// as raw bytes.
func (e *evaluator) value(n *node) error {
	switch e.dec.PeekKind() {
	case '{':
		return e.object(n)
	case '[':
		return e.array(n)
	case '"':
		raw, err := e.dec.ReadValue()
		if err != nil {
			return err
		}
		s, err := e.unquote(raw)
		if err != nil {
			return err
		}
		e.stringValue(n, s)
		return nil
	case 't', 'f':
		raw, err := e.dec.ReadValue()
		if err != nil {
			return err
		}
		e.boolValue(n, raw[0] == 't')
		return nil
	case '0':
		raw, err := e.dec.ReadValue()
		if err != nil {
			return err
		}
		if n.roles&roleFlag != 0 {
			// A lenient server reads 1 as true.
			e.boolValue(n, !zeroNumber(raw))
		}
		return nil
	case 'n':
		_, err := e.dec.ReadValue()
		return err
	}
	_, err := e.dec.ReadToken()
	if err == nil {
		err = errShape
	}
	return err
}

func (e *evaluator) object(n *node) error {
	if n.children == nil && n.roles&(roleSelector|roleFlagMap) == 0 {
		return e.dec.SkipValue()
	}
	if _, err := e.dec.ReadToken(); err != nil {
		return err
	}
	members := 0
	for e.dec.PeekKind() != '}' {
		raw, err := e.dec.ReadValue()
		if err != nil {
			return err
		}
		name, err := e.unquote(raw)
		if err != nil {
			return err
		}
		members++
		// Members are matched as a case-insensitive decoder matches them:
		// a server that reads "Force" as force is judged as reading it.
		e.key = namefold.AppendKey(e.key[:0], name)
		child := n.children[string(e.key)]
		switch {
		case child != nil:
			e.path = append(e.path, segment{name: child.name})
			err = e.value(child)
			e.path = e.path[:len(e.path)-1]
		case n.roles&roleFlagMap != 0:
			err = e.flagMember(string(name))
		default:
			err = e.dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	if _, err := e.dec.ReadToken(); err != nil {
		return err
	}
	if members == 0 && n.roles&roleSelector != 0 {
		e.emptySelector("{}")
	}
	return nil
}

func (e *evaluator) array(n *node) error {
	if n.items == nil && n.roles&roleSelector == 0 {
		return e.dec.SkipValue()
	}
	if _, err := e.dec.ReadToken(); err != nil {
		return err
	}
	i := 0
	for e.dec.PeekKind() != ']' {
		var err error
		if n.items != nil {
			e.path = append(e.path, segment{index: i})
			err = e.value(n.items)
			e.path = e.path[:len(e.path)-1]
		} else {
			err = e.dec.SkipValue()
		}
		if err != nil {
			return err
		}
		i++
	}
	if _, err := e.dec.ReadToken(); err != nil {
		return err
	}
	if i == 0 && n.roles&roleSelector != 0 {
		e.emptySelector("[]")
	}
	return nil
}

// unquote returns a string's text; it is valid until the next unquote.
func (e *evaluator) unquote(raw jsontext.Value) ([]byte, error) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], nil
	}
	var err error
	e.unq, err = jsontext.AppendUnquote(e.unq[:0], raw)
	return e.unq, err
}

// A force or a reach raises a call that changes nothing to L3 — it goes
// past a cache or a warning, or reads more than one thing — and a call
// that changes state to L4: it changes state past a check, or everywhere
// at once. Which one a call is is settled when the whole call has been
// read (settle).

func (e *evaluator) boolValue(n *node, v bool) {
	if n.roles&roleFlag == 0 || v != n.flag.unsafe {
		return
	}
	if n.hasDef && n.def == boolText(v) {
		return // the default: what leaving the flag out means
	}
	e.flagSet(n.flag.kind, n.name+"="+boolText(v))
}

// flagSet fires the floor of a flag of kind k that the call sets.
func (e *evaluator) flagSet(k flagKind, detail string) {
	switch k {
	case flagForce:
		e.fire(SignalForce, l3, l4, detail)
	case flagForceWeak:
		e.fire(SignalForce, l3, l3, detail)
	case flagReach:
		e.fire(SignalReach, l3, l4, detail)
	}
}

func (e *evaluator) stringValue(n *node, s []byte) {
	if n.roles&roleOperation != 0 && len(e.path) == 1 {
		e.operation, e.operationRead = true, n.readOperations[string(s)]
	}
	if n.roles&roleFlag != 0 {
		if v, known := truth(s); known {
			e.boolValue(n, v)
		}
	}
	isDefault := n.hasDef && string(s) == n.def
	if n.roles&roleEnumForce != 0 && n.forceValues[string(s)] && !isDefault {
		e.fire(SignalForce, l3, l4, n.name+"="+quoteValue(s))
	}
	if n.roles&roleStatement != 0 {
		if st := e.sql.classify(s); st.level > 0 {
			e.fire(SignalStatement, st.level, st.level, st.label)
		}
	}
	if n.roles&roleCommand != 0 {
		// An element of an argument vector is one argument; a string is
		// a command line, cut into arguments as a shell would.
		if e.inArray() {
			e.commandArg(s)
		} else {
			e.commandLine(s)
		}
	}
	if n.roles&(roleSelector|roleIdentifier|roleSearch) == 0 || isDefault || n.enum[string(s)] {
		return
	}
	if n.saidDefault != "" && bytes.EqualFold(bytes.TrimSpace(s), []byte(n.saidDefault)) {
		return
	}
	switch {
	case wildcard(s):
		e.fire(SignalReach, l3, l4, "wildcard "+quoteValue(s))
	case n.roles&(roleSelector|roleIdentifier) != 0 && everythingWord(s, n.roles&roleSelector != 0):
		e.fire(SignalReach, l3, l4, "everything: "+quoteValue(s))
	case n.roles&roleSelector != 0 && len(bytes.TrimSpace(s)) == 0:
		e.emptySelector(`""`)
	case n.condition && e.sql.tautology(s):
		e.fire(SignalReach, l3, l4, "always true: "+quoteValue(s))
	}
}

// inArray reports whether the value being read is an array's element.
func (e *evaluator) inArray() bool {
	return len(e.path) > 0 && e.path[len(e.path)-1].name == ""
}

// emptySelector fires for a selector sent empty. On a tool that changes
// nothing, an empty filter is what leaving it out means, and listing
// everything is what such a tool is for; on one that changes state, the
// server asked for a filter to narrow the change, and an empty one
// narrows nothing (an empty filter of a delete matches every record).
func (e *evaluator) emptySelector(shown string) {
	e.fire(SignalReach, 0, l4, "empty selector "+shown)
}

// flagMember reads one member of a flag map: its name is the option,
// its value the option's value ({"force": true, "validate": false,
// "all-namespaces": ""}).
func (e *evaluator) flagMember(name string) error {
	value, known := true, true // true, null, "" and {}: the option is given
	switch e.dec.PeekKind() {
	case 'f':
		value = false
	case '"':
		raw, err := e.dec.ReadValue()
		if err != nil {
			return err
		}
		s, err := e.unquote(raw)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(s)) > 0 {
			value, known = truth(s)
		}
		return e.flagMapHit(name, value, known)
	case '0':
		raw, err := e.dec.ReadValue()
		if err != nil {
			return err
		}
		return e.flagMapHit(name, !zeroNumber(raw), true)
	}
	if err := e.dec.SkipValue(); err != nil {
		return err
	}
	return e.flagMapHit(name, value, known)
}

func (e *evaluator) flagMapHit(name string, value, known bool) error {
	e.path = append(e.path, segment{name: name})
	defer func() { e.path = e.path[:len(e.path)-1] }()
	if len(name) > 0 && name[0] == '-' {
		if !known || value {
			e.commandArg([]byte(name))
		}
		return nil
	}
	e.option(name, value, known, name+"="+boolText(value))
	return nil
}

// option judges a named option given in a call rather than declared in
// the schema: a flag map's member or a long command-line option. Set, a
// forcing or widening option fires; turned off, a safety option
// (validate, verify, confirm) skips its check and fires, and any other
// does nothing. A value that is no boolean sets the option.
func (e *evaluator) option(name string, value, known bool, detail string) {
	fc := classifyFlag(splitWords(name), "", true)
	if fc.kind == flagNone {
		return
	}
	if known && value != fc.unsafe || !known && !fc.unsafe {
		return
	}
	e.flagSet(fc.kind, detail)
}

// truth reads a boolean spelt as a string, as lenient servers do.
func truth(s []byte) (value, known bool) {
	s = bytes.TrimSpace(s)
	if len(s) > 5 {
		return false, false
	}
	var lower [5]byte
	for i, c := range s {
		if isUpper(c) {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch string(lower[:len(s)]) {
	case "true", "yes", "y", "on", "1":
		return true, true
	case "false", "no", "n", "off", "0", "none":
		return false, true
	}
	return false, false
}

func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

// zeroNumber reports a JSON number that is zero (0, -0, 0.0, 0e5).
func zeroNumber(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case '0', '-', '+', '.':
		case 'e', 'E':
			return true
		default:
			return false
		}
	}
	return true
}

// wildcard reports a value made only of wildcards and path separators:
// "*", "**", "%", "*.*", "**/*", "/*". Any other character names
// something.
func wildcard(s []byte) bool {
	s = bytes.TrimSpace(s)
	if len(s) == 0 {
		return false
	}
	star := false
	for _, c := range s {
		switch c {
		case '*', '%':
			star = true
		case '/', '.', '\\', ':':
		default:
			return false
		}
	}
	return star
}

// everythingWord reports a value that is one of the words for everything.
// "any" counts only in a selector (filter: "any"): as a region or a name
// it lets the server choose one.
func everythingWord(s []byte, selector bool) bool {
	s = bytes.TrimSpace(s)
	return bytes.EqualFold(s, []byte("all")) || bytes.EqualFold(s, []byte("everything")) ||
		(selector && bytes.EqualFold(s, []byte("any")))
}
