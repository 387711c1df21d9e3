package lifecycle

import (
	"strings"
	"testing"
)

func TestNeverAPerson(t *testing.T) {
	for _, tc := range []struct {
		user   string
		groups []string
		// want is "" for someone who may be a person, else part of why not.
		want string
	}{
		{"alice", []string{"reviewers", "system:authenticated"}, ""},
		{"admin", []string{"system:masters"}, ""},
		{"oidc:alice@example.com", nil, ""},
		// Service accounts are judged by the caller's own rules.
		{"system:serviceaccount:reviewers:bot", []string{"system:serviceaccounts", "system:serviceaccounts:reviewers"}, ""},
		{"system:anonymous", []string{"system:unauthenticated"}, "the anonymous user"},
		{"system:anonymous", nil, "the anonymous user"},
		{"guest", []string{"system:unauthenticated"}, "not authenticated"},
		{"system:node:worker-1", []string{"system:nodes"}, "is a node"},
		{"system:node:worker-1", nil, "is a node"},
		{"worker-1", []string{"system:nodes"}, "is a node"},
		{"system:kube-controller-manager", nil, "Kubernetes system identity"},
		{"system:kube-scheduler", nil, "Kubernetes system identity"},
		{"system:kube-proxy", nil, "Kubernetes system identity"},
		{"system:apiserver", []string{"system:masters"}, "Kubernetes system identity"},
		{"system:volume-scheduler", nil, "Kubernetes system identity"},
		{"system:admin", []string{"system:masters"}, "Kubernetes system identity"},
		{"system:serviceaccounts:agents", nil, "Kubernetes system identity"},
		{"system:serviceaccount", nil, "Kubernetes system identity"},
		{"mallory", []string{"system:serviceaccounts"}, "service-account group"},
		{"mallory", []string{"system:serviceaccounts:reviewers"}, "service-account group"},
	} {
		got := NeverAPerson(tc.user, tc.groups)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("NeverAPerson(%q, %q) = %q, want %q", tc.user, tc.groups, got, tc.want)
		}
	}
}
