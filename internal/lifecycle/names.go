package lifecycle

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// maxNameLength keeps pin names valid as object names and as label values
// (63), so a pin name can itself be used in a selector.
const maxNameLength = 63

// hashLength is how many hex digits of SHA-256 end a pin name: 64 bits,
// so that finding two (server, tool) pairs that share a pin name costs
// about 2^32 hashes, and taking the name of one chosen pair about 2^64,
// rather than the 2^16 and 2^32 of a short hash. A collision is still not
// a freeze: the operator then takes the next candidate (PinNameCandidate).
const hashLength = 16

// PinNameCandidates is how many names the operator tries for one tool
// before it reports that the tool cannot be pinned.
const PinNameCandidates = 4

// pinNameDomain starts every hashed key, so that a pin name's hash is of
// nothing but a pin name's key, whatever else toolgate hashes.
const pinNameDomain = "toolgate.dev/toolpin-name/v2"

// PinName is the deterministic name of the ToolPin of a tool: a readable
// slug of the server and tool names, and a hash of the exact server name
// and exact tool name together. "Delete File" and "delete_file" (one slug)
// get two pins, and so do the same tool on the servers "my.db" and "my-db"
// (one slug too): no server's pins can take the names another server's
// pins will need. It is PinNameCandidate(server, tool, 0).
func PinName(server, tool string) string {
	return PinNameCandidate(server, tool, 0)
}

// PinNameCandidate is the attempt-th name a tool's pin may take. A pin is
// found by its spec (server and tool name), never by its name, so when a
// name is held by another tool's pin — a hash collision or a squatter — the
// next candidate serves as well. For the same reason a pin created under
// an earlier naming (a hash of the tool name alone) keeps serving its tool:
// names are only ever computed to create a pin.
func PinNameCandidate(server, tool string, attempt int) string {
	sum := sha256.Sum256(pinNameKey(server, tool, attempt))
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

// pinNameKey is what a pin name hashes: the domain, then the server name,
// the tool name and the attempt, each preceded by its length in bytes.
// Length prefixes make the encoding unambiguous for any bytes at all —
// ("ab", "c") and ("a", "bc") differ, and a tool name holding a NUL or a
// digit cannot pass for another field — where a separator would have to be
// a byte no name may contain, and tool names may contain any.
func pinNameKey(server, tool string, attempt int) []byte {
	b := make([]byte, 0, len(pinNameDomain)+len(server)+len(tool)+4*binary.MaxVarintLen64)
	for _, field := range []string{pinNameDomain, server, tool} {
		b = binary.AppendUvarint(b, uint64(len(field)))
		b = append(b, field...)
	}
	return binary.AppendUvarint(b, uint64(attempt))
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
