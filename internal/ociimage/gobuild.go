package ociimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The runtime configuration of distroless/static:nonroot, which
// Dockerfile.manager and Dockerfile.gate inherit: a Go image built here
// runs the way theirs do.
const (
	// DefaultPath is distroless's PATH.
	DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	// NonrootHome is nonroot's home, distroless's working directory.
	NonrootHome = "/home/nonroot"
	// CABundlePath is where distroless keeps its CA certificates, and
	// where SSL_CERT_FILE points.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
)

// GoImage is a main package of a Go module, built into an image as
// Dockerfile.manager and Dockerfile.gate build theirs.
type GoImage struct {
	// Package is the main package: a path relative to ModuleDir
	// (./cmd/gate) or an import path of the module.
	Package string
	// Name is the binary's name: the image holds it at /<Name>, and
	// /<Name> is the entrypoint.
	Name string
	// Ref is the image's name (see Spec.Ref).
	Ref string
	// LDFlags are linker flags after -s -w, e.g. "-X main.version=0.1.0".
	LDFlags string
	// Args are the default arguments after the entrypoint.
	Args []string
	// Labels are the config's labels.
	Labels map[string]string
	// ModuleDir is the directory go build runs in; empty means the
	// current one.
	ModuleDir string
	// Architecture is the GOARCH of the build and of the image; empty
	// means this machine's.
	Architecture string
	// CABundle, when set, is a file of PEM CA certificates placed where
	// distroless keeps its own, for a program that calls TLS servers
	// outside the cluster. Empty leaves it out: a bundle taken from the
	// building machine would make the image depend on that machine.
	CABundle string
}

// BuildGoImage compiles g's package as the Dockerfiles do, static and
// stripped, with -trimpath and without version-control stamping, and
// writes the image to outFile (see Write).
//
// -buildvcs=false is deliberate. Inside a git checkout, go build stamps
// the commit, its time and whether the tree has uncommitted changes into
// the binary, so an unrelated edit or a new commit would change the
// digest of an unchanged program; the Dockerfiles never stamp either,
// since .dockerignore leaves .git out of the build context. The version
// a binary reports comes from LDFlags instead.
func BuildGoImage(ctx context.Context, g GoImage, outFile string) (Result, error) {
	if g.Name == "" || strings.ContainsAny(g.Name, `/\`) || g.Name == "." || g.Name == ".." {
		return Result{}, fmt.Errorf("name: %q is not a file name; the binary lands at /<name>", g.Name)
	}
	if g.Package == "" {
		return Result{}, errors.New("package: empty; give the main package, e.g. ./cmd/gate")
	}
	// Before the build, which can take minutes, not after it.
	if _, err := parseRef(g.Ref); err != nil {
		return Result{}, err
	}
	arch := g.Architecture
	if arch == "" {
		arch = runtime.GOARCH
	}
	dir, err := os.MkdirTemp("", "ociimage-gobuild-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	binary := filepath.Join(dir, g.Name)
	ldflags := strings.TrimSpace("-s -w " + g.LDFlags)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", binary, g.Package)
	cmd.Dir = g.ModuleDir
	// The later value of a variable wins. GOFLAGS holds the recipe's own
	// flag, not nothing: go reads an empty GOFLAGS from `go env -w`'s
	// file, and neither that file nor the environment may add flags to
	// the recipe. GOWORK=off builds the module as its go.mod pins it, as
	// the Dockerfiles do.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=-buildvcs=false", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("package: go build %s: %w: %s", g.Package, err, strings.TrimSpace(stderr.String()))
	}
	if err := checkExecutable(binary); err != nil {
		return Result{}, fmt.Errorf("package: %s: %w", g.Package, err)
	}
	spec := Spec{
		Ref:          g.Ref,
		Files:        []File{{Path: "/" + g.Name, Mode: 0o755, Source: binary}},
		Entrypoint:   []string{"/" + g.Name},
		Args:         g.Args,
		Env:          []string{"PATH=" + DefaultPath},
		WorkingDir:   NonrootHome,
		User:         fmt.Sprintf("%d:%d", NonrootUID, NonrootGID),
		Labels:       g.Labels,
		Architecture: arch,
	}
	if g.CABundle != "" {
		spec.Files = append(spec.Files, File{Path: CABundlePath, Mode: 0o644, Source: g.CABundle})
		spec.Env = append(spec.Env, "SSL_CERT_FILE="+CABundlePath)
	}
	return Write(spec, outFile)
}

// checkExecutable refuses what go build writes for a package that is not
// main: an image whose entrypoint cannot run would fail only in a pod.
func checkExecutable(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, []byte("\x7fELF")) {
		return errors.New("go build wrote no Linux executable; is it package main?")
	}
	return nil
}
