package ociimage

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Epoch is the time every image of this package carries: the mtime of each
// file and the config's creation time. A build's wall clock would make two
// builds of the same inputs differ.
var Epoch = time.Unix(0, 0).UTC()

// NonrootUID and NonrootGID are the user and group distroless/static:nonroot
// runs as, which the chart's restricted securityContext expects.
const (
	NonrootUID = 65532
	NonrootGID = 65532
)

// Spec is one image: its name, its files and how it runs.
type Spec struct {
	// Ref is the name the tarball records and a runtime imports the image
	// under, with registry, repository and tag all explicit
	// (ghcr.io/toolgate/gate:dev, docker.io/local/pause:1): a runtime
	// normalises a short name, and a pod must name the image exactly as
	// it was imported.
	Ref string
	// Files are placed in the image over the base filesystem; their
	// parent directories are made as needed (0755, owned by root).
	Files []File
	// Entrypoint is the program and its first arguments; Entrypoint[0]
	// must be an executable file of the image, as there is no shell.
	Entrypoint []string
	// Args are the default arguments after the entrypoint (the config's
	// Cmd); a pod's args replace them.
	Args []string
	// Env holds KEY=VALUE pairs.
	Env []string
	// WorkingDir is the process's working directory; empty means /.
	WorkingDir string
	// User is "UID" or "UID:GID", numeric: the kubelet can verify
	// runAsNonRoot only against a numeric user. Empty means root.
	User string
	// Labels are the config's labels.
	Labels map[string]string
	// Architecture is the config's CPU architecture; empty means the
	// architecture of this machine (runtime.GOARCH). The OS is linux.
	Architecture string
}

// File is one regular file of an image.
type File struct {
	// Path is the absolute, clean path in the image (/manager).
	Path string
	// Mode holds the permission bits, and optionally setuid, setgid and
	// sticky; zero is refused, as it is always a mistake.
	Mode fs.FileMode
	// UID and GID own the file; zero, root, unless set.
	UID, GID int
	// Contents are the file's bytes, unless Source is set.
	Contents []byte
	// Source is a file on this machine whose bytes the image holds. Its
	// mode and owner on disk do not count: Mode, UID and GID do, so that
	// the image does not depend on the machine's umask or users.
	Source string
}

// Result says what Write wrote.
type Result struct {
	// File is the tarball's path.
	File string
	// Ref is the image's name as the tarball records it.
	Ref string
	// Digest is the image manifest's digest, the one a registry would
	// serve this image under.
	Digest v1.Hash
	// ImageID is the config's digest: the image ID of docker and
	// containerd. A runtime that imports a docker-archive writes a
	// manifest of its own, whose digest may differ from Digest; the
	// image ID is the same everywhere.
	ImageID v1.Hash
}

// Write builds the image spec describes and writes it to outFile as a
// docker-archive tarball. The file appears complete or not at all: it is
// written under a temporary name in the same directory, then renamed.
func Write(spec Spec, outFile string) (Result, error) {
	img, tag, err := build(spec)
	if err != nil {
		return Result{}, err
	}
	digest, err := img.Digest()
	if err != nil {
		return Result{}, fmt.Errorf("image digest: %w", err)
	}
	imageID, err := img.ConfigName()
	if err != nil {
		return Result{}, fmt.Errorf("image config digest: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(outFile), "."+filepath.Base(outFile)+"-*")
	if err != nil {
		return Result{}, fmt.Errorf("writing %s: %w", outFile, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if err := tarball.Write(tag, img, tmp); err != nil {
		tmp.Close()
		return Result{}, fmt.Errorf("writing %s: %w", outFile, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return Result{}, fmt.Errorf("writing %s: %w", outFile, err)
	}
	if err := tmp.Close(); err != nil {
		return Result{}, fmt.Errorf("writing %s: %w", outFile, err)
	}
	if err := os.Rename(tmp.Name(), outFile); err != nil {
		return Result{}, fmt.Errorf("writing %s: %w", outFile, err)
	}
	return Result{File: outFile, Ref: tag.String(), Digest: digest, ImageID: imageID}, nil
}

// Build returns the image spec describes, for a caller that writes it
// elsewhere or inspects it.
func Build(spec Spec) (v1.Image, error) {
	img, _, err := build(spec)
	return img, err
}

func build(spec Spec) (v1.Image, name.Tag, error) {
	tag, err := parseRef(spec.Ref)
	if err != nil {
		return nil, name.Tag{}, err
	}
	entries, err := layerEntries(spec.Files)
	if err != nil {
		return nil, name.Tag{}, err
	}
	if err := checkRuntime(spec, entries); err != nil {
		return nil, name.Tag{}, err
	}
	layerBytes, err := layerTar(entries)
	if err != nil {
		return nil, name.Tag{}, err
	}
	// The tar is in memory, so every read of the layer (its digest, its
	// diff ID, the write) sees the same bytes; the compressed form is
	// cached because gzip of a whole binary is the slow part.
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithCompressedCaching)
	if err != nil {
		return nil, name.Tag{}, fmt.Errorf("layer: %w", err)
	}
	arch := spec.Architecture
	if arch == "" {
		arch = runtime.GOARCH
	}
	base, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      v1.Time{Time: Epoch},
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: slices.Clone(spec.Entrypoint),
			Cmd:        slices.Clone(spec.Args),
			Env:        slices.Clone(spec.Env),
			WorkingDir: spec.WorkingDir,
			User:       spec.User,
			Labels:     maps.Clone(spec.Labels),
		},
	})
	if err != nil {
		return nil, name.Tag{}, fmt.Errorf("image config: %w", err)
	}
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: Epoch}, CreatedBy: describeFiles(spec.Files)},
	})
	if err != nil {
		return nil, name.Tag{}, fmt.Errorf("image layer: %w", err)
	}
	return img, tag, nil
}

