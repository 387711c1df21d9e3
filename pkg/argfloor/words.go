package argfloor

import "strings"

// splitWords cuts a parameter or flag name into lower-case words at every
// separator and camel-case boundary: "allNamespaces", "all-namespaces" and
// "ALL_NAMESPACES" are all "all namespaces", "HTTPServer" is "http
// server". Digits stay with the letters before them ("s3Bucket").
func splitWords(name string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isUpper(c):
			// A new word starts at an upper-case letter after a lower-case
			// one or a digit, and at the last capital of an acronym that a
			// lower-case letter follows ("HTTPServer": "S").
			if start >= 0 {
				prev := name[i-1]
				if isLower(prev) || isDigit(prev) || (isUpper(prev) && i+1 < len(name) && isLower(name[i+1])) {
					flush(i)
				}
			}
			if start < 0 {
				start = i
			}
		case isLower(c) || isDigit(c) || c >= 0x80:
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(name))
	return words
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// set is a small lexicon: a handful of words, looked up by the analysis of
// a schema and, for flags named only in a call, by the evaluation.
type set map[string]bool

func newSet(words string) set {
	s := set{}
	for _, w := range strings.Fields(words) {
		s[w] = true
	}
	return s
}

func (s set) any(words []string) bool {
	for _, w := range words {
		if s[w] {
			return true
		}
	}
	return false
}

// The words of flag names. They are the vocabulary command-line tools and
// APIs share for the same few ideas (git, kubectl, terraform, rm, npm and
// every REST API that copies them), which is why a server's flag named
// with them means what the shared idea means.
var (
	// forceWords make a change go through what would otherwise stop it.
	forceWords = newSet("force forced forcibly forceful forcefully unsafe unsafely dangerous dangerously " +
		"insecure insecurely overwrite overwrites overwriting clobber prune purge bypass yes")
	// negators turn a safety word into its skipping: skipValidation,
	// noVerify, disableHooks.
	negators = newSet("no skip skips skipping without disable disabled ignore ignores dont not non")
	// safetyWords name the checks a change passes before it happens.
	safetyWords = newSet("verify verification validate validation validations validator check checks checking " +
		"hook hooks confirm confirmation confirmations prompt prompts safety safe preflight protection protect " +
		"backup backups preserve lint test tests review approval approvals consent policy policies " +
		"ssl tls cert certs certificate certificates strict")
	// autoWords after "auto" approve on the caller's behalf: autoApprove,
	// auto_confirm, autoApply (terraform's -auto-approve as a setting).
	autoWords = newSet("approve approval approved confirm confirmed accept apply")
	// hardExceptions follow "hard" when it means no force: a hard link,
	// a hard limit, hard wrapping.
	hardExceptions = newSet("link links limit limits wrap wraps")
	// reachWords widen one call to everything below or beside its target.
	reachWords = newSet("recursive recursively recurse cascade cascading cascades")
	// allShapes follow or precede "all" when it shapes the answer or one
	// item rather than the set of items acted on: includeAllProperties,
	// replace_all_matches, ExcludeAllAddressRequired.
	allShapes = newSet("include includes show display exclude excludes properties fields columns attributes " +
		"details detail matches match occurrences required")
	// lengthWords in a truncate flag's description say it shortens text
	// in the answer (truncate queries to 40 chars), which deletes nothing.
	lengthWords = []string{"char", "length", "long", "display", "output", "text", "line"}
	// enumForce are option values that name the forcing variant of an
	// action: git reset's mode "hard", a conflict strategy "overwrite".
	enumForce = newSet("hard force forced unsafe dangerous overwrite clobber")
)

// flagKind is what setting a flag does to a call.
type flagKind uint8

const (
	flagNone flagKind = iota
	// flagForce makes the change go through a check, a warning or a
	// conflict that would have stopped it.
	flagForce
	// flagForceWeak forces with a guard still standing
	// (--force-with-lease).
	flagForceWeak
	// flagReach widens the call to everything in a scope.
	flagReach
)

// flagClass is a flag's kind and the value that sets it: true for most,
// false for a safety check on by default (validate: true).
type flagClass struct {
	kind   flagKind
	unsafe bool
}

// classifyFlag reads a flag's name (and, for truncate, its description):
// which kind of flag it is, and which value sets it. defaultTrue says the
// schema turns the flag on when it is left out.
func classifyFlag(words []string, description string, defaultTrue bool) flagClass {
	has := func(w string) bool {
		for _, x := range words {
			if x == w {
				return true
			}
		}
		return false
	}
	negated := negators.any(words)
	if has("force") || has("forced") || has("forcibly") || has("forceful") || has("forcefully") {
		switch {
		case negated:
			return flagClass{}
		case has("lease"):
			return flagClass{kind: flagForceWeak, unsafe: true}
		}
		return flagClass{kind: flagForce, unsafe: true}
	}
	if forceWords.any(words) {
		if negated && !has("bypass") {
			return flagClass{}
		}
		return flagClass{kind: flagForce, unsafe: true}
	}
	for i, w := range words {
		if w == "hard" && !negated && (i+1 == len(words) || !hardExceptions[words[i+1]]) {
			return flagClass{kind: flagForce, unsafe: true}
		}
		if w == "auto" && i+1 < len(words) && autoWords[words[i+1]] {
			return flagClass{kind: flagForce, unsafe: true}
		}
		if (w == "truncate" || w == "truncates") && !negated && !mentionsAny(description, lengthWords) {
			return flagClass{kind: flagForce, unsafe: true}
		}
	}
	if safetyWords.any(words) {
		switch {
		case negated:
			return flagClass{kind: flagForce, unsafe: true}
		case defaultTrue:
			return flagClass{kind: flagForce, unsafe: false}
		}
		return flagClass{}
	}
	if negated {
		return flagClass{}
	}
	if reachWords.any(words) {
		return flagClass{kind: flagReach, unsafe: true}
	}
	if (has("all") || has("everything")) && !allShapes.any(words) {
		return flagClass{kind: flagReach, unsafe: true}
	}
	return flagClass{}
}

// mentionsAny reports whether the lower-cased text contains any of words
// as a substring (chars, characters, lines all count).
func mentionsAny(text string, words []string) bool {
	text = strings.ToLower(text)
	for _, w := range words {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}
