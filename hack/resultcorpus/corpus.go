package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
)

// seed fixes every random choice: the band each item is drawn into, its
// target size, its filler. Changing it changes the whole file.
const seed = 0x746f6f6c67617465 // "toolgate"

// item is one line of the corpus, in the field order of the format, and
// what the checks need to know about it that the line does not say.
type item struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Class   string          `json:"class"`
	Lang    string          `json:"lang"`
	Carrier string          `json:"carrier"`
	Text    string          `json:"text,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Note    string          `json:"note"`

	payload string   // the piece as rendered: the attack's payload or the benign passage
	frags   []string // the payload as the item's serialised form holds it
	spans   [][2]int // where each fragment sits in the serialised form (Text, or Result)
	band    string
	source  string
}

// size is the item's length in bytes: its text, or its result as JSON.
func (it item) size() int {
	if it.Result != nil {
		return len(it.Result)
	}
	return len(it.Text)
}

// band is a size range an item is drawn into. The shares put a quarter of
// each kind above 4 KB and about thirty items above 12 KB, more than the
// corpus requires, since sizes land near a target, not on it.
type band struct {
	name   string
	lo, hi int
	share  int // per cent of a kind; the last band takes the rest
}

var bands = []band{
	{"xlarge", 13500, 19500, 9},
	{"large", 5000, 11500, 16},
	{"medium", 1500, 4000, 28},
	{"small", 450, 1500, 27},
	{"tiny", 0, 0, 0},
}

// build reads the pieces and composes the corpus.
func build() ([]item, error) {
	pieces, err := readPieces(piecesFS)
	if err != nil {
		return nil, err
	}
	banks, err := readBanks(piecesFS)
	if err != nil {
		return nil, err
	}
	common := banks["common"]
	var items []item
	for _, kind := range []string{"attack", "benign"} {
		var ps []piece
		for _, p := range pieces {
			if p.kind == kind {
				ps = append(ps, p)
			}
		}
		assigned := assignBands(ps, rand.New(rand.NewPCG(seed, hash(kind))))
		for i, p := range ps {
			if banks[p.lang] == nil {
				return nil, fmt.Errorf("%s: no filler for language %q (pieces/filler/%s.txt)", p.source, p.lang, p.lang)
			}
			it, err := makeItem(p, assigned[i], banks, common)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.source, err)
			}
			items = append(items, it)
		}
	}
	// Grouped by kind, class and language, so that a reviewer reads a class
	// together; the ids number that order.
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Kind != b.Kind {
			return a.Kind == "attack"
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Lang < b.Lang
	})
	n := map[string]int{}
	for i := range items {
		prefix := map[string]string{"attack": "atk", "benign": "ben"}[items[i].Kind]
		n[prefix]++
		items[i].ID = fmt.Sprintf("%s-%04d", prefix, n[prefix])
	}
	return items, nil
}

// assignBands draws each piece's size band: a piece may name its own
// (size=…), the others are shuffled and dealt out by the bands' shares.
func assignBands(ps []piece, rng *rand.Rand) []band {
	out := make([]band, len(ps))
	var free []int
	for i, p := range ps {
		if name := p.opts["size"]; name != "" {
			for _, b := range bands {
				if b.name == name {
					out[i] = b
				}
			}
			if out[i].name == "" {
				panic(fmt.Sprintf("%s: unknown size %q", p.source, name))
			}
			continue
		}
		free = append(free, i)
	}
	rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	k := 0
	for _, b := range bands {
		n := len(free) - k
		if b.share > 0 {
			n = (len(ps)*b.share + 99) / 100
		}
		for ; n > 0 && k < len(free); n-- {
			out[free[k]] = b
			k++
		}
	}
	return out
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// makeItem composes one piece into an item of its band. Each item draws
// from a generator seeded by its own piece, so that editing one piece
// leaves every other item as it was.
func makeItem(p piece, b band, banks map[string]bank, common bank) (item, error) {
	rng := rand.New(rand.NewPCG(seed, hash(p.kind+"\x00"+p.lang+"\x00"+p.body)))
	payload, err := render(p.body)
	if err != nil {
		return item{}, err
	}
	it := item{Kind: p.kind, Class: p.class, Lang: p.lang, Carrier: p.carrier, Note: p.note,
		payload: payload, band: b.name, source: p.source}
	if it.Carrier == "" || it.Note == "" {
		return item{}, fmt.Errorf("a piece needs a carrier and a note")
	}
	// Some items in other languages sit in English chrome, as a Spanish
	// comment does on an English issue tracker: the language of the item is
	// the payload's.
	lang := banks[p.lang]
	if p.lang != "en" && rng.IntN(7) == 0 {
		lang = banks["en"]
	}
	large := b.lo >= 4096
	// floor grows when an item comes out under 100 bytes: a short payload
	// in a bare carrier then gets its chrome and a little filler.
	floor := 0
	for attempt := range 40 {
		f := newFiller(rng, lang, common)
		target := floor
		if b.hi > 0 {
			target = b.lo + rng.IntN(b.hi-b.lo)
		}
		centre := rng.Float64()
		if large || attempt > 0 {
			centre = 0.3 + 0.4*rng.Float64()
		}
		if p.opts["form"] == "result" {
			err = composeResult(&it, f, payload, target, centre)
		} else {
			err = composeText(&it, f, p, payload, target, centre)
		}
		if err != nil {
			return item{}, err
		}
		if it.size() < 100 {
			floor += 100
			continue
		}
		if it.size() > hardMax+480 {
			return item{}, fmt.Errorf("item is %d bytes, more than 20 KB", it.size())
		}
		// Any item above 4 KB keeps its payload in the middle, whatever band
		// it was drawn into: a medium item can overshoot its target.
		if it.size() <= 4096 || deep(it) {
			return it, nil
		}
		if attempt == 39 {
			return item{}, fmt.Errorf("the payload (%d bytes) cannot sit deep in a %s item", len(payload), b.name)
		}
	}
	return item{}, fmt.Errorf("item stays under 100 bytes")
}

// deep reports whether every fragment of the payload lies within the
// middle 80 per cent of the item.
func deep(it item) bool {
	n := it.size()
	for _, s := range it.spans {
		if s[0] < n/10 || s[1] > n-n/10 {
			return false
		}
	}
	return true
}

func composeText(it *item, f *filler, p piece, payload string, target int, centre float64) error {
	l, err := carrierLayout(p.carrier, f, p, target == 0)
	if err != nil {
		return err
	}
	if target == 0 {
		target = 100
	}
	c := compose(l, payload, target, centre)
	it.Text = c.text
	it.frags = []string{c.text[c.start:c.end]}
	it.spans = [][2]int{{c.start, c.end}}
	return nil
}

// resultPiece is the body of a piece carried as a whole CallToolResult:
// record goes into structuredContent's items (in the order written), top
// into structuredContent beside them, content into text content items.
type resultPiece struct {
	Record  json.RawMessage `json:"record"`
	Top     json.RawMessage `json:"top"`
	Content []string        `json:"content"`
}

// composeResult lays a payload out in a CallToolResult: filler text items
// around the piece's content items, filler records around its record.
func composeResult(it *item, f *filler, payload string, target int, centre float64) error {
	var rp resultPiece
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rp); err != nil {
		return fmt.Errorf("a form=result piece is a JSON object of record, top, content: %w", err)
	}
	var record, top string
	if rp.Record != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, rp.Record); err != nil {
			return err
		}
		record = b.String()
	}
	if rp.Top != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, rp.Top); err != nil {
			return err
		}
		top = strings.TrimSuffix(strings.TrimPrefix(b.String(), "{"), "}")
	}
	var parts []string
	for _, c := range rp.Content {
		parts = append(parts, textContent(c))
	}
	core := len(record) + len(top) + len(strings.Join(parts, ","))
	budget := max(target-core-120, 0)
	// Half the filler goes to text items, half to records; each half is
	// split around the payload at the centre drawn for the item.
	var textBefore, textAfter, recBefore, recAfter []string
	grow := func(list *[]string, budget int, mk func() string) {
		size := 0
		for size < budget {
			s := mk()
			if size+len(s)/2 > budget {
				return
			}
			*list = append(*list, s)
			size += len(s) + 1
		}
	}
	text := func() string { return textContent(f.pick("titles") + "\n" + f.sentences(1, 3)) }
	rec := func() string { return compactRecord(f) }
	grow(&textBefore, int(float64(budget)*centre/2), text)
	grow(&recBefore, int(float64(budget)*centre/2), rec)
	grow(&recAfter, int(float64(budget)*(1-centre)/2), rec)
	grow(&textAfter, int(float64(budget)*(1-centre)/2), text)
	summary := textContent(strings.ReplaceAll(f.pickRaw("summaries"), "{n}", fmt.Sprint(len(recBefore)+len(recAfter)+1)))
	content := append(append(append([]string{summary}, textBefore...), parts...), textAfter...)
	var records []string
	records = append(append(records, recBefore...), recAfter...)
	if record != "" {
		records = append(append(append([]string{}, recBefore...), record), recAfter...)
	}
	sc := "{"
	if top != "" {
		sc += top + ","
	}
	sc += `"items":[` + strings.Join(records, ",") + `],"total":` + fmt.Sprint(len(records)) + "}"
	result := `{"content":[` + strings.Join(content, ",") + `],"structuredContent":` + sc + "}"
	if !json.Valid([]byte(result)) {
		return fmt.Errorf("the result is not valid JSON")
	}
	it.Result = json.RawMessage(result)
	it.frags, it.spans = nil, nil
	for _, frag := range append(append([]string{record, top}, parts...), "") {
		if frag == "" {
			continue
		}
		at := strings.Index(result, frag)
		if at < 0 {
			return fmt.Errorf("a fragment of the payload is not in the result")
		}
		it.frags = append(it.frags, frag)
		it.spans = append(it.spans, [2]int{at, at + len(frag)})
	}
	return nil
}

func textContent(s string) string {
	return `{"type":"text","text":` + jsonString(s) + "}"
}

func compactRecord(f *filler) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(jsonRecord(f, "notes", f.sentences(1, 2)))); err != nil {
		panic(err)
	}
	return b.String()
}

// encode writes the corpus as JSON lines, without HTML escaping so that
// the markup in the texts reads as written.
func encode(items []item) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return nil, fmt.Errorf("%s: %w", it.ID, err)
		}
	}
	return b.Bytes(), nil
}
