package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

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
