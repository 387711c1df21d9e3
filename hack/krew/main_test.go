package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestManifestNamesEveryArchive writes archives as a release does, reads
// them back as -no-build does, and checks that the manifest parses as
// krew's Plugin and names each platform's archive with its SHA-256.
func TestManifestNamesEveryArchive(t *testing.T) {
	const version = "v1.2.3"
	dist := t.TempDir()
	want := map[Platform]string{}
	for _, p := range Platforms {
		data, err := Archive(binary, []byte("#!/bin/sh\necho "+p.OS+"/"+p.Arch+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dist, ArchiveName(version, p)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		want[p] = Sum(data)
	}
	out := filepath.Join(t.TempDir(), "toolgate.yaml")
	if err := run([]string{"-version", version, "-dist", dist, "-out", out, "-no-build"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		t.Fatalf("the manifest does not parse: %v\n%s", err, data)
	}
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" || m.Metadata.Name != "toolgate" || m.Spec.Version != version {
		t.Errorf("manifest head: %+v", m)
	}
	if len(m.Spec.Platforms) != len(Platforms) {
		t.Fatalf("%d platforms, want %d", len(m.Spec.Platforms), len(Platforms))
	}
	for _, got := range m.Spec.Platforms {
		p := Platform{got.Selector.MatchLabels["os"], got.Selector.MatchLabels["arch"]}
		sum, ok := want[p]
		switch {
		case !ok:
			t.Errorf("a platform no archive was built for: %+v", got.Selector)
		case got.SHA256 != sum:
			t.Errorf("%s/%s: sha256 %s, the archive's is %s", p.OS, p.Arch, got.SHA256, sum)
		case !strings.HasSuffix(got.URI, "/"+version+"/"+ArchiveName(version, p)):
			t.Errorf("%s/%s: uri %s does not name its archive", p.OS, p.Arch, got.URI)
		case got.Bin != binary || len(got.Files) != 1 || got.Files[0].From != binary:
			t.Errorf("%s/%s: bin %q, files %+v", p.OS, p.Arch, got.Bin, got.Files)
		}
		delete(want, p)
	}
	if len(want) > 0 {
		t.Errorf("platforms missing from the manifest: %v", want)
	}
}

// TestArchive: the archive holds the executable alone, and the same bytes
// give the same archive, so a rebuild checks the published sums.
func TestArchive(t *testing.T) {
	a, err := Archive(binary, []byte("bin"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Archive(binary, []byte("bin"))
	if !bytes.Equal(a, b) {
		t.Error("two archives of the same bytes differ")
	}
	gz, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	h, err := tr.Next()
	if err != nil || h.Name != binary || h.Mode != 0o755 {
		t.Fatalf("first entry %+v, %v", h, err)
	}
	if body, _ := io.ReadAll(tr); string(body) != "bin" {
		t.Errorf("body %q", body)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("more than one entry: %v", err)
	}
}

func TestManifestRefuses(t *testing.T) {
	sums := map[Platform]string{}
	for _, p := range Platforms {
		sums[p] = strings.Repeat("ab", 32)
	}
	if _, err := Manifest("1.0.0", sums); err == nil || !strings.Contains(err.Error(), "semantic version") {
		t.Errorf("a version without v: %v", err)
	}
	delete(sums, Platform{"darwin", "arm64"})
	if _, err := Manifest("v1.0.0", sums); err == nil || !strings.Contains(err.Error(), "darwin/arm64") {
		t.Errorf("a platform missing: %v", err)
	}
	sums[Platform{"darwin", "arm64"}] = "nope"
	if _, err := Manifest("v1.0.0", sums); err == nil || !strings.Contains(err.Error(), "not a SHA-256") {
		t.Errorf("a bad sum: %v", err)
	}
}

// TestCommittedManifest: the manifest in the repository parses as krew's
// Plugin and names, for every platform, that release's archive with a
// SHA-256. Its sums are those of the archives make krew-manifest built;
// rebuilding them from the same commit checks them.
func TestCommittedManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "plugins", "krew", "toolgate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		t.Fatalf("plugins/krew/toolgate.yaml does not parse: %v", err)
	}
	if m.Kind != "Plugin" || m.Metadata.Name != "toolgate" || !semver.MatchString(m.Spec.Version) {
		t.Errorf("manifest head: %+v", m)
	}
	sums := map[Platform]string{}
	for _, p := range m.Spec.Platforms {
		pl := Platform{p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]}
		if p.URI != releases+"/"+m.Spec.Version+"/"+ArchiveName(m.Spec.Version, pl) {
			t.Errorf("%s/%s: uri %s", pl.OS, pl.Arch, p.URI)
		}
		sums[pl] = p.SHA256
	}
	// The generator gives the same manifest from the same sums: it was
	// written by make krew-manifest, not by hand.
	again, err := Manifest(m.Spec.Version, sums)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Errorf("plugins/krew/toolgate.yaml differs from what hack/krew writes for its sums:\n%s", again)
	}
}
