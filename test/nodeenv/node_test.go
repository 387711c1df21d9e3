package nodeenv

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/toolgate/toolgate/internal/ociimage"
	"github.com/toolgate/toolgate/internal/testenv"
)

// TestNodeRunsAPod starts the node, runs a pod on it whose native sidecar
// starts before its main container, and leaves the machine as it was (Run
// checks). With TOOLGATE_NODE_HOLD=1 it keeps the node until interrupted
// and says how to reach it.
func TestNodeRunsAPod(t *testing.T) {
	Run(t, Options{Prepare: func(t *testing.T, dir string) []string {
		res, err := ociimage.BuildGoImage(t.Context(), ociimage.GoImage{
			Package: "./hack/images/pause", Name: "pause", Ref: "docker.io/toolgate-test/pause:node", ModuleDir: testenv.RepoRoot(),
		}, filepath.Join(dir, "pause.tar"))
		if err != nil {
			t.Fatal(err)
		}
		return []string{res.File}
	}}, func(t *testing.T, n *Node) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		always := corev1.ContainerRestartPolicyAlways
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "sidecar", Namespace: "default"},
			Spec: corev1.PodSpec{
				TerminationGracePeriodSeconds: new(int64),
				InitContainers: []corev1.Container{{Name: "sidecar", Image: "docker.io/toolgate-test/pause:node",
					ImagePullPolicy: corev1.PullNever, RestartPolicy: &always}},
				Containers: []corev1.Container{{Name: "main", Image: "docker.io/toolgate-test/pause:node", ImagePullPolicy: corev1.PullNever}},
			},
		}
		if err := n.Client.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		if err := n.waitFor(ctx, "the pod Running", 2*time.Minute, func() error {
			if err := n.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
				return err
			}
			if pod.Status.Phase != corev1.PodRunning {
				return fmt.Errorf("phase %s: %+v", pod.Status.Phase, pod.Status.Conditions)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sidecar, main := pod.Status.InitContainerStatuses[0].State.Running, pod.Status.ContainerStatuses[0].State.Running
		if sidecar == nil || main == nil || main.StartedAt.Before(&sidecar.StartedAt) {
			t.Errorf("the sidecar %+v, the main container %+v: the sidecar must start first", sidecar, main)
		}
		n.Hold(t)
	})
}
