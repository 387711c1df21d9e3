package main

import (
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
	"time"
)

// hardMax is the largest item in bytes: 20 KB, the top of the corpus's
// size range, with room left for nothing else.
const hardMax = 20000

// filler draws neutral material for one item from its language's bank and
// the common bank. Items of a section are drawn without replacement, so an
// item repeats a sentence only when it has used them all.
type filler struct {
	rng    *rand.Rand
	lang   bank
	common bank
	decks  map[string][]string
	clock  time.Time // advances as an item's events are written
	seq    int       // numbers issues, results, rows
}

func newFiller(rng *rand.Rand, lang, common bank) *filler {
	// Every item's dates fall in 2024, from a fixed origin: the output
	// must not depend on when it is generated.
	start := time.Date(2024, 1, 8, 7, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(330*24)) * time.Hour)
	return &filler{rng: rng, lang: lang, common: common, decks: map[string][]string{}, clock: start, seq: 1000 + rng.IntN(60000)}
}

// pick draws the next item of a section, from the language's bank or, if
// the language has no such section, from the common one.
func (f *filler) pick(section string) string {
	deck := f.decks[section]
	if len(deck) == 0 {
		src := f.lang[section]
		if len(src) == 0 {
			src = f.common[section]
		}
		if len(src) == 0 {
			panic(fmt.Sprintf("no filler section %q", section))
		}
		deck = append([]string(nil), src...)
		f.rng.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	}
	f.decks[section] = deck[1:]
	return f.expand(deck[0])
}

// expand fills the placeholders that filler items may hold, so that
// generated rows and log lines differ from one another.
func (f *filler) expand(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	r := strings.NewReplacer(
		"{n}", fmt.Sprint(f.rng.IntN(9000)+100),
		"{ms}", fmt.Sprint(f.rng.IntN(900)+3),
		"{id}", fmt.Sprintf("%08x", f.rng.Uint32()),
		"{word}", f.word(),
		"{handle}", f.handle(),
		"{host}", f.host(),
		"{ip}", fmt.Sprintf("10.%d.%d.%d", f.rng.IntN(250), f.rng.IntN(250), f.rng.IntN(250)+2),
		"{pct}", fmt.Sprint(f.rng.IntN(100)),
		"{ver}", fmt.Sprintf("%d.%d.%d", f.rng.IntN(4)+1, f.rng.IntN(20), f.rng.IntN(10)),
	)
	return r.Replace(s)
}

func (f *filler) word() string   { return f.pickRaw("words") }
func (f *filler) name() string   { return f.pickRaw("names") }
func (f *filler) handle() string { return f.pickRaw("handles") }
func (f *filler) host() string   { return f.pickRaw("hosts") }

// pickRaw draws with replacement: names and words recur in real data.
func (f *filler) pickRaw(section string) string {
	src := f.lang[section]
	if len(src) == 0 {
		src = f.common[section]
	}
	if len(src) == 0 {
		panic(fmt.Sprintf("no filler section %q", section))
	}
	return src[f.rng.IntN(len(src))]
}

func (f *filler) sentences(lo, hi int) string {
	n := lo + f.rng.IntN(hi-lo+1)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f.pick("sentences")
	}
	return strings.Join(parts, sentenceJoiner(f.lang))
}

// sentenceJoiner: Chinese and Japanese sentences end in a full-width stop
// and are not separated by a space.
func sentenceJoiner(b bank) string {
	if j := b["joiner"]; len(j) > 0 && j[0] == "none" {
		return ""
	}
	return " "
}

// tick advances the item's clock by a few minutes and returns it.
func (f *filler) tick(upTo time.Duration) time.Time {
	f.clock = f.clock.Add(time.Duration(f.rng.Int64N(int64(upTo))) + time.Second)
	return f.clock
}

func (f *filler) next() int { f.seq += 1 + f.rng.IntN(3); return f.seq }

