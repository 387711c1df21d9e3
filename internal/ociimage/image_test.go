package ociimage

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// sampleSpec is a small image with everything a Spec can hold.
func sampleSpec() Spec {
	return Spec{
		Ref: "ghcr.io/toolgate/sample:1",
		Files: []File{
			{Path: "/sample", Mode: 0o755, Contents: []byte("#!not a real program\n")},
			{Path: "/usr/share/sample/data.txt", Mode: 0o644, UID: NonrootUID, GID: NonrootGID, Contents: []byte("data\n")},
		},
		Entrypoint:   []string{"/sample"},
		Args:         []string{"serve", "-addr", ":8080"},
		Env:          []string{"PATH=" + DefaultPath, "SAMPLE=1"},
		WorkingDir:   NonrootHome,
		User:         "65532:65532",
		Labels:       map[string]string{"org.opencontainers.image.title": "sample"},
		Architecture: "amd64",
	}
}

func writeSpec(t *testing.T, spec Spec) Result {
	t.Helper()
	res, err := Write(spec, filepath.Join(t.TempDir(), "image.tar"))
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return res
}

func TestSameInputsGiveTheSameImage(t *testing.T) {
	source := filepath.Join(t.TempDir(), "program")
	if err := os.WriteFile(source, []byte("program bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := func() Spec {
		s := sampleSpec()
		s.Files = append(s.Files, File{Path: "/bin/program", Mode: 0o755, Source: source})
		// The caller's order of files and labels does not count.
		slices.Reverse(s.Files)
		return s
	}
	first := writeSpec(t, spec())
	second := spec()
	slices.Reverse(second.Files)
	// A source file's own mode and mtime do not count either.
	if err := os.Chmod(source, 0o755); err != nil {
		t.Fatal(err)
	}
	again := writeSpec(t, second)
	if first.Digest != again.Digest || first.ImageID != again.ImageID {
		t.Fatalf("the same inputs gave two images: %s (id %s) and %s (id %s)", first.Digest, first.ImageID, again.Digest, again.ImageID)
	}
	a, err := os.ReadFile(first.File)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(again.File)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("the same inputs gave two tarballs of %d and %d bytes", len(a), len(b))
	}
}

func TestEveryInputCountsInTheDigest(t *testing.T) {
	base := writeSpec(t, sampleSpec())
	for _, tc := range []struct {
		name   string
		change func(*Spec)
	}{
		{"a byte of a file", func(s *Spec) { s.Files[0].Contents = []byte("#!not a real program?\n") }},
		{"a file's mode", func(s *Spec) { s.Files[0].Mode = 0o750 }},
		{"a file's owner", func(s *Spec) { s.Files[1].UID = 1000 }},
		{"a file's path", func(s *Spec) { s.Files[1].Path = "/usr/share/sample/other.txt" }},
		{"one more file", func(s *Spec) {
			s.Files = append(s.Files, File{Path: "/etc/sample.conf", Mode: 0o644, Contents: []byte{}})
		}},
		{"the entrypoint", func(s *Spec) { s.Entrypoint = []string{"/sample", "-v"} }},
		{"the args", func(s *Spec) { s.Args = []string{"serve"} }},
		{"the env", func(s *Spec) { s.Env[1] = "SAMPLE=2" }},
		{"the working directory", func(s *Spec) { s.WorkingDir = "/" }},
		{"the user", func(s *Spec) { s.User = "65534:65534" }},
		{"a label", func(s *Spec) { s.Labels["org.opencontainers.image.title"] = "other" }},
		{"the architecture", func(s *Spec) { s.Architecture = "arm64" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := sampleSpec()
			tc.change(&spec)
			got := writeSpec(t, spec)
			if got.Digest == base.Digest || got.ImageID == base.ImageID {
				t.Fatalf("changing %s left the image as it was: digest %s, image ID %s", tc.name, got.Digest, got.ImageID)
			}
		})
	}
	t.Run("the ref names the image but is not part of it", func(t *testing.T) {
		spec := sampleSpec()
		spec.Ref = "docker.io/local/sample:2"
		got := writeSpec(t, spec)
		if got.Digest != base.Digest || got.ImageID != base.ImageID {
			t.Fatalf("the same image under another name has another digest: %s, not %s", got.Digest, base.Digest)
		}
	})
}

