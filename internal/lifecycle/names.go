package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxNameLength keeps pin names valid as object names and as label values
// (63), so a pin name can itself be used in a selector.
const maxNameLength = 63

// PinName is the deterministic name of the ToolPin of a tool: a readable
// slug of the server and tool names, and a short hash of the exact tool
// name, so that "Delete File" and "delete_file" (one slug) get two pins.
func PinName(server, tool string) string {
	sum := sha256.Sum256([]byte(tool))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	slug := slugify(server + "-" + tool)
	if room := maxNameLength - len(suffix); len(slug) > room {
		slug = strings.TrimRight(slug[:room], "-")
	}
	if slug == "" {
		slug = "tool"
	}
	return slug + suffix
}

// slugify keeps lower-case ASCII letters and digits and turns every run of
// anything else into one dash.
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}
