package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/namefold"
)

// The grammar of hostile member names. A spelling is one way to write a
// member name in JSON text that a decoder matching names case-insensitively
// (Go's encoding/json, and every library built on it) still reads as a
// name the protocol defines.

// Families of spellings.
const (
	famCase        = "case"         // ASCII case changed: Name, NAME, nAmE
	famFold        = "fold"         // a Unicode simple-fold partner: argumentſ, K for k
	famEscape      = "escape"       // a case or fold spelling with some characters as \uXXXX
	famExact       = "exact"        // the name itself: an exact duplicate
	famExactEscape = "exact-escape" // the name itself with \u escapes: a duplicate once decoded
)

// families lists them in the order the generator cycles through them.
var families = []string{famCase, famFold, famEscape, famExact, famExactEscape}

// Placements of a spelled member beside the real one.
const (
	placeBefore = "before"
	placeAfter  = "after"
	placeAlone  = "alone" // instead of the real member
)

var placements = []string{placeBefore, placeAfter, placeAlone}

// spelling is a member name as written: text goes between the quotes as it
// is (escapes included), name is what a decoder reads once escapes are
// decoded.
type spelling struct {
	family string
	text   string
	name   string
}

// grammar draws spellings from a seeded source, so that a run can be
// repeated exactly.
type grammar struct {
	rng *rand.Rand
}

// seed is the grammar's seed: fixed, so that every run sends the same
// messages, unless TOOLGATE_CONFORMANCE_SEED names another to explore with.
func seed(t testing.TB) uint64 {
	if s := os.Getenv("TOOLGATE_CONFORMANCE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TOOLGATE_CONFORMANCE_SEED: %v", err)
		}
		return n
	}
	return 20260728
}

func newGrammar(seed uint64) *grammar {
	return &grammar{rng: rand.New(rand.NewPCG(seed, 0x746f6f6c67617465))}
}

