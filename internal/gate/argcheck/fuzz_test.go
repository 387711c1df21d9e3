package argcheck

import (
	"errors"
	"testing"
)

// FuzzCheck feeds arbitrary schemas and arguments through compilation and
// checking: nothing may panic, hang, or refuse without saying why.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(typical), []byte(`{"path":"a","limit":3}`))
	f.Add([]byte(closed), []byte(`{"x":1}`))
	f.Add([]byte(defs), []byte(`{"mode":"r"}`))
	f.Add([]byte(`{"$ref":"#"}`), []byte(`{}`))
	f.Add([]byte(`{"type":"object"}`), []byte(`[1e400]`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		err := NewChecker(1).Check("fp", func() []byte { return schema }, args)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason == "" || len(e.Argument) > maxArgumentLen {
				t.Fatalf("bad refusal %+v", e)
			}
		}
	})
}
