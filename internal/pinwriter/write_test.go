package pinwriter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/lifecycle"
	"github.com/toolgate/toolgate/internal/pinrecord"
	"github.com/toolgate/toolgate/internal/testenv"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// now is the time of every write here, so that the calls' expiries are
// relative to it.
var now = metav1.NewTime(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))

const original = `{"name":"delete_file","description":"Deletes one file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`

// newPin is a pin of delete_file on server files, as the MCPServer
// controller creates it, never observed.
func newPin() *toolgatev1alpha1.ToolPin {
	return &toolgatev1alpha1.ToolPin{
		ObjectMeta: metav1.ObjectMeta{Name: "files-delete-file-0011223344556677", Labels: map[string]string{toolgatev1alpha1.LabelServer: "files"}},
		Spec:       toolgatev1alpha1.ToolPinSpec{ServerRef: toolgatev1alpha1.LocalObjectReference{Name: "files"}, ToolName: "delete_file"},
	}
}

func observed(t *testing.T) pinrecord.Observed {
	t.Helper()
	tool, err := tooldef.ParseTool([]byte(original))
	if err != nil {
		t.Fatal(err)
	}
	return pinrecord.Observed{Tool: tool, FirstUse: toolgatev1alpha1.FirstUseTrust, Risk: &toolgatev1alpha1.ToolRisk{
		Level: toolgatev1alpha1.LevelHigh, RiskLevel: toolgatev1alpha1.RiskMedium, Category: toolgatev1alpha1.CategoryDelete,
		BlastRadius: toolgatev1alpha1.BlastItem, Reversibility: toolgatev1alpha1.ReversibilityNone,
		ApprovalRecommendation: toolgatev1alpha1.ApprovalSingle, MinTrustLevel: 3}}
}

func pendingCall(id string, fp toolgatev1alpha1.Fingerprint, agent string, expiresIn time.Duration) toolgatev1alpha1.PendingCall {
	ns, pod, _ := strings.Cut(agent, "/")
	return toolgatev1alpha1.PendingCall{
		ID: id, Fingerprint: fp, ArgumentsDigest: "sha256:2222222222222222222222222222222222222222222222222222222222222222",
		Agent:         toolgatev1alpha1.AgentIdentity{Namespace: ns, Pod: pod, ServiceAccount: "agent"},
		RequestedTime: metav1.NewTime(now.Add(-time.Minute)), ExpiryTime: metav1.NewTime(now.Add(expiresIn)),
	}
}

// controlPlane starts a kube-apiserver and etcd for one test, or skips it
// when the binaries are missing and testenv.RequireEnv is not set.
func controlPlane(t *testing.T) *testenv.Env {
	t.Helper()
	env, err := testenv.Start()
	if errors.Is(err, testenv.ErrNoBinaries) && os.Getenv(testenv.RequireEnv) == "" {
		t.Skipf("%v (set %s=1 to make this a failure)", err, testenv.RequireEnv)
	}
	if err != nil {
		t.Fatal(err)
	}
	env.StopAtCleanup(t)
	return env
}

// storedTrustedPin creates a pin trusted on first use in a namespace of its
// own, and returns it as stored.
func storedTrustedPin(ctx context.Context, t *testing.T, c client.Client) *toolgatev1alpha1.ToolPin {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "pins-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	pin := newPin()
	pin.Namespace = ns.Name
	if err := c.Create(ctx, pin); err != nil {
		t.Fatal(err)
	}
	if _, err := (Writer{Client: c}).Write(ctx, pin, observed(t), now); err != nil {
		t.Fatal(err)
	}
	if pin.Status.State != toolgatev1alpha1.PinTrusted || pin.Labels[toolgatev1alpha1.LabelState] != "Trusted" {
		t.Fatalf("the first observation wrote %s, labels %v", pin.Status.State, pin.Labels)
	}
	return pin
}

