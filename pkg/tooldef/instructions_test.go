package tooldef

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestInstructionsFingerprint(t *testing.T) {
	for _, text := range []string{"Call list_things first.", "Call list_things first. ", "ſ and s", "line\nbreak"} {
		sum := sha256.Sum256([]byte(text))
		if got, want := InstructionsFingerprint(text), "sha256:"+hex.EncodeToString(sum[:]); got != want {
			t.Errorf("InstructionsFingerprint(%q) = %s, want %s", text, got, want)
		}
	}
	if InstructionsFingerprint("a") == InstructionsFingerprint("a ") {
		t.Error("a trailing space does not change the fingerprint")
	}
	if got := InstructionsFingerprint(""); got != "" {
		t.Errorf("no instructions have the fingerprint %q", got)
	}
}
