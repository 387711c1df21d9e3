package inject

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// EnvVars returns, sorted by name, one variable per server ("namespace/
// name") naming the gate's endpoint for it:
//
//	TOOLGATE_MCP_<NAME>_URL=http://127.0.0.1:15001/mcp/<namespace>/<name>
//
// <NAME> is the server's name upper-cased, every other character than A–Z
// and 0–9 turned into "_". When two servers give the same <NAME> — the
// same name in two namespaces, or "a-b" and "a.b" — neither keeps the
// short form, which would silently point the agent at whichever came
// first: each is named TOOLGATE_MCP_<NAMESPACE>__<NAME>_URL instead (a
// namespace holds no "_", so the double underscore cannot be forged by
// another pair). Should even those collide ("a-b" and "a.b" in one
// namespace), each gets the first eight hex digits of the SHA-256 of its
// ID appended to the short form. The rule depends only on the set of
// servers, so the names are the same for every pod of one policy set.
func EnvVars(servers []string) ([]corev1.EnvVar, error) {
	ids := slices.Clone(servers)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	short := map[string][]string{}
	for _, id := range ids {
		_, name, err := gateproto.SplitServerID(id)
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", id, err)
		}
		short[envToken(name)] = append(short[envToken(name)], id)
	}
	names := map[string]string{}
	qualified := map[string][]string{}
	for tok, group := range short {
		if len(group) == 1 {
			names[group[0]] = EnvPrefix + tok + "_URL"
			continue
		}
		for _, id := range group {
			ns, name, _ := gateproto.SplitServerID(id)
			q := envToken(ns) + "__" + envToken(name)
			qualified[q] = append(qualified[q], id)
		}
	}
	for q, group := range qualified {
		if len(group) == 1 {
			names[group[0]] = EnvPrefix + q + "_URL"
			continue
		}
		for _, id := range group {
			_, name, _ := gateproto.SplitServerID(id)
			sum := sha256.Sum256([]byte(id))
			names[id] = EnvPrefix + envToken(name) + "_" + strings.ToUpper(hex.EncodeToString(sum[:4])) + "_URL"
		}
	}
	out := make([]corev1.EnvVar, 0, len(ids))
	for _, id := range ids {
		out = append(out, corev1.EnvVar{Name: names[id], Value: URL(id)})
	}
	slices.SortFunc(out, func(a, b corev1.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// URL is the gate's endpoint, on the pod's loopback, for the server whose
// ID is "namespace/name".
func URL(serverID string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", ListenPort, gateproto.ServerPath(serverID))
}

// envToken upper-cases s and turns everything but letters and digits
// into "_".
func envToken(s string) string {
	b := []byte(strings.ToUpper(s))
	for i, c := range b {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
