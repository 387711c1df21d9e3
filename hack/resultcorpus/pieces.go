package main

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// piecesFS holds the hand-written material; embedding it lets the command
// run from any directory and keeps the pieces and the program one version.
//
//go:embed pieces
var piecesFS embed.FS

// entryMark starts an entry (a payload, a benign passage) or a filler
// section. Three percent signs at the start of a line occur in none of the
// texts, so the files need no escaping.
const entryMark = "%%%"

// piece is one hand-written payload or benign passage and how to carry it.
type piece struct {
	kind    string // "attack" or "benign", from the directory
	lang    string // from the file name
	class   string
	carrier string
	note    string
	opts    map[string]string
	body    string // as written, before the {{…}} encodings are applied
	source  string // file:line, for errors a reviewer can follow
}

// readPieces reads every pieces/attack/*.txt and pieces/benign/*.txt, in
// file-name order and in order within a file, so that the corpus does not
// depend on the order the file system lists them in.
func readPieces(fsys fs.FS) ([]piece, error) {
	var out []piece
	for _, kind := range []string{"attack", "benign"} {
		names, err := fs.Glob(fsys, "pieces/"+kind+"/*.txt")
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
		for _, name := range names {
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, err
			}
			lang := strings.TrimSuffix(path.Base(name), ".txt")
			ps, err := parsePieces(string(data), name, kind, lang)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
		}
	}
	return out, nil
}

// parsePieces reads one file of entries:
//
//	%%% class carrier [key=value ...]
//	note: one sentence
//	body, one or more lines, up to the next %%% line
//
// Lines before the first entry are the file's own comment.
func parsePieces(text, name, kind, lang string) ([]piece, error) {
	lines := strings.Split(text, "\n")
	var out []piece
	var cur *piece
	var body []string
	flush := func() error {
		if cur == nil {
			return nil
		}
		b := strings.Trim(strings.Join(body, "\n"), "\n")
		if strings.TrimSpace(b) == "" {
			return fmt.Errorf("%s: empty body", cur.source)
		}
		cur.body = b
		out = append(out, *cur)
		cur, body = nil, nil
		return nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, entryMark) {
			if cur != nil {
				body = append(body, line)
			}
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		src := fmt.Sprintf("%s:%d", name, i+1)
		fields := strings.Fields(strings.TrimPrefix(line, entryMark))
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s: header needs a class and a carrier: %q", src, line)
		}
		p := piece{kind: kind, lang: lang, class: fields[0], carrier: fields[1], opts: map[string]string{}, source: src}
		for _, kv := range fields[2:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("%s: option %q is not key=value", src, kv)
			}
			p.opts[k] = v
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "note: ") {
			return nil, fmt.Errorf("%s: the line after the header must be \"note: …\"", src)
		}
		p.note = strings.TrimSpace(strings.TrimPrefix(lines[i+1], "note: "))
		i++
		cur = &p
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no entries", name)
	}
	return out, nil
}

// bank is the filler of one language: named sections of items. A section
// whose header ends in "multiline" holds items of several lines separated by
// a line holding only "~"; any other section holds one item per line.
type bank map[string][]string

// readBanks reads pieces/filler/*.txt into one bank per language (the file
// name); common.txt holds what no language owns (log messages, code).
func readBanks(fsys fs.FS) (map[string]bank, error) {
	names, err := fs.Glob(fsys, "pieces/filler/*.txt")
	if err != nil {
		return nil, err
	}
	out := map[string]bank{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		b, err := parseBank(string(data), name)
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(path.Base(name), ".txt")] = b
	}
	return out, nil
}

func parseBank(text, name string) (bank, error) {
	b := bank{}
	section, multi := "", false
	var item []string
	flushItem := func() {
		s := strings.Trim(strings.Join(item, "\n"), "\n")
		if section != "" && strings.TrimSpace(s) != "" {
			b[section] = append(b[section], s)
		}
		item = nil
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, entryMark) {
			flushItem()
			f := strings.Fields(strings.TrimPrefix(line, entryMark))
			if len(f) == 0 {
				return nil, fmt.Errorf("%s:%d: section without a name", name, i+1)
			}
			section, multi = f[0], len(f) > 1 && f[1] == "multiline"
			continue
		}
		if section == "" {
			continue
		}
		if !multi {
			if strings.TrimSpace(line) != "" {
				b[section] = append(b[section], line)
			}
			continue
		}
		if line == "~" {
			flushItem()
			continue
		}
		item = append(item, line)
	}
	flushItem()
	return b, nil
}
