package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// maxNameLength keeps pin names valid as object names and as label values
// (63), so a pin name can itself be used in a selector.
const maxNameLength = 63

// hashLength is how many hex digits of SHA-256 end a pin name: 64 bits,
// so that finding two tool names that share a pin name costs about 2^32
// hashes rather than the 2^16 of a short hash. A collision is still not a
// freeze: the operator then takes the next candidate (PinNameCandidate).
const hashLength = 16

// PinNameCandidates is how many names the operator tries for one tool
// before it reports that the tool cannot be pinned.
const PinNameCandidates = 4

// PinName is the deterministic name of the ToolPin of a tool: a readable
// slug of the server and tool names, and a hash of the exact tool name, so
// that "Delete File" and "delete_file" (one slug) get two pins. It is
// PinNameCandidate(server, tool, 0).
func PinName(server, tool string) string {
	return PinNameCandidate(server, tool, 0)
}

// PinNameCandidate is the attempt-th name a tool's pin may take. A pin is
// found by its spec (server and tool name), never by its name, so when a
// name is held by another tool's pin — a hash collision or a squatter — the
// next candidate serves as well.
func PinNameCandidate(server, tool string, attempt int) string {
	key := tool
	if attempt > 0 {
		key = tool + "\x00" + strconv.Itoa(attempt)
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "-" + hex.EncodeToString(sum[:])[:hashLength]
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