// foldPartners returns the runes other than r in r's simple-fold orbit:
// what a decoder that folds case reads as r.
func foldPartners(r rune) []rune {
	var out []rune
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// caseSpelling changes the ASCII case of name's letters, at least one.
func (g *grammar) caseSpelling(name string) string {
	rs := []rune(name)
	var letters []int
	for i, r := range rs {
		if r < utf8.RuneSelf && unicode.IsLetter(r) {
			letters = append(letters, i)
		}
	}
	if len(letters) == 0 {
		return name
	}
	switch g.rng.IntN(4) {
	case 0: // all upper
		return strings.ToUpper(name)
	case 1: // first letter flipped
		i := letters[0]
		rs[i] = flipASCII(rs[i])
		return string(rs)
	default: // a random non-empty subset flipped
		flipped := false
		for _, i := range letters {
			if g.rng.IntN(2) == 0 {
				rs[i] = flipASCII(rs[i])
				flipped = true
			}
		}
		if !flipped {
			i := letters[g.rng.IntN(len(letters))]
			rs[i] = flipASCII(rs[i])
		}
		return string(rs)
	}
}

func flipASCII(r rune) rune {
	if unicode.IsUpper(r) {
		return unicode.ToLower(r)
	}
	return unicode.ToUpper(r)
}

// foldSpelling replaces at least one rune of name by a partner of its
// fold orbit outside ASCII (ſ for s, K for k, and whatever
// unicode.SimpleFold gives for other letters), and may change the case of
// others. A name with no such rune gets a case spelling.
func (g *grammar) foldSpelling(name string) string {
	rs := []rune(name)
	type sub struct {
		i int
		r []rune
	}
	var subs []sub
	for i, r := range rs {
		var wide []rune
		for _, p := range foldPartners(r) {
			if p >= utf8.RuneSelf {
				wide = append(wide, p)
			}
		}
		if len(wide) > 0 {
			subs = append(subs, sub{i, wide})
		}
	}
	if len(subs) == 0 {
		return g.caseSpelling(name)
	}
	done := false
	for _, s := range subs {
		if g.rng.IntN(2) == 0 {
			rs[s.i] = s.r[g.rng.IntN(len(s.r))]
			done = true
		}
	}
	if !done {
		s := subs[g.rng.IntN(len(subs))]
		rs[s.i] = s.r[g.rng.IntN(len(s.r))]
	}
	if g.rng.IntN(3) == 0 {
		// Some ASCII case changes on top.
		for i, r := range rs {
			if r < utf8.RuneSelf && unicode.IsLetter(r) && g.rng.IntN(3) == 0 {
				rs[i] = flipASCII(r)
			}
		}
	}
	return string(rs)
}

// escapeText writes name as JSON string text with at least one character
// as a \uXXXX escape (surrogate pairs beyond the BMP) and the others as
// they are.
func (g *grammar) escapeText(name string) string {
	rs := []rune(name)
	must := g.rng.IntN(len(rs))
	var b strings.Builder
	for i, r := range rs {
		if i == must || g.rng.IntN(3) == 0 {
			if r > 0xFFFF {
				hi, lo := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			} else if g.rng.IntN(2) == 0 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

// spell returns a spelling of name of the given family.
func (g *grammar) spell(name, family string) spelling {
	switch family {
	case famCase:
		s := g.caseSpelling(name)
		return spelling{family, s, s}
	case famFold:
		s := g.foldSpelling(name)
		return spelling{family, s, s}
	case famEscape:
		s := g.caseSpelling(name)
		if g.rng.IntN(2) == 0 {
			s = g.foldSpelling(name)
		}
		return spelling{family, g.escapeText(s), s}
	case famExact:
		return spelling{family, name, name}
	case famExactEscape:
		return spelling{family, g.escapeText(name), name}
	}
	panic("unknown family " + family)
}

// pick returns one element of xs.
func pick[T any](g *grammar, xs []T) T { return xs[g.rng.IntN(len(xs))] }

// member is one member of a JSON object as written: key is the text
// between the quotes, value raw JSON.
type member struct {
	key   string
	value string
}

// object writes the members in order.
func object(ms ...member) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + m.key + `":` + m.value)
	}
	b.WriteByte('}')
	return b.String()
}

// place puts decoys beside (or instead of) the member whose key is key.
func place(ms []member, key string, how string, decoys ...member) []member {
	out := make([]member, 0, len(ms)+len(decoys))
	found := false
	for _, m := range ms {
		if m.key != key || found {
			out = append(out, m)
			continue
		}
		found = true
		switch how {
		case placeBefore:
			out = append(out, decoys...)
			out = append(out, m)
		case placeAfter:
			out = append(out, m)
			out = append(out, decoys...)
		case placeAlone:
			out = append(out, decoys...)
		}
	}
	if !found {
		out = append(out, decoys...)
	}
	return out
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestGrammarSpellsWhatFoldingDecodersRead checks the generator against the
// decoder the attacks are about: every spelling it makes, in every family,
// of every defined name, is decoded by encoding/json into the field of that
// name, and folds to the name's key in pkg/namefold. It also checks that
// the fold family really leaves ASCII where the name allows, and that the
// same seed spells the same names. An attack the generator could not make
// would pass the suite without proving anything.
func TestGrammarSpellsWhatFoldingDecodersRead(t *testing.T) {
	names := []string{"name", "arguments", "params", "method", "id", "tools", "instructions",
		"nextCursor", "description", "inputSchema", "result", "city", "kind"}
	g := newGrammar(seed(t))
	wide := map[string]bool{}
	for _, name := range names {
		typ := reflect.StructOf([]reflect.StructField{{
			Name: "F", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`json:"` + name + `"`),
		}})
		for _, fam := range families {
			for range 20 {
				sp := g.spell(name, fam)
				doc := `{"` + sp.text + `":"hit"}`
				v := reflect.New(typ)
				if err := json.Unmarshal([]byte(doc), v.Interface()); err != nil {
					t.Fatalf("%s: %v", doc, err)
				}
				if got := v.Elem().Field(0).String(); got != "hit" {
					t.Errorf("%s spelling %q of %q: encoding/json does not read it as %q", fam, sp.text, name, name)
				}
				if namefold.Key(sp.name) != namefold.Key(name) {
					t.Errorf("%s spelling %q of %q folds to another key", fam, sp.name, name)
				}
				var decoded map[string]string
				if err := json.Unmarshal([]byte(doc), &decoded); err != nil || decoded[sp.name] != "hit" {
					t.Errorf("%s spelling %q does not decode to the name %q: %v", fam, sp.text, sp.name, decoded)
				}
				switch fam {
				case famCase:
					if sp.name == name {
						t.Errorf("case spelling of %q is the name itself", name)
					}
				case famFold:
					for _, r := range sp.name {
						if r >= utf8.RuneSelf {
							wide[name] = true
						}
					}
				case famEscape, famExactEscape:
					if !strings.Contains(sp.text, `\u`) {
						t.Errorf("escape spelling %q of %q has no escape", sp.text, name)
					}
				}
			}
		}
	}
	for _, name := range names {
		hasPartner := false
		for _, r := range name {
			for _, p := range foldPartners(r) {
				hasPartner = hasPartner || p >= utf8.RuneSelf
			}
		}
		if hasPartner != wide[name] {
			t.Errorf("fold spellings of %q: outside ASCII %v, want %v", name, wide[name], hasPartner)
		}
	}
	a, b := newGrammar(7), newGrammar(7)
	for range 50 {
		if x, y := a.spell("arguments", famEscape), b.spell("arguments", famEscape); x != y {
			t.Fatalf("one seed, two spellings: %v, %v", x, y)
		}
	}
}
