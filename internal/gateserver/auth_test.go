package gateserver

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/toolgate/toolgate/internal/gateproto"
)

func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(payload)) + ".c2ln"
}

func TestTokenExpiry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string
		want  int64 // unix seconds; 0 for none
	}{
		{"exp", jwt(`{"exp":1900000000}`), 1900000000},
		{"warnafter earlier than an extended exp", jwt(`{"exp":1931536000,"kubernetes.io":{"warnafter":1900003600}}`), 1900003600},
		{"exp earlier than warnafter", jwt(`{"exp":1900000000,"kubernetes.io":{"warnafter":1900003600}}`), 1900000000},
		{"no exp", jwt(`{"sub":"x"}`), 0},
		{"not a JWT", "abc", 0},
		{"payload not base64", "a.!!!.c", 0},
		{"payload not JSON", jwt(`nope`), 0},
		{"exp not a number", jwt(`{"exp":"soon"}`), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tokenExpiry(tc.token)
			if tc.want == 0 {
				if !got.IsZero() {
					t.Fatalf("expiry %v, want none", got)
				}
				return
			}
			if !got.Equal(time.Unix(tc.want, 0)) {
				t.Fatalf("expiry %v, want %v", got, time.Unix(tc.want, 0))
			}
		})
	}
}

func TestIdentityFromReview(t *testing.T) {
	good := func() authenticationv1.TokenReviewStatus {
		return authenticationv1.TokenReviewStatus{
			Authenticated: true, Audiences: []string{gateproto.Audience},
			User: authenticationv1.UserInfo{
				Username: "system:serviceaccount:agents:agent",
				Extra: map[string]authenticationv1.ExtraValue{
					extraPodName: {"agent-0"}, extraPodUID: {"uid-1"},
				},
			},
		}
	}
	st := good()
	id, ref := identityFromReview(&st, jwt(`{"exp":1900000000}`))
	if ref != nil {
		t.Fatalf("a good review refused: %v", ref)
	}
	if id.Namespace != "agents" || id.ServiceAccount != "agent" || id.Pod != "agent-0" || id.PodUID != "uid-1" ||
		!id.Expiry.Equal(time.Unix(1900000000, 0)) {
		t.Fatalf("identity %+v", id)
	}

	for _, tc := range []struct {
		name   string
		change func(*authenticationv1.TokenReviewStatus)
		status int
		label  string
	}{
		{"not authenticated", func(s *authenticationv1.TokenReviewStatus) { s.Authenticated = false }, http.StatusUnauthorized, failUnauthn},
		{"no audience", func(s *authenticationv1.TokenReviewStatus) { s.Audiences = nil }, http.StatusUnauthorized, failAudience},
		{"other audience", func(s *authenticationv1.TokenReviewStatus) { s.Audiences = []string{"api"} }, http.StatusUnauthorized, failAudience},
		{"a user", func(s *authenticationv1.TokenReviewStatus) { s.User.Username = "alice" }, http.StatusForbidden, failNotSA},
		{"a malformed service account", func(s *authenticationv1.TokenReviewStatus) {
			s.User.Username = "system:serviceaccount:agents:agent:extra"
		}, http.StatusForbidden, failNotSA},
		{"no namespace", func(s *authenticationv1.TokenReviewStatus) { s.User.Username = "system:serviceaccount::agent" }, http.StatusForbidden, failNotSA},
		{"no pod name", func(s *authenticationv1.TokenReviewStatus) { delete(s.User.Extra, extraPodName) }, http.StatusForbidden, failNotPodBound},
		{"no pod uid", func(s *authenticationv1.TokenReviewStatus) { delete(s.User.Extra, extraPodUID) }, http.StatusForbidden, failNotPodBound},
		{"two pod names", func(s *authenticationv1.TokenReviewStatus) {
			s.User.Extra[extraPodName] = authenticationv1.ExtraValue{"a", "b"}
		}, http.StatusForbidden, failNotPodBound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := good()
			tc.change(&st)
			_, ref := identityFromReview(&st, "")
			if ref == nil || ref.status != tc.status || ref.label != tc.label {
				t.Fatalf("refusal %+v, want %d %s", ref, tc.status, tc.label)
			}
		})
	}
}

// A review is reused until its token expires, within bounds: reused too
// briefly, a fleet reconnecting costs a review per gate each time; too
// long, the stream lifetime's periodic check never asks the API server.
func TestReviewCachedUntil(t *testing.T) {
	now := time.Unix(1900000000, 0)
	const ttl, maxAge = 30 * time.Second, 15 * time.Minute
	for _, tc := range []struct {
		name   string
		expiry time.Time
		want   time.Time
	}{
		{"expiry unknown: the TTL", time.Time{}, now.Add(ttl)},
		{"expiring within the TTL: its expiry", now.Add(10 * time.Second), now.Add(10 * time.Second)},
		{"expiring within the bound: its expiry", now.Add(10 * time.Minute), now.Add(10 * time.Minute)},
		{"expiring after the bound: the bound", now.Add(time.Hour), now.Add(maxAge)},
		{"already expired: not reused", now.Add(-time.Second), now.Add(-time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := reviewCachedUntil(now, tc.expiry, ttl, maxAge); !got.Equal(tc.want) {
				t.Errorf("reused until %v, want %v", got.Sub(now), tc.want.Sub(now))
			}
		})
	}
	// A bound below the TTL does not shorten what the TTL grants.
	if got := reviewCachedUntil(now, now.Add(time.Hour), ttl, time.Second); !got.Equal(now.Add(ttl)) {
		t.Errorf("with a bound below the TTL, reused for %v", got.Sub(now))
	}
}
