package rpcmsg

import (
	"errors"
	"fmt"
	"io"
)

// MethodServerDiscover is the stateless revision's request for what a
// server is and offers; its result carries the server's instructions to
// the model, as initialize's does in the session-based revisions.
const MethodServerDiscover = "server/discover"

// CarriesInstructions reports whether the answer to a request of method
// carries the server's instructions.
func CarriesInstructions(method string) bool {
	return method == MethodInitialize || method == MethodServerDiscover
}

// Instructions reads a server's answer to initialize or server/discover
// (method),
// refusing one whose member names a peer could read otherwise
// (CheckInitialize), and returns result.instructions: its text, and
// whether the member is there at all. An error answer has none.
func Instructions(msg []byte, method string) (text string, present bool, err error) {
	if err := CheckInitialize(msg, method); err != nil {
		return "", false, err
	}
	_, text, present, err = instructionsSpan(msg)
	return text, present, err
}

// span is where a member of an object is in a message: from the first
// byte of its name to the end of its value.
type span struct{ start, end int }

// instructionsSpan finds result.instructions in a message already checked.
func instructionsSpan(msg []byte) (span, string, bool, error) {
	dec := getDecoder(msg)
	defer putDecoder(dec)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return span{}, "", false, errors.New("answer is not a JSON object")
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return span{}, "", false, err
		}
		if name.String() != "result" || dec.PeekKind() != '{' {
			if err := dec.SkipValue(); err != nil {
				return span{}, "", false, err
			}
			continue
		}
		if _, err := dec.ReadToken(); err != nil {
			return span{}, "", false, err
		}
		for dec.PeekKind() != '}' {
			start := skipSeparators(msg, int(dec.InputOffset()))
			field, err := dec.ReadToken()
			if err != nil {
				return span{}, "", false, err
			}
			if field.String() != "instructions" {
				if err := dec.SkipValue(); err != nil {
					return span{}, "", false, err
				}
				continue
			}
			if dec.PeekKind() != '"' {
				return span{}, "", false, errors.New("result.instructions is not a string")
			}
			t, err := dec.ReadToken()
			if err != nil {
				return span{}, "", false, err
			}
			return span{start, int(dec.InputOffset())}, t.String(), true, nil
		}
		if _, err := dec.ReadToken(); err != nil {
			return span{}, "", false, err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return span{}, "", false, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return span{}, "", false, errors.New("unexpected data after the JSON object")
	}
	return span{}, "", false, nil
}

// WithoutInstructions is an answer to initialize or server/discover with
// result.instructions taken out, every other byte as the server sent it:
// what the agent is given when the instructions are not the reviewed ones.
func WithoutInstructions(msg []byte, method string) ([]byte, error) {
	if err := CheckInitialize(msg, method); err != nil {
		return nil, err
	}
	sp, _, present, err := instructionsSpan(msg)
	if err != nil {
		return nil, fmt.Errorf("answer to initialize: %w", err)
	}
	if !present {
		return msg, nil
	}
	// Take the member out with one comma beside it: the one after it, or
	// when it is the last member, the one before it.
	start, end := sp.start, skipSpace(msg, sp.end)
	if end < len(msg) && msg[end] == ',' {
		end++
	} else {
		for i := start - 1; i >= 0; i-- {
			if msg[i] == ',' {
				start = i
				break
			}
			if msg[i] == '{' {
				break
			}
		}
	}
	out := make([]byte, 0, len(msg)-(end-start))
	out = append(out, msg[:start]...)
	return append(out, msg[end:]...), nil
}
