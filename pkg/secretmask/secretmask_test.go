package secretmask

import (
	"strings"
	"testing"
)

func TestMaskAll(t *testing.T) {
	gh := "ghp_" + "R8xT2mQ9vL4kW7nB3cY6" + "hJ1pD5sF0gZaEuKoIiVt"
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nQkrmBL7jTKEn5u\n-----END PRIVATE KEY-----"
	for _, tc := range []struct {
		in, want string
		masked   bool
	}{
		{in: "nothing to hide here", want: "nothing to hide here"},
		{in: "a " + gh + " and " + gh, want: "a ghp_R8xT…[redacted] and ghp_R8xT…[redacted]", masked: true},
		{in: "id AKIA" + "Z3MPLQ7RW2XK9T4B.", want: "id AKIAZ3MP…[redacted].", masked: true},
		// A placeholder is masked too: MaskAll hides, it does not judge.
		{in: "ghp_" + strings.Repeat("x", 36), want: "ghp_xxxx…[redacted]", masked: true},
		{in: "before\n" + key + "\nafter", want: "before\n-----BEGIN PRIVATE KEY-----…[redacted]\nafter", masked: true},
		{in: key[:60], want: "-----BEGIN PRIVATE KEY-----…[redacted]", masked: true},
		{in: "Authorization: Bearer " + "mF7qL2xR9tK4vN8wB3zC6yH1pD5sG0jAe", want: "Authorization: Bearer mF7q…[redacted]", masked: true},
	} {
		got, masked := MaskAll(tc.in)
		if got != tc.want || masked != tc.masked {
			t.Errorf("MaskAll(%q) = %q, %v; want %q, %v", tc.in, got, masked, tc.want, tc.masked)
		}
	}
}
