// Package hostile serves MCP servers that stay within a probe's documented
// bounds and still try to exhaust the prober's memory: catalogues of
// several pages just under the response cap, made of the JSON that costs
// the most decoded per byte, or of long strings. Tests of the probe and of
// the operator binary use it.
//
// The servers speak MCP's streamable HTTP transport statelessly, with
// plain JSON or server-sent-event answers, by hand: a well-behaved SDK
// server cannot be made to send these pages. The package owns nothing but
// test fixtures.
package hostile
