package gate

import (
	"mime"
	"testing"
)

// TestMediaTypeShortcutsAgreeWithParsing: the media types taken without
// parsing are read as mime.ParseMediaType reads them, and the rest still
// parsed (a case or parameters of their own).
func TestMediaTypeShortcutsAgreeWithParsing(t *testing.T) {
	for _, ct := range []string{"application/json", "text/event-stream", "Application/JSON", "application/json; charset=utf-8",
		"text/event-stream;charset=utf-16", "application/json;;", "text/html", ""} {
		want, _, err := mime.ParseMediaType(ct)
		if err != nil && ct != "application/json;;" {
			want = ""
		}
		if got := mediaType(ct); got != want {
			t.Errorf("mediaType(%q) = %q, want %q", ct, got, want)
		}
	}
	for ct, want := range map[string]bool{"application/json": true, "application/json; charset=UTF-8": true, "application/json; charset=utf-16": false, "application/json; charset=\"latin1\"": false} {
		if got := utf8Body(ct); got != want {
			t.Errorf("utf8Body(%q) = %v, want %v", ct, got, want)
		}
	}
}
