package risk

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTokens bounds the words read from one name.
const maxTokens = 64

// Tokenize splits a tool name (or any identifier-ish text) into lower-case
// words across every naming style: snake_case, kebab-case, dotted.names,
// path/names, camelCase and PascalCase, with acronyms kept whole
// ("HTTPServer" → http, server) and digits kept with their letters (k8s).
func Tokenize(s string) []string {
	if isASCII(s) {
		return tokenizeASCII(s)
	}
	return tokenizeRunes(s)
}

// appendTokens appends the tokens of s to dst, as Tokenize finds them. A
// caller that only reads the tokens passes a buffer on its stack: the
// names of every parameter and option are tokenized, and most have a few
// words.
func appendTokens(dst []string, s string) []string {
	if !isASCII(s) {
		return append(dst, tokenizeRunes(s)...)
	}
	n := scanASCII(s, nil)
	if n == 0 {
		return dst
	}
	dst = slices.Grow(dst, n)
	base := len(dst)
	dst = dst[:base+n]
	k := base
	low := lowerASCII(s)
	scanASCII(s, func(start, end int) { dst[k] = low[start:end]; k++ })
	return dst
}

// tokenizeRunes is Tokenize for any text.
func tokenizeRunes(s string) []string {
	var tokens []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			tokens = append(tokens, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r):
			if len(cur) > 0 {
				prev := cur[len(cur)-1]
				switch {
				case unicode.IsUpper(r) && unicode.IsLower(prev):
					// fooBar: a new word starts at B.
					flush()
				case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
					// HTTPServer: the S of Server starts a word.
					flush()
				}
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			// Digits stay with their letters: k8s, s3, ec2 and oauth2
			// are words of their own.
			cur = append(cur, r)
		default:
			flush()
		}
		if len(tokens) >= maxTokens {
			break
		}
	}
	flush()
	if len(tokens) > maxTokens {
		tokens = tokens[:maxTokens]
	}
	return tokens
}

// words splits prose into lower-case words, for description signals.
func words(s string, limit int) []string {
	if len(s) > limit {
		s = s[:limit]
	}
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
	})
}

// singular strips a plural ending, well enough for matching nouns.
func singular(w string) string {
	if s, ok := ieNouns[w]; ok {
		return s
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// ieNouns end in "ie" in the singular, so "ies" is not "y" for them
// ("cookies" is "cookie", not "cooky").
var ieNouns = map[string]string{"cookies": "cookie", "movies": "movie", "selfies": "selfie", "zombies": "zombie",
	"rookies": "rookie", "ties": "tie", "pies": "pie", "lies": "lie"}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }
func isLower(b byte) bool { return b >= 'a' && b <= 'z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// tokenizeASCII is Tokenize for the common case of an ASCII name: the same
// rules, without converting to runes, and with every token sliced from
// the name lowered once (the name itself when it is in lower case), not
// lowered one by one: "getUserById" costs one new string, not three.
// Lowering ASCII moves no byte, so the words are where the name's are. The
// tokens are counted first so that the result is allocated once at its
// size; a closure appending to it would also have moved the slice to the
// heap.
func tokenizeASCII(s string) []string {
	n := scanASCII(s, nil)
	if n == 0 {
		return nil
	}
	tokens := make([]string, 0, n)
	low := lowerASCII(s)
	scanASCII(s, func(start, end int) { tokens = append(tokens, low[start:end]) })
	return tokens
}

// scanASCII finds the words of an ASCII name, at most maxTokens, gives the
// bounds of each to emit when emit is set, and returns how many there are.
func scanASCII(s string, emit func(start, end int)) int {
	n, start := 0, -1
	flush := func(end int) {
		if start >= 0 && end > start {
			if emit != nil {
				emit(start, end)
			}
			n++
		}
		start = -1
	}
	for i := 0; i < len(s) && n < maxTokens; i++ {
		b := s[i]
		switch {
		case isUpper(b) || isLower(b):
			if start >= 0 && i > start {
				prev := s[i-1]
				switch {
				case isUpper(b) && isLower(prev):
					flush(i)
				case isUpper(b) && isUpper(prev) && i+1 < len(s) && isLower(s[i+1]):
					flush(i)
				}
			}
			if start < 0 {
				start = i
			}
		case isDigit(b):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	if n < maxTokens {
		flush(len(s))
	}
	return n
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			return strings.ToLower(s)
		}
	}
	return s
}

// lowerText lower-cases a description, exactly as strings.ToLower does.
// Text already in lower case is returned as it is. Otherwise the text is
// converted in one pass into a builder, whose String is the buffer itself:
// one allocation, where converting a byte slice would copy it into a
// second. Runs of ASCII, nearly all of any description, are converted a
// chunk at a time; only the other runes are decoded. strings.ToLower maps
// every rune of a text that is not all ASCII through a function call, and
// descriptions often hold a dash or a quote that is not.
func lowerText(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 || unicode.ToLower(r) != r {
			// An invalid byte becomes U+FFFD, as strings.ToLower makes it.
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	s = s[i:]
	// Converted a chunk at a time in a buffer on the stack and written
	// with one copy per chunk: a WriteByte per byte tested the builder's
	// capacity at every byte. The chunk is lowered eight bytes at a time
	// up to its first byte that is not ASCII, and byte by byte after.
	var chunk [256]byte
	for len(s) > 0 {
		n := copy(chunk[:], s)
		i := 0
		for ; i+8 <= n; i += 8 {
			w := binary.LittleEndian.Uint64(chunk[i:])
			if w&asciiHigh != 0 {
				break
			}
			binary.LittleEndian.PutUint64(chunk[i:], lowerWord(w))
		}
		for ; i < n && chunk[i] < utf8.RuneSelf; i++ {
			if c := chunk[i]; 'A' <= c && c <= 'Z' {
				chunk[i] = c + 'a' - 'A'
			}
		}
		b.Write(chunk[:i])
		s = s[i:]
		if len(s) == 0 || s[0] < utf8.RuneSelf {
			continue
		}
		r, w := utf8.DecodeRuneInString(s)
		if l := unicode.ToLower(r); l != r || w == 1 {
			b.WriteRune(l)
		} else {
			b.WriteString(s[:w])
		}
		s = s[w:]
	}
	return b.String()
}

// asciiHigh holds the bit no ASCII byte of a word sets.
const asciiHigh = 0x8080808080808080

// lowerWord lower-cases the eight ASCII bytes of w at once: a byte from
// 'A' (0x41) up sets its high bit when 0x3f is added, one from '[' (0x5b)
// up when 0x25 is; no ASCII byte carries into the next. Bytes with the
// first and not the second are upper case, and gain 0x20.
func lowerWord(w uint64) uint64 {
	const ones = 0x0101010101010101
	upper := (w + 0x3f*ones) &^ (w + 0x25*ones) & asciiHigh
	return w | upper>>2
}
