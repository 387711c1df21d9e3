// Command images builds the operator's and the gate's container images as
// docker-archive tarballs, without Docker, from the recipe of
// Dockerfile.manager and Dockerfile.gate (internal/ociimage): a node's
// containerd imports them with `ctr -n k8s.io images import FILE`.
//
//	go run ./hack/images [-out bin/images] [-version dev] [-extra NAME=REF=PACKAGE ...]
//
// -extra builds any other main package of the module the same way, at
// /NAME with /NAME as its entrypoint, into OUT/NAME.tar:
//
//	-extra pause=docker.io/local/pause:1=./hack/images/pause
//	-extra agent=docker.io/local/agent:1=./hack/demo/agent
//	-extra sampleserver=docker.io/local/sampleserver:1=./hack/demo/sampleserver
//
// It prints each tarball with its image's name, manifest digest and image
// ID. The same commit, built with the same Go toolchain, gives the same
// digests.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/toolgate/toolgate/internal/ociimage"
)

func main() {
	out := flag.String("out", "bin/images", "directory to write the tarballs into")
	version := flag.String("version", "dev", "the images' tag and the version stamped into the manager")
	caBundle := flag.String("ca-bundle", "", "a PEM file of CA certificates to place at "+ociimage.CABundlePath+" in every image, as distroless has (none by default, so the images do not depend on this machine)")
	var extras []ociimage.GoImage
	flag.Func("extra", "another main package to build, as NAME=REF=PACKAGE (repeatable), e.g. pause=docker.io/local/pause:1=./hack/images/pause", func(s string) error {
		parts := strings.Split(s, "=")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return fmt.Errorf("%q is not NAME=REF=PACKAGE", s)
		}
		extras = append(extras, ociimage.GoImage{Name: parts[0], Ref: parts[1], Package: parts[2]})
		return nil
	})
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintf(os.Stderr, "images: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *caBundle, append([]ociimage.GoImage{ociimage.ManagerImage(*version), ociimage.GateImage(*version)}, extras...)); err != nil {
		fmt.Fprintf(os.Stderr, "images: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, caBundle string, images []ociimage.GoImage) error {
	seen := map[string]bool{}
	for _, img := range images {
		if seen[img.Name] {
			return fmt.Errorf("two images named %s would write the same %s.tar", img.Name, img.Name)
		}
		seen[img.Name] = true
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// The digests depend on the toolchain that compiles the binaries: the
	// go on PATH, which need not be the one that runs this command.
	goVersion, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return fmt.Errorf("go env GOVERSION: %w", err)
	}
	fmt.Printf("images: linux/%s, %s\n", runtime.GOARCH, strings.TrimSpace(string(goVersion)))
	for _, img := range images {
		img.CABundle = caBundle
		res, err := ociimage.BuildGoImage(ctx, img, fmt.Sprintf("%s/%s.tar", out, img.Name))
		if err != nil {
			return fmt.Errorf("%s: %w", img.Name, err)
		}
		fmt.Printf("%s\t%s\t%s\timage-id %s\n", res.File, res.Ref, res.Digest, res.ImageID)
	}
	return nil
}
