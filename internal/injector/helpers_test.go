package injector

import (
	"testing"
	"time"
)

// eventually retries cond for up to ten seconds, and fails with its last
// description.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, desc := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, desc)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