func parseRef(ref string) (name.Tag, error) {
	if ref == "" {
		return name.Tag{}, errors.New("ref: empty; give registry/repository:tag, e.g. ghcr.io/toolgate/gate:dev")
	}
	// Strict: the registry and the tag are written out, so the name in the
	// tarball is the name a pod spec must use, with nothing implied.
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return name.Tag{}, fmt.Errorf("ref: %q is not registry/repository:tag with all three explicit: %w", ref, err)
	}
	return tag, nil
}

// entry is one tar entry of the layer: a directory or a regular file.
type entry struct {
	path     string // absolute, clean
	dir      bool
	mode     int64 // tar's mode bits: permissions, setuid 04000, setgid 02000, sticky 01000
	uid, gid int
	data     []byte
	field    string // where it came from, for errors: "files[2]" or "the base filesystem"
}

const baseField = "the base filesystem"

// baseEntries is what distroless/static:nonroot gives a static binary and
// what a pod under a restricted securityContext needs: users to resolve
// numeric IDs (Go's os/user, logs that name the user), a writable /tmp for
// every user, a home for nonroot, and name resolution from /etc/hosts
// before DNS, as the kubelet writes /etc/hosts for every pod.
func baseEntries() []entry {
	dir := func(p string, mode int64, uid, gid int) entry {
		return entry{path: p, dir: true, mode: mode, uid: uid, gid: gid, field: baseField}
	}
	file := func(p, content string) entry {
		return entry{path: p, mode: 0o644, data: []byte(content), field: baseField}
	}
	return []entry{
		dir("/etc", 0o755, 0, 0),
		file("/etc/passwd", "root:x:0:0:root:/root:/sbin/nologin\n"+
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n"+
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"),
		file("/etc/group", "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"),
		file("/etc/nsswitch.conf", "hosts: files dns\n"),
		dir("/home", 0o755, 0, 0),
		dir("/home/nonroot", 0o700, NonrootUID, NonrootGID),
		dir("/root", 0o700, 0, 0),
		dir("/tmp", 0o1777, 0, 0),
	}
}

// layerEntries checks files and returns every entry of the layer, sorted
// by path, so that a parent directory precedes what it holds and the same
// files always give the same bytes.
func layerEntries(files []File) ([]entry, error) {
	byPath := map[string]entry{}
	for _, e := range baseEntries() {
		byPath[e.path] = e
	}
	var added []entry
	for i, f := range files {
		field := fmt.Sprintf("files[%d]", i)
		e, err := fileEntry(field, f)
		if err != nil {
			return nil, err
		}
		if prev, ok := byPath[e.path]; ok {
			return nil, fmt.Errorf("%s.path: %s is already a path of %s", field, e.path, prev.field)
		}
		byPath[e.path] = e
		added = append(added, e)
	}
	// Parents: a file's ancestors must be directories; the missing ones
	// are made, owned by root, as a Dockerfile's COPY makes them.
	for _, e := range added {
		for p := path.Dir(e.path); p != "/"; p = path.Dir(p) {
			parent, ok := byPath[p]
			if !ok {
				byPath[p] = entry{path: p, dir: true, mode: 0o755, field: "the parents of " + e.field}
				continue
			}
			if !parent.dir {
				return nil, fmt.Errorf("%s.path: %s lies under %s, which is a file of %s", e.field, e.path, p, parent.field)
			}
		}
	}
	entries := make([]entry, 0, len(byPath))
	for _, e := range byPath {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	return entries, nil
}

func fileEntry(field string, f File) (entry, error) {
	if err := checkImagePath(field+".path", f.Path); err != nil {
		return entry{}, err
	}
	if f.Mode == 0 {
		return entry{}, fmt.Errorf("%s.mode: no permission bits for %s; give them, e.g. 0o755 for a program, 0o644 for data", field, f.Path)
	}
	if extra := f.Mode &^ (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); extra != 0 {
		return entry{}, fmt.Errorf("%s.mode: %v for %s is not a regular file's mode: only permission, setuid, setgid and sticky bits", field, f.Mode, f.Path)
	}
	if f.UID < 0 || f.GID < 0 {
		return entry{}, fmt.Errorf("%s.uid/gid: %d:%d for %s is negative", field, f.UID, f.GID, f.Path)
	}
	data := f.Contents
	if f.Source != "" {
		if f.Contents != nil {
			return entry{}, fmt.Errorf("%s: %s has both contents and a source; give one", field, f.Path)
		}
		var err error
		if data, err = os.ReadFile(f.Source); err != nil {
			return entry{}, fmt.Errorf("%s.source: for %s: %w", field, f.Path, err)
		}
	}
	mode := int64(f.Mode.Perm())
	if f.Mode&fs.ModeSetuid != 0 {
		mode |= 0o4000
	}
	if f.Mode&fs.ModeSetgid != 0 {
		mode |= 0o2000
	}
	if f.Mode&fs.ModeSticky != 0 {
		mode |= 0o1000
	}
	return entry{path: f.Path, mode: mode, uid: f.UID, gid: f.GID, data: data, field: field}, nil
}

func checkImagePath(field, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%s: empty", field)
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("%s: %q is not absolute; paths in an image start at /", field, p)
	case p == "/":
		return fmt.Errorf("%s: / is the image's root, not a file", field)
	case path.Clean(p) != p:
		return fmt.Errorf("%s: %q is not clean (it would be %s)", field, p, path.Clean(p))
	}
	return nil
}

// numericUser is the only form of USER the kubelet can check against
// runAsNonRoot without reading the image's /etc/passwd.
var numericUser = regexp.MustCompile(`^[0-9]+(:[0-9]+)?$`)

// checkRuntime checks how the image runs against what it holds: with no
// shell and no PATH lookup worth relying on, the entrypoint must be an
// executable file of the image.
func checkRuntime(spec Spec, entries []entry) error {
	if len(spec.Entrypoint) == 0 {
		return errors.New("entrypoint: empty; an image without a shell needs its program's path, e.g. [/gate]")
	}
	program := spec.Entrypoint[0]
	if err := checkImagePath("entrypoint[0]", program); err != nil {
		return err
	}
	i := sort.Search(len(entries), func(i int) bool { return entries[i].path >= program })
	if i == len(entries) || entries[i].path != program || entries[i].dir {
		return fmt.Errorf("entrypoint[0]: %s is not a file of the image", program)
	}
	if entries[i].mode&0o111 == 0 {
		return fmt.Errorf("entrypoint[0]: %s is not executable (mode %04o)", program, entries[i].mode)
	}
	keys := map[string]int{}
	for i, kv := range spec.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("env[%d]: %q is not KEY=VALUE", i, kv)
		}
		if j, dup := keys[k]; dup {
			return fmt.Errorf("env[%d]: %s is already set by env[%d]", i, k, j)
		}
		keys[k] = i
	}
	if wd := spec.WorkingDir; wd != "" && (!strings.HasPrefix(wd, "/") || path.Clean(wd) != wd) {
		return fmt.Errorf("workingDir: %q is not an absolute, clean path", wd)
	}
	if spec.User != "" && !numericUser.MatchString(spec.User) {
		return fmt.Errorf("user: %q is not UID or UID:GID in numbers; the kubelet checks runAsNonRoot only against a numeric user", spec.User)
	}
	for k := range spec.Labels {
		if k == "" {
			return errors.New("labels: an empty key")
		}
	}
	return nil
}

// layerTar writes entries, already sorted, as an uncompressed tar: epoch
// mtimes, numeric owners and no user or group names, so that nothing of
// the building machine enters the layer.
func layerTar(entries []entry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name:    strings.TrimPrefix(e.path, "/"),
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.gid,
			ModTime: Epoch,
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.path, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("layer entry %s: %w", e.path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return buf.Bytes(), nil
}

// describeFiles names the files an image adds, for its history entry.
func describeFiles(files []File) string {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return "ociimage: the base filesystem"
	}
	return "ociimage: the base filesystem and " + strings.Join(paths, " ")
}