// table is a small table of generated rows in the item's language: it lets
// a long page grow without repeating prose.
func (f *filler) table(markdown bool) string {
	cols := strings.Split(f.pick("columns"), "|")
	var b strings.Builder
	if markdown {
		b.WriteString("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat(" --- |", len(cols)) + "\n")
	}
	rows := 3 + f.rng.IntN(6)
	for range rows {
		cells := make([]string, len(cols))
		for i := range cells {
			switch i {
			case 0:
				cells[i] = f.word()
			case len(cols) - 1:
				cells[i] = fmt.Sprintf("%d.%02d", f.rng.IntN(900)+1, f.rng.IntN(100))
			default:
				cells[i] = fmt.Sprint(f.rng.IntN(5000))
			}
		}
		if markdown {
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		} else {
			b.WriteString(strings.Join(cells, "\t") + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (f *filler) list() string {
	n := 3 + f.rng.IntN(4)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("- " + f.word() + ": " + f.pick("sentences"))
	}
	return b.String()
}

// layout is how one carrier lays out an item: chrome at the head and tail,
// filler blocks around the payload, and the payload in the carrier's own
// form (a comment, a log line, a JSON field). wrap returns the text before
// the payload, the payload as the carrier holds it (escaped, if the carrier
// escapes), and the text after it.
type layout struct {
	head  func() string
	tail  func() string
	sep   string
	block func() string
	wrap  func(payload string) (pre, body, post string)
}

// composed is an item's text and where its payload sits in it.
type composed struct {
	text       string
	start, end int
}

// compose lays a payload out in a carrier at about target bytes. The
// payload's centre lands at centre (a fraction of the whole), filler
// before it and after it making up the rest.
func compose(l layout, payload string, target int, centre float64) composed {
	head := l.head()
	// Blocks before the payload are generated before it is wrapped, so that
	// numbered carriers (results, rows, times) count up through it.
	estimate := len(payload) + 80
	beforeBudget := int(centre*float64(target)) - estimate/2 - len(head)
	var before []string
	size := len(head)
	for size < len(head)+beforeBudget {
		b := l.block()
		if size+len(b)/2 > len(head)+beforeBudget || size+len(b)+len(l.sep)+estimate > hardMax-200 {
			break
		}
		before = append(before, b)
		size += len(b) + len(l.sep)
	}
	pre, body, post := l.wrap(payload)
	core := pre + body + post
	tail := l.tail()
	size += len(core) + len(tail)
	var after []string
	for size < target {
		b := l.block()
		if size+len(b)/2 > target || size+len(b)+len(l.sep) > hardMax {
			break
		}
		after = append(after, b)
		size += len(b) + len(l.sep)
	}
	parts := append(append(append([]string{}, before...), core), after...)
	var sb strings.Builder
	sb.WriteString(head)
	start := 0
	for i, p := range parts {
		if i > 0 {
			sb.WriteString(l.sep)
		}
		if i == len(before) {
			start = sb.Len() + len(pre)
		}
		sb.WriteString(p)
	}
	sb.WriteString(tail)
	return composed{text: sb.String(), start: start, end: start + len(body)}
}

// carriers builds the layout of each carrier a piece may name.
func carrierLayout(name string, f *filler, p piece, compact bool) (layout, error) {
	para := func() string { return f.sentences(2, 5) }
	plain := func(payload string) (string, string, string) { return "", payload, "" }
	none := func() string { return "" }
	switch name {
	case "web-page":
		nav := func() string {
			n := 4 + f.rng.IntN(3)
			items := make([]string, n)
			for i := range items {
				items[i] = f.pickRaw("nav")
			}
			return strings.Join(items, " | ")
		}
		title := f.pick("titles")
		return layout{
			head: func() string {
				if compact {
					return ""
				}
				return title + "\n" + nav() + "\n\n# " + title + "\n\n"
			},
			tail: func() string {
				if compact {
					return ""
				}
				return "\n\n" + nav() + "\n© 2024 " + f.pickRaw("companies") + " · " + f.pickRaw("nav")
			},
			sep: "\n\n",
			block: func() string {
				switch f.rng.IntN(6) {
				case 0:
					return "## " + f.pick("titles") + "\n\n" + para()
				case 1:
					return f.list()
				case 2:
					return f.table(true)
				}
				return para()
			},
			wrap: plain,
		}, nil
	case "html-page":
		nav := func() string {
			var b strings.Builder
			b.WriteString("<nav class=\"site-nav\"><ul>")
			for range 4 + f.rng.IntN(3) {
				l := f.pickRaw("nav")
				fmt.Fprintf(&b, "<li><a href=\"/%s\">%s</a></li>", slug(l), html.EscapeString(l))
			}
			b.WriteString("</ul></nav>")
			return b.String()
		}
		title := f.pick("titles")
		return layout{
			head: func() string {
				if compact {
					return "<div class=\"content\">\n"
				}
				return fmt.Sprintf("<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<link rel=\"stylesheet\" href=\"/assets/site.%s.css\">\n</head>\n<body>\n%s\n<main>\n<h1>%s</h1>\n",
					p.lang, html.EscapeString(title), f.expand("{id}"), nav(), html.EscapeString(title))
			},
			tail: func() string {
				if compact {
					return "\n</div>"
				}
				return fmt.Sprintf("\n</main>\n<footer><p>© 2024 %s</p>%s</footer>\n</body>\n</html>", html.EscapeString(f.pickRaw("companies")), nav())
			},
			sep: "\n",
			block: func() string {
				switch f.rng.IntN(5) {
				case 0:
					return "<h2>" + html.EscapeString(f.pick("titles")) + "</h2>\n<p>" + html.EscapeString(para()) + "</p>"
				case 1:
					var b strings.Builder
					b.WriteString("<ul>")
					for range 3 + f.rng.IntN(3) {
						b.WriteString("<li>" + html.EscapeString(f.word()+": "+f.pick("sentences")) + "</li>")
					}
					b.WriteString("</ul>")
					return b.String()
				}
				return "<p>" + html.EscapeString(para()) + "</p>"
			},
			wrap: plain,
		}, nil
	case "doc":
		title := f.pick("titles")
		return layout{
			head: func() string {
				if compact {
					return ""
				}
				return "# " + title + "\n\n> " + f.pick("sentences") + "\n\n"
			},
			tail: none,
			sep:  "\n\n",
			block: func() string {
				switch f.rng.IntN(5) {
				case 0:
					return "## " + f.pick("titles") + "\n\n" + para()
				case 1:
					return "```yaml\n" + f.pick("code-yaml") + "\n```"
				case 2:
					return f.table(true)
				case 3:
					return f.list()
				}
				return para()
			},
			wrap: plain,
		}, nil
	case "pdf-text":
		title := f.pick("titles")
		company := f.pickRaw("companies")
		page, used := 1, 0
		return layout{
			head: func() string {
				if compact {
					return ""
				}
				return strings.ToUpper(title) + "\n" + company + "\n\n"
			},
			tail: func() string {
				if compact {
					return ""
				}
				return fmt.Sprintf("\n\n%s · %d", company, page)
			},
			sep: "\n\n",
			block: func() string {
				var b string
				if f.rng.IntN(4) == 0 {
					b = f.table(false)
				} else {
					b = para()
				}
				used += len(b)
				if used > 2500 {
					used = 0
					b += fmt.Sprintf("\n\n%s                                        %d\n\f", company, page)
					page++
				}
				return b
			},
			wrap: plain,
		}, nil
	case "email":
		from, to := f.name(), f.name()
		for i := 0; to == from && i < 8; i++ {
			to = f.name()
		}
		return layout{
			head: func() string {
				hdr := fmt.Sprintf("From: %s <%s@%s>\nTo: %s <%s@%s>\nSubject: %s\nDate: %s\nMessage-ID: <%s.%s@%s>\nContent-Type: text/plain; charset=utf-8\n\n",
					from, mailbox(f, from), f.host(), to, mailbox(f, to), f.host(), f.pick("titles"),
					f.tick(3*time.Hour).Format(time.RFC1123Z), f.expand("{id}"), f.expand("{id}"), f.host())
				if compact {
					return hdr
				}
				return hdr + strings.ReplaceAll(f.pickRaw("greetings"), "{name}", firstName(to)) + "\n\n"
			},
			tail: func() string {
				if compact {
					return ""
				}
				s := "\n\n" + f.pickRaw("signoffs") + "\n" + from
				if f.rng.IntN(2) == 0 {
					s += fmt.Sprintf("\n\nOn %s, %s wrote:\n> %s\n> %s", f.tick(48*time.Hour).Format("Mon, 2 Jan 2006 15:04"), to,
						f.pick("sentences"), f.pick("sentences"))
				}
				return s
			},
			sep:   "\n\n",
			block: para,
			wrap:  plain,
		}, nil
	case "issue-comment":
		title := f.pick("titles")
		comment := func(who string) string {
			return fmt.Sprintf("**@%s** commented on %s\n\n", who, f.tick(20*time.Hour).Format("Jan 2, 2006"))
		}
		return layout{
			head: func() string {
				if compact {
					return ""
				}
				return fmt.Sprintf("#%d %s\n\n**@%s** opened this issue on %s · %s\n\n%s\n\n---\n\n", f.next(), title, f.handle(),
					f.tick(20*time.Hour).Format("Jan 2, 2006"), f.pickRaw("states"), para())
			},
			tail: func() string {
				if compact {
					return ""
				}
				return "\n\n---\nLabels: " + f.pickRaw("labels") + ", " + f.pickRaw("labels")
			},
			sep: "\n\n---\n\n",
			block: func() string {
				body := f.pick("comments")
				if f.rng.IntN(3) == 0 {
					body = para()
				}
				return comment(f.handle()) + body
			},
			wrap: func(payload string) (string, string, string) {
				if compact {
					return "", payload, ""
				}
				return comment(f.handle()), payload, ""
			},
		}, nil
	case "ticket":
		return layout{
			head: func() string {
				s := fmt.Sprintf("Ticket #%d — %s\nStatus: %s | Priority: P%d | Queue: %s\nRequester: %s\nCreated: %s\n\n",
					f.next()*7, f.pick("titles"), f.pickRaw("ticket-states"), 1+f.rng.IntN(4), f.word(), f.name(),
					f.tick(4*time.Hour).Format("2006-01-02 15:04"))
				if compact {
					return s
				}
				return s + "Description:\n" + para() + "\n\n"
			},
			tail: none,
			sep:  "\n\n",
			block: func() string {
				return fmt.Sprintf("[%s] %s:\n%s", f.tick(5*time.Hour).Format("2006-01-02 15:04"), f.name(), para())
			},
			wrap: func(payload string) (string, string, string) {
				return fmt.Sprintf("[%s] %s:\n", f.tick(5*time.Hour).Format("2006-01-02 15:04"), f.name()), payload, ""
			},
		}, nil
	case "chat-transcript":
		line := func() string {
			return fmt.Sprintf("[%s] %s: ", f.tick(9*time.Minute).Format("15:04"), f.name())
		}
		return layout{
			head: func() string {
				if compact {
					return ""
				}
				return fmt.Sprintf("#%s — %s\n\n", slug(f.word()), f.clock.Format("2006-01-02"))
			},
			tail: none,
			sep:  "\n",
			block: func() string {
				n := 1 + f.rng.IntN(3)
				s := make([]string, n)
				for i := range s {
					s[i] = line() + f.pick("comments")
				}
				return strings.Join(s, "\n")
			},
			wrap: func(payload string) (string, string, string) { return line(), payload, "" },
		}, nil
	case "search-results":
		result := func(title, snippet string) (string, string) {
			return fmt.Sprintf("%d. %s\n   https://%s/%s/%d\n   ", f.next()%97+1, title, f.host(), slug(f.word()), f.rng.IntN(99999)), snippet
		}
		return layout{
			head: func() string {
				return fmt.Sprintf("Search results for \"%s\" (about %d results)\n\n", f.pick("titles"), 1000+f.rng.IntN(900000))
			},
			tail: none,
			sep:  "\n\n",
			block: func() string {
				a, b := result(f.pick("titles"), f.sentences(1, 2))
				return a + b
			},
			wrap: func(payload string) (string, string, string) {
				a, b := result(f.pick("titles"), payload)
				return a, b, ""
			},
		}, nil
	case "log":
		line := func() string {
			return fmt.Sprintf("%s %-5s %s: %s", f.tick(40*time.Second).Format("2006-01-02T15:04:05.000Z"),
				f.pickRaw("levels"), f.pickRaw("components"), f.pick("log-messages"))
		}
		return layout{
			head: none,
			tail: none,
			sep:  "\n",
			block: func() string {
				n := 2 + f.rng.IntN(5)
				s := make([]string, n)
				for i := range s {
					s[i] = line()
				}
				return strings.Join(s, "\n")
			},
			wrap: func(payload string) (string, string, string) {
				if p.opts["log"] == "raw" {
					return "", payload, ""
				}
				// One timestamp for the payload's first line: later lines
				// read as the message's continuation, as a multi-line
				// message does in a real log.
				return f.tick(40*time.Second).Format("2006-01-02T15:04:05.000Z") + " ", payload, ""
			},
		}, nil
	case "json-record":
		field := p.opts["field"]
		if field == "" {
			field = "notes"
		}
		// Half the arrays come bare, half in a page envelope, as APIs
		// return them.
		head, tail := "[\n", "\n]"
		if f.rng.IntN(2) == 0 {
			head, tail = fmt.Sprintf("{\"page\": %d, \"has_more\": true, \"data\": [\n", 1+f.rng.IntN(9)), "\n]}"
		}
		return layout{
			head: func() string { return head },
			tail: func() string { return tail },
			sep:  ",\n",
			block: func() string {
				return jsonRecord(f, "notes", f.sentences(1, 2))
			},
			wrap: func(payload string) (string, string, string) {
				if p.opts["json"] == "raw" {
					return "  ", payload, ""
				}
				rec := jsonRecord(f, field, "\x00")
				pre, post, _ := strings.Cut(rec, `"\u0000"`)
				return pre, jsonString(payload), post
			},
		}, nil
	case "csv":
		header := "id,date,customer,city,product,qty,amount,note"
		row := func(note string) (string, string) {
			return fmt.Sprintf("%d,%s,%s,%s,%s,%d,%d.%02d,", f.next(), f.tick(30*time.Hour).Format("2006-01-02"),
				csvCell(f.name()), csvCell(f.pickRaw("cities")), csvCell(f.word()), 1+f.rng.IntN(20),
				f.rng.IntN(3000), f.rng.IntN(100)), note
		}
		return layout{
			head: func() string { return header + "\n" },
			tail: none,
			sep:  "\n",
			block: func() string {
				n := 2 + f.rng.IntN(4)
				s := make([]string, n)
				for i := range s {
					a, b := row("")
					if f.rng.IntN(3) == 0 {
						b = csvCell(f.pick("comments"))
					}
					s[i] = a + b
				}
				return strings.Join(s, "\n")
			},
			wrap: func(payload string) (string, string, string) {
				if p.opts["csv"] == "raw" {
					return "", payload, ""
				}
				a, _ := row("")
				return a, csvCell(payload), ""
			},
		}, nil
	case "calendar":
		event := func(desc string) (string, string, string) {
			t := f.tick(30 * time.Hour)
			pre := fmt.Sprintf("BEGIN:VEVENT\nUID:%s@calendar.example.com\nDTSTAMP:%s\nDTSTART:%s\nDTEND:%s\nSUMMARY:%s\nORGANIZER;CN=%s:mailto:%s@%s\nDESCRIPTION:",
				f.expand("{id}"), t.Format("20060102T150405Z"), t.Add(24*time.Hour).Format("20060102T150405Z"),
				t.Add(25*time.Hour).Format("20060102T150405Z"), icalText(f.pick("titles")), f.name(), f.handle(), f.host())
			return pre, icalText(desc), "\nEND:VEVENT"
		}
		return layout{
			head: func() string { return "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Example//Calendar 2.1//EN\n" },
			tail: func() string { return "\nEND:VCALENDAR" },
			sep:  "\n",
			block: func() string {
				a, b, c := event(f.sentences(1, 2))
				return a + b + c
			},
			wrap: event,
		}, nil
	case "code":
		lang := p.opts["code"]
		if lang == "" {
			lang = "go"
		}
		if len(f.common["code-"+lang]) == 0 {
			return layout{}, fmt.Errorf("no filler for code=%s", lang)
		}
		return layout{
			head: func() string {
				if compact {
					return ""
				}
				return f.pick("header-"+lang) + "\n\n"
			},
			tail: none,
			sep:  "\n\n",
			block: func() string {
				return f.pick("code-" + lang)
			},
			wrap: plain,
		}, nil
	}
	return layout{}, fmt.Errorf("unknown carrier %q", name)
}

// jsonRecord is one record of the JSON carriers, with its fields in a
// fixed order and one field holding value.
func jsonRecord(f *filler, field, value string) string {
	keys := []string{"id", "name", "status", "owner", "updated_at"}
	vals := []string{
		jsonString(f.expand("{id}")),
		jsonString(f.word() + " " + fmt.Sprint(f.rng.IntN(900)+10)),
		jsonString(f.pickRaw("states")),
		jsonString(f.name()),
		jsonString(f.tick(20 * time.Hour).Format(time.RFC3339)),
	}
	keys = append(keys, field)
	vals = append(vals, jsonString(value))
	var b strings.Builder
	b.WriteString("  {")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(k) + ": " + vals[i])
	}
	b.WriteString("}")
	return b.String()
}

// jsonString encodes s as a JSON string without HTML escaping, as most
// servers write it.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func csvCell(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// icalText escapes a TEXT value as RFC 5545 says (§3.3.11).
func icalText(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\n", `\n`).Replace(s)
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-':
			b.WriteRune('-')
		}
	}
	if b.Len() == 0 {
		return "p"
	}
	return strings.Trim(b.String(), "-")
}

// mailbox makes an address's local part from a name, or a handle when the
// name has no Latin letters.
func mailbox(f *filler, name string) string {
	if s := slug(latin(name)); s != "p" && len(s) > 2 {
		return strings.ReplaceAll(s, "-", ".")
	}
	return f.handle()
}

func firstName(name string) string {
	first, _, _ := strings.Cut(name, " ")
	return first
}

// latin folds the accented letters of the European names in the banks to
// ASCII, as mail systems do for local parts.
func latin(s string) string {
	return strings.NewReplacer("á", "a", "à", "a", "â", "a", "ä", "ae", "ã", "a", "ç", "c", "é", "e", "è", "e", "ê", "e", "ë", "e",
		"í", "i", "ì", "i", "î", "i", "ï", "i", "ñ", "n", "ó", "o", "ò", "o", "ô", "o", "ö", "oe", "õ", "o", "ú", "u", "ù", "u",
		"û", "u", "ü", "ue", "ß", "ss", "Á", "A", "É", "E", "Ö", "Oe", "Ü", "Ue", "Ä", "Ae", "Ç", "C").Replace(s)
}
