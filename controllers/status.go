package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ensureCondition sets a condition of the given type to Unknown with a
// placeholder reason and message, unless the condition already carries
// another reason: a controller that has real knowledge later must not have
// it reset by this default. A placeholder that stays is moved to the
// current generation, so that it never looks stale after a spec edit.
func ensureCondition(conds *[]metav1.Condition, generation int64, condType, reason, message string) {
	if old := meta.FindStatusCondition(*conds, condType); old != nil && old.Reason != reason {
		return
	}
	meta.SetStatusCondition(conds, metav1.Condition{
		Type:               condType,
		Status:             metav1.ConditionUnknown,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: generation,
	})
}

// patchStatusIfChanged writes obj's status with one merge patch against orig,
// and only when status differs. The optimistic lock makes the patch fail
// with a conflict, rather than overwrite, when someone else wrote the object
// since it was read; the queue then retries on fresh data.
func patchStatusIfChanged(ctx context.Context, c client.Client, orig, obj client.Object, origStatus, newStatus any) error {
	if equality.Semantic.DeepEqual(origStatus, newStatus) {
		return nil
	}
	if err := c.Status().Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patching status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	return nil
}