func TestConfigCarriesHowTheImageRuns(t *testing.T) {
	img, err := Build(sampleSpec())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if c.User != "65532:65532" || !slices.Equal(c.Entrypoint, []string{"/sample"}) || !slices.Equal(c.Cmd, []string{"serve", "-addr", ":8080"}) ||
		!slices.Equal(c.Env, []string{"PATH=" + DefaultPath, "SAMPLE=1"}) || c.WorkingDir != NonrootHome ||
		c.Labels["org.opencontainers.image.title"] != "sample" {
		t.Errorf("config = %+v; want the spec's user, entrypoint, args, env, working directory and labels", c)
	}
	if cfg.OS != "linux" || cfg.Architecture != "amd64" {
		t.Errorf("platform = %s/%s, want linux/amd64", cfg.OS, cfg.Architecture)
	}
	if !cfg.Created.Equal(Epoch) {
		t.Errorf("created = %v, want the epoch", cfg.Created)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers = %d (%v), want one", len(layers), err)
	}
	diffID, err := layers[0].DiffID()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.RootFS.DiffIDs, []v1.Hash{diffID}) {
		t.Errorf("rootfs diff IDs = %v, want the one layer's %s", cfg.RootFS.DiffIDs, diffID)
	}

	// An empty architecture is this machine's.
	spec := sampleSpec()
	spec.Architecture = ""
	img, err = Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err = img.ConfigFile(); err != nil || cfg.Architecture != runtime.GOARCH {
		t.Errorf("architecture = %q (%v), want this machine's %s", cfg.Architecture, err, runtime.GOARCH)
	}
}

// TestTarballIsADockerArchiveOfTheRef reads the tarball as a runtime's
// import does: manifest.json names the ref, its config and its layers,
// and each of them is in the archive.
func TestTarballIsADockerArchiveOfTheRef(t *testing.T) {
	res := writeSpec(t, sampleSpec())
	if res.Ref != "ghcr.io/toolgate/sample:1" {
		t.Errorf("result ref = %q", res.Ref)
	}
	members := tarMembers(t, res.File)
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(members["manifest.json"], &manifest); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if len(manifest) != 1 || !slices.Equal(manifest[0].RepoTags, []string{"ghcr.io/toolgate/sample:1"}) {
		t.Fatalf("manifest.json = %+v, want one image tagged ghcr.io/toolgate/sample:1", manifest)
	}
	config, ok := members[manifest[0].Config]
	if !ok {
		t.Fatalf("config %s is not in the archive", manifest[0].Config)
	}
	if got := fmt.Sprintf("sha256:%x", sha256.Sum256(config)); got != res.ImageID.String() {
		t.Errorf("config digest = %s, want the image ID %s", got, res.ImageID)
	}
	for _, l := range manifest[0].Layers {
		if _, ok := members[l]; !ok {
			t.Errorf("layer %s is not in the archive", l)
		}
	}

	tag, err := name.NewTag(res.Ref)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(res.File, &tag)
	if err != nil {
		t.Fatalf("reading the tarball back under its ref: %v", err)
	}
	if digest, err := img.Digest(); err != nil || digest != res.Digest {
		t.Errorf("digest read back = %s (%v), want %s", digest, err, res.Digest)
	}
}

// TestLayerFilesLandWithTheirModesAndOwners holds the layer's listing and
// the config to golden files: the base filesystem's users, /tmp and home,
// the spec's files with their modes and owners, made parents, epoch
// mtimes and no user names. go test -run TestLayerFiles -update rewrites
// them after a change that is meant.
func TestLayerFilesLandWithTheirModesAndOwners(t *testing.T) {
	img, err := Build(sampleSpec())
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var listing strings.Builder
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(Epoch) || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: mtime %v, owner names %q:%q; want the epoch and numbers only", h.Name, h.ModTime, h.Uname, h.Gname)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			fmt.Fprintf(&listing, "dir  %04o %d:%d %s\n", h.Mode, h.Uid, h.Gid, h.Name)
		case tar.TypeReg:
			fmt.Fprintf(&listing, "file %04o %d:%d %s %d bytes sha256:%x\n", h.Mode, h.Uid, h.Gid, h.Name, h.Size, sha256.Sum256(data))
		default:
			t.Errorf("%s: type %c; want only directories and regular files", h.Name, h.Typeflag)
		}
	}
	checkGolden(t, "testdata/layer.golden", []byte(listing.String()))

	raw, err := img.RawConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteString("\n")
	checkGolden(t, "testdata/config.golden.json", pretty.Bytes())
}

