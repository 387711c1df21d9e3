package tooldef

// InstructionsFingerprint is the fingerprint of a server's initialize
// instructions: "sha256:" and the hex SHA-256 of the text's exact UTF-8
// bytes, as the JSON string decodes to them, formatted as a tool's
// fingerprint is. The text is not canonicalised: any change an agent's
// model could read, whitespace included, changes the fingerprint.
//
// The operator records it for the instructions it scanned, and the gate
// computes it for the instructions a server sends, with this function on
// both sides. An empty text is no instructions, which has no fingerprint:
// it returns "".
func InstructionsFingerprint(text string) string {
	if text == "" {
		return ""
	}
	return digest([]byte(text))
}
