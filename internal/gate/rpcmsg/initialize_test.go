package rpcmsg

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestInstructions(t *testing.T) {
	for _, tc := range []struct {
		name, msg, text, without string
		present                  bool
		err                      error
	}{
		{name: "in the middle",
			msg:  `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","instructions":"Use it well.","serverInfo":{"name":"s","version":"1"}}}`,
			text: "Use it well.", present: true,
			without: `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}`},
		{name: "last", msg: `{"id":1,"result":{"capabilities":{} , "instructions" : "x\n"}}`, text: "x\n", present: true,
			without: `{"id":1,"result":{"capabilities":{} }}`},
		{name: "alone", msg: `{"id":1,"result":{"instructions":"x"}}`, text: "x", present: true, without: `{"id":1,"result":{}}`},
		{name: "absent", msg: `{"id":1,"result":{"capabilities":{}}}`, without: `{"id":1,"result":{"capabilities":{}}}`},
		{name: "an error", msg: `{"id":1,"error":{"code":1,"message":"no"}}`, without: `{"id":1,"error":{"code":1,"message":"no"}}`},
		{name: "a second spelling", msg: `{"id":1,"result":{"instructions":"a","inſtructions":"b"}}`, err: ErrAmbiguous},
		{name: "another case alone", msg: `{"id":1,"result":{"Instructions":"b"}}`, err: ErrAmbiguous},
		{name: "Result beside result", msg: `{"id":1,"result":{},"Result":{"instructions":"b"}}`, err: ErrAmbiguous},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, present, err := Instructions([]byte(tc.msg), MethodInitialize)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("got %v, want %v", err, tc.err)
				}
				if _, err := WithoutInstructions([]byte(tc.msg), MethodInitialize); !errors.Is(err, tc.err) {
					t.Fatalf("WithoutInstructions: got %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || text != tc.text || present != tc.present {
				t.Fatalf("got %q %v %v", text, present, err)
			}
			out, err := WithoutInstructions([]byte(tc.msg), MethodInitialize)
			if err != nil || string(out) != tc.without {
				t.Fatalf("without: %s %v", out, err)
			}
			if !json.Valid(out) {
				t.Fatalf("invalid JSON %s", out)
			}
		})
	}
	if _, _, err := Instructions([]byte(`{"id":1,"result":{"instructions":"a","instructions":"b"}}`), MethodServerDiscover); err == nil {
		t.Fatal("a duplicate instructions member was read")
	}
}
