package risk

import (
	"strings"

	"github.com/toolgate/toolgate/pkg/phrase"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// apiMethods are the HTTP methods a pass-through tool is named by.
var apiMethods = map[string]bool{"get": true, "put": true, "post": true, "patch": true, "delete": true}

// pathParams name a parameter that takes a free-form request path or URL.
var pathParams = map[string]bool{"path": true, "url": true, "endpoint": true, "uri": true, "route": true,
	"resourcepath": true, "apipath": true, "urlpath": true, "relativeurl": true}

// bodyParams name a parameter that takes a free-form request body.
var bodyParams = map[string]bool{"body": true, "data": true, "payload": true, "json": true, "requestbody": true,
	"content": true}

// arbitraryCall says whether a tool is a pass-through to a service's API:
// named by an HTTP method and taking a free-form path (and, to write, a
// body). Such a tool can do anything the account can, whatever its name
// says; it returns the method.
func arbitraryCall(t *tooldef.Tool, tokens []string) string {
	// The method is the name, alone or after a prefix naming the service
	// (bb_get, http_post) or before "request": a method followed by an
	// object (get_file_info) names an ordinary tool.
	method := ""
	for i, tok := range tokens {
		if apiMethods[tok] && (i == len(tokens)-1 || (i == len(tokens)-2 && (tokens[i+1] == "request" || tokens[i+1] == "api"))) {
			method = tok
		}
	}
	if method == "" {
		return ""
	}
	props, _ := schemaObject(t.InputSchema)["properties"].(map[string]any)
	path, body := false, false
	for name, p := range props {
		flat := strings.ToLower(separators.Replace(name))
		ps, _ := p.(map[string]any)
		typ, _ := ps["type"].(string)
		_, enum := ps["enum"]
		if pathParams[flat] && (typ == "string" || typ == "") && !enum {
			path = true
		}
		if bodyParams[flat] && typ != "boolean" && typ != "number" && typ != "integer" {
			body = true
		}
	}
	switch {
	case !path:
		return ""
	case method == "get" || method == "delete" || body:
		return method
	}
	return ""
}

func schemaObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// anyRequestPhrases say a tool sends whatever request or command it is given.
var anyRequestPhrases = []string{"any graphql", "arbitrary graphql", "raw graphql", "any rest", "arbitrary rest",
	"any api", "arbitrary api", "raw api", "any cli command", "arbitrary cli", "any command", "arbitrary command",
	"any endpoint", "arbitrary endpoint", "any http request", "arbitrary http"}

// keyQualifiers make "key" a credential: an API, SSH, access or signing key.
var keyQualifiers = map[string]bool{"api": true, "ssh": true, "access": true, "deploy": true, "signing": true,
	"secret": true, "gpg": true, "pgp": true, "private": true, "encryption": true, "auth": true, "service": true,
	"account": true}

// clientNouns are OAuth clients and applications: they are credentials when
// the tool's prose speaks of authentication.
var clientNouns = map[string]bool{"application": true, "app": true, "client": true, "connection": false}

// authPhrases in a description put an application or client in the
// business of authentication.
var authPhrases = []string{"oauth", "oidc", "client secret", "client_secret", "client id", "sso", "grant type",
	"identity provider", "authentication", "credentials"}

var authPhraseSet = phrase.New(authPhrases...)

// accessNouns name network and browser access controls: firewall rules,
// allowlists and their bypasses, CORS origins.
var accessNouns = map[string]bool{"firewall": true, "allowlist": true, "whitelist": true, "blocklist": true,
	"bypass": true, "cors": true, "ipallowlist": true, "ip": true, "cidr": true, "ingress": true}

// credentialObject names the credential or access control a tool's name
// works on, beyond the plain privilege nouns: a qualified key, an OAuth
// client or application, an access control. secret says whether reading
// it back reveals a secret (a key or a client does, an allowlist does not).
func credentialObject(objects []string, desc string) (name string, secret bool) {
	for i, o := range objects {
		switch {
		case o == "key":
			if q := keyQualifier(objects, i); q != "" {
				return q + " key", true
			}
			if strings.Contains(desc, "api key") || strings.Contains(desc, "secret") {
				return "key", true
			}
		case clientNouns[o]:
			if authPhraseSet.Any(desc) {
				return o + " (an authentication client)", true
			}
		case accessNouns[o]:
			return o, false
		}
	}
	return "", false
}

// keyQualifier is the word of a name that makes its i-th object, "key", a
// credential: the nearest qualifier before it ("api_v2010_fetch_signing_key"
// reads a signing key), else the first after it; "" when none does. The
// choice follows the name's order, so a name reads the same on every run.
func keyQualifier(objects []string, i int) string {
	for j := i - 1; j >= 0; j-- {
		if keyQualifiers[objects[j]] {
			return objects[j]
		}
	}
	for _, o := range objects[i+1:] {
		if keyQualifiers[o] {
			return o
		}
	}
	return ""
}

// privilegeReach says a change of who may do what reaches the whole
// account: it grants (users, roles, access lists, grants) to an account
// rather than to one container named by a required parameter, and is not
// the write of one secret value.
func privilegeReach(s signals) bool {
	switch s.privilege {
	case "secret", "secrets", "credential", "credentials", "token", "tokens", "password", "config", "configuration", "settings", "setting":
		return false
	}
	return !s.requiredContainer
}
