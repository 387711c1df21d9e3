package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// directive is a {{name:argument}} in a piece: an encoding written in
// clear so that a reviewer reads what the corpus hides. The argument runs
// to the first "}}" and may span lines.
var directive = regexp.MustCompile(`(?s)\{\{([a-z0-9]+):(.*?)\}\}`)

// encoders turn a directive's argument into the text the corpus carries.
var encoders = map[string]func(string) (string, error){
	// b64, b64url, hex, rot13, url: the encodings attackers ask a model to
	// decode, and that ordinary data also uses.
	"b64":    func(s string) (string, error) { return base64.StdEncoding.EncodeToString([]byte(s)), nil },
	"b64url": func(s string) (string, error) { return base64.RawURLEncoding.EncodeToString([]byte(s)), nil },
	"hex":    func(s string) (string, error) { return hex.EncodeToString([]byte(s)), nil },
	"rot13":  func(s string) (string, error) { return rot13(s), nil },
	"url":    func(s string) (string, error) { return url.QueryEscape(s), nil },
	// tags: ASCII smuggled as Unicode tag characters (U+E0020–U+E007E),
	// invisible in most renderers but read by a model's tokenizer.
	"tags": tagChars,
	// zw: a zero-width space between every character, which breaks
	// keyword matching while the text still reads the same.
	"zw": func(s string) (string, error) { return interleave(s, "\u200b"), nil },
	// zwbin: each byte as eight invisible bits (U+200B for 0, U+200C for
	// 1), bytes separated by U+200D.
	"zwbin": zeroWidthBinary,
	// vs: each byte as a variation selector (U+FE00–U+FE0F, then
	// U+E0100–U+E01EF), the "emoji smuggling" form: invisible after the
	// emoji it follows.
	"vs": variationSelectors,
	// fw: fullwidth forms of ASCII, which look like text but match no
	// ASCII keyword.
	"fw": fullwidth,
	// rev: the text reversed, for right-to-left override tricks.
	"rev": func(s string) (string, error) { r := []rune(s); reverse(r); return string(r), nil },
	// u: code points by hex, separated by spaces: the invisible and
	// directional characters a file should show by name.
	"u": codePoints,
	// png: a real PNG of W x H pixels, base64: images that data URLs in
	// benign pages carry.
	"png": pngBase64,
}

// render applies every directive of a piece's body.
func render(body string) (string, error) {
	var firstErr error
	out := directive.ReplaceAllStringFunc(body, func(m string) string {
		sub := directive.FindStringSubmatch(m)
		enc, ok := encoders[sub[1]]
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("unknown encoding {{%s:…}}", sub[1])
			}
			return m
		}
		s, err := enc(sub[2])
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("{{%s:…}}: %w", sub[1], err)
		}
		return s
	})
	if firstErr != nil {
		return "", firstErr
	}
	if strings.Contains(out, "{{") && directive.MatchString(out) {
		return "", fmt.Errorf("a directive is left after rendering")
	}
	return out, nil
}

func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

func tagChars(s string) (string, error) {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			return "", fmt.Errorf("tag characters carry printable ASCII only, not %U", r)
		}
		b.WriteRune(0xE0000 + r)
	}
	return b.String(), nil
}

func interleave(s, sep string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return b.String()
}

func zeroWidthBinary(s string) (string, error) {
	var b strings.Builder
	for i, c := range []byte(s) {
		if i > 0 {
			b.WriteRune('\u200d')
		}
		for bit := 7; bit >= 0; bit-- {
			if c>>bit&1 == 1 {
				b.WriteRune('\u200c')
			} else {
				b.WriteRune('\u200b')
			}
		}
	}
	return b.String(), nil
}

func variationSelectors(s string) (string, error) {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c < 16 {
			b.WriteRune(0xFE00 + rune(c))
		} else {
			b.WriteRune(0xE0100 + rune(c) - 16)
		}
	}
	return b.String(), nil
}

func fullwidth(s string) (string, error) {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '\u3000'
		case r > 0x20 && r < 0x7f:
			return r - 0x21 + 0xFF01
		}
		return r
	}, s), nil
}

func reverse(r []rune) {
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
}

func codePoints(s string) (string, error) {
	var b strings.Builder
	for _, f := range strings.Fields(s) {
		n, err := strconv.ParseUint(f, 16, 32)
		if err != nil {
			return "", fmt.Errorf("code point %q: %w", f, err)
		}
		b.WriteRune(rune(n))
	}
	return b.String(), nil
}

// pngBase64 draws a small deterministic gradient: a real image, so that a
// detector that decodes data URLs finds a PNG and not text.
func pngBase64(s string) (string, error) {
	ws, hs, ok := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w <= 0 || h <= 0 || w > 256 || h > 256 {
		return "", fmt.Errorf("png size %q is not WxH within 256x256", s)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: uint8((x ^ y) * 7), A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}
