// Command pause is a pod sandbox's process, the part of the Kubernetes
// pause image a node needs: it holds the pod's namespaces open until the
// runtime stops it with SIGTERM or SIGINT, then exits 0. As PID 1 of a pod
// that shares its process namespace, it also reaps the orphans that are
// re-parented to it, as the Kubernetes pause does. It says on stderr when
// it is waiting: a signal sent before then may find it without its handler.
//
//	go run ./hack/images -extra pause=docker.io/local/pause:1=./hack/images/pause
//
// builds it into the image a node's containerd names as sandbox_image, so
// that a node without a registry never pulls one.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	fmt.Fprintln(os.Stderr, "pause: waiting for SIGTERM or SIGINT")
	for {
		select {
		case <-stop:
			os.Exit(0)
		case <-children:
			// Reap every child that has exited; WNOHANG returns at once
			// when none has.
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