// laggingReader answers reads of a pin with the copy it holds for the
// first stale reads, as an informer cache that has not yet seen the last
// write does, then reads the API server.
type laggingReader struct {
	client.Reader
	mu    sync.Mutex
	copy  *toolgatev1alpha1.ToolPin
	stale int
}

func (r *laggingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if pin, ok := obj.(*toolgatev1alpha1.ToolPin); ok && r.stale > 0 {
		r.stale--
		r.copy.DeepCopyInto(pin)
		return nil
	}
	return r.Reader.Get(ctx, key, obj, opts...)
}

// TestWriterLosesNoConcurrentChange writes one pin from many writers at
// once, as gate server replicas, the controllers and people do, against
// a real API server: every change lands, each decided on the status the
// others left, and a writer that reads from a cache that lags behind
// waits for it rather than writing over what it has not seen.
func TestWriterLosesNoConcurrentChange(t *testing.T) {
	env := controlPlane(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pin := storedTrustedPin(ctx, t, env.Client)
	key := client.ObjectKeyFromObject(pin)

	t.Run("concurrent calls and decisions all land", func(t *testing.T) {
		const writers = 6
		var wg sync.WaitGroup
		errs := make(chan error, writers+1)
		for i := range writers {
			wg.Go(func() {
				call := pendingCall(fmt.Sprintf("call-%d", i), pin.Status.ObservedFingerprint, fmt.Sprintf("agents/agent-%d", i), time.Hour)
				target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
				if _, err := (Writer{Client: env.Client}).Write(ctx, target, pinrecord.CallOpened{Call: call}, now); err != nil {
					errs <- fmt.Errorf("opening %s: %w", call.ID, err)
				}
			})
		}
		// A person appends a decision meanwhile, as the approval webhooks
		// let people: a JSON patch the API server applies to what it holds.
		wg.Go(func() {
			patch := client.RawPatch(types.JSONPatchType,
				fmt.Appendf(nil, `[{"op":"add","path":"/status/decisions/-","value":{"action":"Approve","fingerprint":%q,"user":"alice"}}]`, pin.Status.ObservedFingerprint))
			if err := env.Client.Status().Patch(ctx, &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}, patch); err != nil {
				errs <- fmt.Errorf("appending a decision: %w", err)
			}
		})
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		var got toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		for i := range writers {
			if lifecycle.PendingCall(&got.Status, fmt.Sprintf("call-%d", i)) == nil {
				t.Errorf("call-%d was lost", i)
			}
		}
		if len(got.Status.Decisions) != 1 || got.Status.Decisions[0].User != "alice" {
			t.Errorf("the person's decision was lost: %+v", got.Status.Decisions)
		}
	})

	t.Run("a cache that lags is waited for, not written over", func(t *testing.T) {
		var cached toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &cached); err != nil {
			t.Fatal(err)
		}
		// Another writer resolves a call after the cache was filled.
		if _, err := (Writer{Client: env.Client}).Write(ctx, cached.DeepCopy(), pinrecord.CallResolved{ID: "call-0", Verdict: toolgatev1alpha1.CallRejected}, now); err != nil {
			t.Fatal(err)
		}
		lagging := &laggingReader{Reader: env.Client, copy: cached.DeepCopy(), stale: 3}
		in := cached.DeepCopy()
		res, err := (Writer{Client: env.Client, Reader: lagging}).Write(ctx, in, pinrecord.CallResolved{ID: "call-1", Verdict: toolgatev1alpha1.CallApproved}, now)
		if err != nil {
			t.Fatal(err)
		}
		if lagging.stale != 0 {
			t.Fatalf("the writer gave up before the cache caught up (%d stale reads left)", lagging.stale)
		}
		var got toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]toolgatev1alpha1.CallVerdict{"call-0": toolgatev1alpha1.CallRejected, "call-1": toolgatev1alpha1.CallApproved} {
			if r := lifecycle.ResolvedCall(&got.Status, id); r == nil || r.Verdict != want {
				t.Errorf("the record of %s: %+v, want %s", id, r, want)
			}
		}
		if res.Recorded != toolgatev1alpha1.CallApproved || in.ResourceVersion != got.ResourceVersion {
			t.Errorf("recorded %q; the pin handed in is at %s, the stored one at %s", res.Recorded, in.ResourceVersion, got.ResourceVersion)
		}
	})

	t.Run("a writer that never sees the winning write gives up with the conflict", func(t *testing.T) {
		var cached toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &cached); err != nil {
			t.Fatal(err)
		}
		if _, err := (Writer{Client: env.Client}).Write(ctx, cached.DeepCopy(), pinrecord.CallResolved{ID: "call-2", Verdict: toolgatev1alpha1.CallRejected}, now); err != nil {
			t.Fatal(err)
		}
		stuck := &laggingReader{Reader: env.Client, copy: cached.DeepCopy(), stale: 1000}
		quick := wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 3}
		_, err := (Writer{Client: env.Client, Reader: stuck, Backoff: quick}).Write(ctx, cached.DeepCopy(), pinrecord.CallResolved{ID: "call-3", Verdict: toolgatev1alpha1.CallApproved}, now)
		if !apierrors.IsConflict(err) {
			t.Fatalf("error %v, want a conflict", err)
		}
		var got toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		if lifecycle.PendingCall(&got.Status, "call-3") == nil || lifecycle.ResolvedCall(&got.Status, "call-2") == nil {
			t.Error("a writer that gave up changed the pin, or undid the write it lost to")
		}
	})

	t.Run("a change learned from a cache is learned again after a conflict", func(t *testing.T) {
		// The cache said the server was gone; by the time the write lands,
		// a server re-created under its name has observed the pin. Replaying
		// the deletion would mark the new server's tool Removed.
		var cached toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &cached); err != nil {
			t.Fatal(err)
		}
		if _, err := (Writer{Client: env.Client}).Write(ctx, cached.DeepCopy(), observed(t), now); err != nil {
			t.Fatal(err)
		}
		// Another writer lands between the read and the write.
		if err := env.Client.Status().Patch(ctx, &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}},
			client.RawPatch(types.MergePatchType, []byte(`{"status":{"lastSeenTime":"2026-01-01T00:00:00Z"}}`))); err != nil {
			t.Fatal(err)
		}
		var asked int
		learn := func(context.Context) (pinrecord.Change, runtime.Object, error) {
			asked++
			if asked == 1 {
				return pinrecord.Gone{ServerDeleted: true}, nil, nil
			}
			return pinrecord.Reviewed{}, nil, nil
		}
		if _, err := (Writer{Client: env.Client}).WriteLearned(ctx, cached.DeepCopy(), learn, now); err != nil {
			t.Fatal(err)
		}
		var got toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		if asked < 2 || got.Status.State == toolgatev1alpha1.PinRemoved {
			t.Errorf("asked for the change %d times; the pin is %s: a stale change was replayed after the conflict", asked, got.Status.State)
		}
	})

	t.Run("a refusal writes nothing", func(t *testing.T) {
		var before toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &before); err != nil {
			t.Fatal(err)
		}
		target := &toolgatev1alpha1.ToolPin{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		_, err := (Writer{Client: env.Client}).Write(ctx, target, pinrecord.CallOpened{Call: pendingCall("call-4", "sha256:3333333333333333333333333333333333333333333333333333333333333333", "agents/x", time.Hour)}, now)
		var refused *pinrecord.Refusal
		if !errors.As(err, &refused) || refused.Kind != pinrecord.RefusedNotTrusted {
			t.Fatalf("error %v, want a refusal: not trusted", err)
		}
		var after toolgatev1alpha1.ToolPin
		if err := env.Client.Get(ctx, key, &after); err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Error("a refused call wrote the pin")
		}
	})
}
