package lifecycle

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
)

func removedPin(name string, lastSeen time.Time, trusted, decided bool) toolgatev1alpha1.ToolPin {
	seen := metav1.NewTime(lastSeen)
	st := toolgatev1alpha1.ToolPinStatus{State: toolgatev1alpha1.PinRemoved, ObservedFingerprint: "sha256:aa", LastSeenTime: &seen}
	if trusted {
		st.Pinned = &toolgatev1alpha1.PinnedDefinition{Fingerprint: "sha256:aa"}
	}
	if decided {
		st.Decisions = []toolgatev1alpha1.Decision{{Action: toolgatev1alpha1.DecisionApprove, Fingerprint: "sha256:aa", User: "ana"}}
	}
	return toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: st}
}

func TestExpired(t *testing.T) {
	now := t0.Time
	old, recent := now.Add(-48*time.Hour), now.Add(-time.Hour)
	live := removedPin("live", old, true, false)
	live.Status.State = toolgatev1alpha1.PinTrusted
	pins := []toolgatev1alpha1.ToolPin{
		live,
		removedPin("old-trusted", old, true, false),
		removedPin("recent-trusted", recent, true, false),
		removedPin("old-untrusted", old, false, false),
		removedPin("old-decided", old, true, true),
	}
	for _, c := range []struct {
		name string
		r    Retention
		want []string
	}{
		{"retention deletes old trusted pins without decisions", Retention{After: 24 * time.Hour, MaxRemoved: 100}, []string{"old-trusted"}},
		{"nothing expires without a retention", Retention{MaxRemoved: 100}, nil},
		{"without a cap the retention alone decides", Retention{After: 24 * time.Hour}, []string{"old-trusted"}},
		{"the cap takes trusted ones first, then the oldest untrusted", Retention{MaxRemoved: 1}, []string{"old-trusted", "recent-trusted"}},
		{"a cap of two keeps the untrusted pin and the newest trusted", Retention{MaxRemoved: 2}, []string{"old-trusted"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Expired(pins, now, c.r)
			if !slices.Equal(got, c.want) {
				t.Errorf("Expired = %v, want %v", got, c.want)
			}
		})
	}

	// A server renaming its tools on every probe stays within the cap.
	var churn []toolgatev1alpha1.ToolPin
	for i := range 500 {
		churn = append(churn, removedPin(fmt.Sprintf("p%03d", i), now.Add(-time.Duration(i)*time.Second), i%2 == 0, false))
	}
	if kept := len(churn) - len(Expired(churn, now, Retention{After: 24 * time.Hour, MaxRemoved: 100})); kept != 100 {
		t.Errorf("%d removed pins kept, want the cap of 100", kept)
	}
}
