// Package ociimage writes container images as docker-archive tarballs, the
// format `ctr images import` and `docker load` read, without a container
// engine: one layer over an empty base, holding the files the caller names
// and a small root filesystem in the shape of distroless/static:nonroot
// (/etc/passwd and /etc/group with root and nonroot, a sticky /tmp, a home
// for 65532). That is all a static Go binary needs, and no shell.
//
// The images are reproducible: every entry has the Unix epoch as its mtime,
// entries are sorted, owners are numeric, and the config's creation time is
// the epoch too, so the same inputs give the same digest, on any machine.
// BuildGoImage adds the Go build to that: it compiles a main package the
// way Dockerfile.manager and Dockerfile.gate do, with the flags that keep a
// binary a function of its source alone.
//
// The package builds and writes images; it does not import them into a
// runtime, push them to a registry, or run them.
package ociimage
