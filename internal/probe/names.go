package probe

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolgate/toolgate/internal/mcpshape"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/namefold"
)

// maxQuotedName is the most of a member name a failure quotes. The name is
// the server's text, and the only one a message quotes: a reviewer must
// see which member it was, and nothing else of the answer.
const maxQuotedName = 40

// checkNames refuses a message whose member names a decoder that matches
// names case-insensitively (the SDK's, and most agents') reads otherwise
// than one that matches them exactly (the gate's): two members of one
// object whose names fold alike, or, at the levels MCP defines, a member
// that is a defined name but for case. The gate refuses such an answer; a
// probe that read it would judge and pin a catalogue no agent behind the
// gate is shown, or one an agent elsewhere reads another way. msg is one
// whole JSON-RPC message, checked at the level of an answer to the call in
// flight. A message that is not JSON passes here: the decoding that
// follows says so in its own words.
func (c *catalogue) checkNames(msg []byte) *Error {
	c.mu.Lock()
	level := mcpshape.ResponseTo(c.awaiting)
	c.mu.Unlock()
	var amb *namefold.Error
	if !errors.As(namefold.Check(msg, level), &amb) {
		return nil
	}
	return c.failWith(ambiguousNames(amb))
}

// ambiguousNames says what namefold found, in the probe's own words: where
// the member is as a path of MCP's names, and the member's name, clipped
// and quoted in ASCII so that a long s or a Kelvin sign is visible.
func ambiguousNames(e *namefold.Error) *Error {
	where := describePointer(e.Path)
	msg := fmt.Sprintf("the member %s in %s is the member %s but for case", quoteName(e.Name), where, quoteName(e.Other))
	if !e.Defined {
		msg = fmt.Sprintf("the members %s and %s in %s are one name to a decoder that ignores case", quoteName(e.Other), quoteName(e.Name), where)
	}
	return &Error{Reason: InvalidResponse, Err: e,
		Msg: msg + "; MCP clients that match member names case-insensitively would read another message than the gate, so the answer is refused"}
}

func quoteName(s string) string {
	return strconv.QuoteToASCII(clip.String(s, maxQuotedName))
}

// decodeWhole checks the member names of one message held whole, then
// decodes it as decodeMessage does. The bytes are charged to the budget
// while they are held.
func (c *catalogue) decodeWhole(msg []byte, page func() bool) ([]byte, error) {
	if err := c.meter.chargeHeld(int64(len(msg))); err != nil {
		return nil, c.failWith(&Error{Reason: TooLarge, Msg: "a message from the server: " + err.Error(), Err: err})
	}
	defer c.meter.releaseHeld(int64(len(msg)))
	if perr := c.checkNames(msg); perr != nil {
		return nil, perr
	}
	return c.decodeMessage(jsontext.NewDecoder(bytes.NewReader(msg)), page)
}