func TestBadInputIsRefusedNamingTheField(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"empty ref", func(s *Spec) { s.Ref = "" }, "ref: empty"},
		{"ref without a tag", func(s *Spec) { s.Ref = "ghcr.io/toolgate/sample" }, "ref: "},
		{"ref without a registry", func(s *Spec) { s.Ref = "sample:1" }, "ref: "},
		{"ref with a digest", func(s *Spec) { s.Ref = "ghcr.io/toolgate/sample@sha256:" + strings.Repeat("0", 64) }, "ref: "},
		{"relative path", func(s *Spec) { s.Files[1].Path = "usr/share/sample/data.txt" }, "files[1].path: \"usr/share/sample/data.txt\" is not absolute"},
		{"unclean path", func(s *Spec) { s.Files[1].Path = "/usr/share/../sample" }, "files[1].path: \"/usr/share/../sample\" is not clean"},
		{"the root as a file", func(s *Spec) { s.Files[1].Path = "/" }, "files[1].path: / is the image's root"},
		{"duplicate path", func(s *Spec) { s.Files[1].Path = "/sample" }, "files[1].path: /sample is already a path of files[0]"},
		{"a base file", func(s *Spec) { s.Files[1].Path = "/etc/passwd" }, "files[1].path: /etc/passwd is already a path of the base filesystem"},
		{"a base directory", func(s *Spec) { s.Files[1].Path = "/tmp" }, "files[1].path: /tmp is already a path of the base filesystem"},
		{"under a file", func(s *Spec) { s.Files[1].Path = "/sample/data.txt" }, "files[1].path: /sample/data.txt lies under /sample, which is a file of files[0]"},
		{"missing source file", func(s *Spec) { s.Files[1].Contents = nil; s.Files[1].Source = missing }, "files[1].source: for /usr/share/sample/data.txt: open " + missing},
		{"source and contents", func(s *Spec) { s.Files[1].Source = missing }, "files[1]: /usr/share/sample/data.txt has both contents and a source"},
		{"zero mode", func(s *Spec) { s.Files[0].Mode = 0 }, "files[0].mode: no permission bits"},
		{"directory mode", func(s *Spec) { s.Files[0].Mode = fs.ModeDir | 0o755 }, "files[0].mode: "},
		{"negative owner", func(s *Spec) { s.Files[0].UID = -1 }, "files[0].uid/gid: -1:0"},
		{"no entrypoint", func(s *Spec) { s.Entrypoint = nil }, "entrypoint: empty"},
		{"entrypoint not in the image", func(s *Spec) { s.Entrypoint = []string{"/bin/sh", "-c", "true"} }, "entrypoint[0]: /bin/sh is not a file of the image"},
		{"entrypoint a directory", func(s *Spec) { s.Entrypoint = []string{"/tmp"} }, "entrypoint[0]: /tmp is not a file of the image"},
		{"entrypoint not executable", func(s *Spec) { s.Entrypoint = []string{"/usr/share/sample/data.txt"} }, "entrypoint[0]: /usr/share/sample/data.txt is not executable (mode 0644)"},
		{"entrypoint relative", func(s *Spec) { s.Entrypoint = []string{"sample"} }, "entrypoint[0]: \"sample\" is not absolute"},
		{"env without =", func(s *Spec) { s.Env = append(s.Env, "DEBUG") }, "env[2]: \"DEBUG\" is not KEY=VALUE"},
		{"env set twice", func(s *Spec) { s.Env = append(s.Env, "SAMPLE=2") }, "env[2]: SAMPLE is already set by env[1]"},
		{"relative working directory", func(s *Spec) { s.WorkingDir = "home" }, "workingDir: \"home\" is not an absolute, clean path"},
		{"user by name", func(s *Spec) { s.User = "nonroot" }, "user: \"nonroot\" is not UID or UID:GID in numbers"},
		{"empty label key", func(s *Spec) { s.Labels[""] = "x" }, "labels: an empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := sampleSpec()
			tc.change(&spec)
			out := filepath.Join(t.TempDir(), "image.tar")
			_, err := Write(spec, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if _, statErr := os.Stat(out); !errors.Is(statErr, fs.ErrNotExist) {
				t.Errorf("a refused spec left a file at %s (%v)", out, statErr)
			}
		})
	}
}

func TestWriteLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	// A directory in the way makes the rename fail after the tarball
	// was written under its temporary name.
	out := filepath.Join(dir, "image.tar")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(sampleSpec(), out); err == nil {
		t.Fatal("Write over a directory succeeded")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "image.tar" {
		t.Errorf("the failed write left %v behind", entries)
	}
}

func tarMembers(t *testing.T, file string) map[string][]byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	members := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return members
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if members[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatalf("%s: %s: %v", file, h.Name, err)
		}
	}
}

func checkGolden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -run %s -update rewrites it after a change that is meant):\n--- got\n%s\n--- want\n%s", file, t.Name(), got, want)
	}
}
