package pinwriter

import (
	"context"
	"fmt"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/pinrecord"
)

// ConflictBackoff paces the attempts of a write that conflicted with
// another writer's: eight attempts over about five seconds, doubling from
// 20ms with jitter. The writers of one pin — the two controllers, the gate
// server replicas, people appending decisions — write in bursts (a probe
// rewrites every pin of a server; a decision wakes the ToolPin controller),
// and on a loaded machine a burst, or an informer cache catching up with
// one, takes far longer than the 50ms of client-go's retry.DefaultRetry.
func ConflictBackoff() wait.Backoff {
	return wait.Backoff{Duration: 20 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: 8, Cap: 2 * time.Second}
}

// Writer records changes of ToolPins. It is the one writer of ToolPin
// status in the operator.
type Writer struct {
	// Client patches the status and the labels.
	Client client.Client
	// Reader reads a pin afresh after a conflict, and a pin known only by
	// name; Client when nil. A reader that bypasses the informer cache
	// sees the write that won at once.
	Reader client.Reader
	// Recorder records the Events of each change; none when nil.
	Recorder events.EventRecorder
	// Related is named as related in the Events of review transitions: the
	// pin's MCPServer, when the caller holds it.
	Related runtime.Object
	// Backoff paces attempts after conflicts; ConflictBackoff() when zero.
	Backoff wait.Backoff
}

// Write decides change on pin at now (pinrecord.Decide) and records the result: the
// status in one patch under an optimistic lock, only when it changed, then
// the Events, then the labels. On a conflict it reads the pin again and
// decides again on what it reads, until the attempts of the backoff run
// out. pin is the pin as the caller read it, perhaps from a cache, and is
// updated in place to the pin as written; a pin that carries only its
// namespace and name (no resourceVersion) is read first.
//
// A pinrecord.Refusal (a call that may not open) is returned as the
// error, with nothing written.
func (w Writer) Write(ctx context.Context, pin *toolgatev1alpha1.ToolPin, change pinrecord.Change, now metav1.Time) (pinrecord.Result, error) {
	return w.WriteLearned(ctx, pin, func(context.Context) (pinrecord.Change, runtime.Object, error) { return change, w.Related, nil }, now)
}

// WriteLearned is Write for a change that is itself read from the cluster
// and may no longer hold when the write conflicts: learn is asked for the
// change before every attempt, with the object to name as related in its
// Events (in place of Related). The ToolPin controller learns from a cache
// that its pin's server is gone; if a server re-created under that name
// is probed and writes the pin first, the conflict must not replay the
// server's deletion over the new server's observation.
func (w Writer) WriteLearned(ctx context.Context, pin *toolgatev1alpha1.ToolPin, learn func(context.Context) (pinrecord.Change, runtime.Object, error), now metav1.Time) (pinrecord.Result, error) {
	key := client.ObjectKeyFromObject(pin)
	var change pinrecord.Change
	backoff := w.Backoff
	if backoff.Steps == 0 {
		backoff = ConflictBackoff()
	}
	read := pin.ResourceVersion == ""
	var lost string // the resourceVersion a write lost against
	for {
		if read {
			fresh := &toolgatev1alpha1.ToolPin{}
			if err := w.reader().Get(ctx, key, fresh); err != nil {
				return pinrecord.Result{}, err
			}
			*pin = *fresh
		}
		var err error
		if lost == "" || pin.ResourceVersion != lost {
			if change, w.Related, err = learn(ctx); err != nil {
				return pinrecord.Result{}, err
			}
			res := pinrecord.Decide(pin, change, now)
			if res.Refused != nil {
				return res, res.Refused
			}
			if res.Skip {
				return res, nil
			}
			err = w.record(ctx, pin, res)
			if !apierrors.IsConflict(err) {
				return res, err
			}
			lost = pin.ResourceVersion
		}
		// Lost to another writer, or read from a cache that has not seen
		// that writer's write yet: wait, read again, decide again.
		if backoff.Steps <= 1 {
			if err == nil {
				err = apierrors.NewConflict(toolgatev1alpha1.GroupVersion.WithResource("toolpins").GroupResource(), key.Name,
					fmt.Errorf("the pin read is still the version a write lost against"))
			}
			return pinrecord.Result{}, fmt.Errorf("recording %s on %s: every attempt lost to another writer: %w", describe(change), key, err)
		}
		if err := sleep(ctx, backoff.Step()); err != nil {
			return pinrecord.Result{}, err
		}
		read = true
	}
}

// record writes one decided result on pin.
func (w Writer) record(ctx context.Context, pin *toolgatev1alpha1.ToolPin, res pinrecord.Result) error {
	key := client.ObjectKeyFromObject(pin)
	// Compared whole: a pin an earlier release wrote with both copies of
	// its definition and risk is not rewritten only to leave them out; its
	// next change does that.
	if !equality.Semantic.DeepEqual(pin.Status.Expanded(), res.Status.Expanded()) {
		orig := pin.DeepCopy()
		pin.Status = res.Status
		if err := w.Client.Status().Patch(ctx, pin, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("patching status of %s: %w", key, err)
		}
		w.emit(pin, res.Events)
	}
	if maps.Equal(pin.Labels, res.Labels) && equality.Semantic.DeepEqual(pin.OwnerReferences, res.OwnerReferences) {
		return nil
	}
	orig := pin.DeepCopy()
	pin.Labels, pin.OwnerReferences = res.Labels, res.OwnerReferences
	if err := w.Client.Patch(ctx, pin, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("labelling %s: %w", key, err)
	}
	return nil
}

// emit records the Events of a change whose status landed.
func (w Writer) emit(pin *toolgatev1alpha1.ToolPin, evs []pinrecord.Event) {
	if w.Recorder == nil {
		return
	}
	for _, e := range evs {
		var related runtime.Object
		if e.Related && w.Related != nil {
			related = w.Related
		}
		w.Recorder.Eventf(pin, related, e.Type, e.Reason, e.Action, "%s", e.Message)
	}
}

func (w Writer) reader() client.Reader {
	if w.Reader != nil {
		return w.Reader
	}
	return w.Client
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// describe names a change in an error.
func describe(c pinrecord.Change) string {
	switch c := c.(type) {
	case pinrecord.Observed:
		return "an observation"
	case pinrecord.Gone:
		if c.ServerDeleted {
			return "the deletion of the server"
		}
		return "the tool's removal"
	case pinrecord.Reviewed:
		return "a review"
	case pinrecord.CallOpened:
		if c.Call.Kind == toolgatev1alpha1.CallKindResult {
			return "the held result of call " + c.Call.ID
		}
		return "pending call " + c.Call.ID
	case pinrecord.CallResolved:
		return fmt.Sprintf("the end (%s) of call %s", c.Verdict, c.ID)
	}
	return fmt.Sprintf("%T", c)
}
