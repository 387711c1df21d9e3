package ociimage

import (
	"archive/tar"
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// buildTimeout bounds one go build of a small package on a loaded machine.
const buildTimeout = 5 * time.Minute

func buildContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	t.Cleanup(cancel)
	return ctx
}

// TestGoImageIsAFunctionOfTheSource builds one small module several ways
// that must not count: inside a git checkout, then with uncommitted edits
// and an environment asking for version-control stamping, then from
// another directory outside any checkout. Each gives the same digest; a
// changed line of the program gives another.
func TestGoImageIsAFunctionOfTheSource(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is needed to build inside a checkout: %v", err)
	}
	root := t.TempDir()
	checkout := filepath.Join(root, "checkout")
	writeModule(t, checkout, "hello")
	runGit := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir = checkout
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	runGit("init", "-q")
	runGit("add", ".")
	runGit("commit", "-q", "-m", "hello")

	build := func(dir string) Result {
		t.Helper()
		res, err := BuildGoImage(buildContext(t), GoImage{Package: ".", Name: "hello", Ref: "docker.io/local/hello:1", ModuleDir: dir}, filepath.Join(t.TempDir(), "hello.tar"))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	committed := build(checkout)

	// Uncommitted edits, an untracked file, and an environment that asks
	// go to stamp the commit and the dirty tree into the binary.
	if err := os.WriteFile(filepath.Join(checkout, "README"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "NOTES"), []byte("untracked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-buildvcs=true")
	if dirty := build(checkout); dirty.Digest != committed.Digest {
		t.Errorf("uncommitted edits beside the program changed its image: %s, not %s", dirty.Digest, committed.Digest)
	}

	elsewhere := filepath.Join(root, "elsewhere", "another-name")
	writeModule(t, elsewhere, "hello")
	if moved := build(elsewhere); moved.Digest != committed.Digest {
		t.Errorf("the same source in another directory gave another image: %s, not %s", moved.Digest, committed.Digest)
	}

	writeModule(t, elsewhere, "hello, again")
	if changed := build(elsewhere); changed.Digest == committed.Digest {
		t.Errorf("a changed program kept the image's digest %s", changed.Digest)
	}
}

// writeModule writes a module of one main package printing greeting.
func writeModule(t *testing.T, dir, greeting string) {
	t.Helper()
	files := map[string]string{
		"go.mod":  "module example.com/hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"" + greeting + "\") }\n",
		"README":  "hello\n",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for file, content := range files {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPauseImageRunsAndStopsOnSignal builds the node's sandbox image from
// hack/images/pause, checks its config is distroless's nonroot one, and
// runs the binary it holds: it waits, and a stop signal ends it with 0.
func TestPauseImageRunsAndStopsOnSignal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pause.tar")
	res, err := BuildGoImage(buildContext(t), GoImage{Package: "./hack/images/pause", Name: "pause", Ref: "docker.io/local/pause:1", ModuleDir: "../.."}, out)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag(res.Ref)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("reading %s back as %s: %v", out, res.Ref, err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if c := cfg.Config; !slices.Equal(c.Entrypoint, []string{"/pause"}) || c.User != "65532:65532" || c.WorkingDir != NonrootHome || !slices.Equal(c.Env, []string{"PATH=" + DefaultPath}) {
		t.Errorf("config = %+v; want entrypoint /pause, user 65532:65532, distroless's working directory and PATH", c)
	}

	binary := extractFile(t, img, "pause")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(binary)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatalf("running the image's /pause: %v", err)
			}
			exited := make(chan error, 1)
			waiting := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(stderr).ReadString('\n')
				waiting <- line
				_, _ = io.Copy(io.Discard, stderr)
				exited <- cmd.Wait()
			}()
			select {
			case line := <-waiting:
				if !strings.Contains(line, "waiting") {
					t.Fatalf("pause said %q, not that it is waiting", line)
				}
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatal("pause did not say it was waiting within a minute")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("pause ended with %v after %v, want exit status 0", err, sig)
				}
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("pause still runs a minute after %v", sig)
			}
		})
	}
}

// extractFile writes the image's file at path (no leading slash) to a
// temporary executable and returns its path.
func extractFile(t *testing.T, img v1.Image, path string) string {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers = %d (%v), want one", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("the image has no %s", path)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != path {
			continue
		}
		if h.Mode != 0o755 || h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s: mode %04o owner %d:%d, want 0755 root:root", path, h.Mode, h.Uid, h.Gid)
		}
		file := filepath.Join(t.TempDir(), filepath.Base(path))
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, tr); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return file
	}
}

func TestGoImageRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		image GoImage
		want  string
	}{
		{"empty name", GoImage{Package: "./hack/images/pause", Ref: "docker.io/local/pause:1"}, "name: \"\" is not a file name"},
		{"a path for a name", GoImage{Package: "./hack/images/pause", Name: "bin/pause", Ref: "docker.io/local/pause:1"}, "name: \"bin/pause\" is not a file name"},
		{"no package", GoImage{Name: "pause", Ref: "docker.io/local/pause:1"}, "package: empty"},
		{"bad ref", GoImage{Package: "./hack/images/pause", Name: "pause", Ref: "pause"}, "ref: "},
		{"no such package", GoImage{Package: "./hack/images/nothing-here", Name: "nothing", Ref: "docker.io/local/nothing:1"}, "package: go build ./hack/images/nothing-here"},
		{"not a main package", GoImage{Package: "./internal/membudget", Name: "membudget", Ref: "docker.io/local/membudget:1"}, "package: ./internal/membudget: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.image.ModuleDir = "../.."
			out := filepath.Join(t.TempDir(), "image.tar")
			_, err := BuildGoImage(buildContext(t), tc.image, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
			if _, statErr := os.Stat(out); !errors.Is(statErr, os.ErrNotExist) {
				t.Errorf("a refused build left a file at %s (%v)", out, statErr)
			}
		})
	}
}

func TestRecipesFollowTheDockerfiles(t *testing.T) {
	for _, tc := range []struct {
		image                        GoImage
		dockerfile, binary, ref, ldf string
	}{
		{ManagerImage("0.1.0"), "Dockerfile.manager", "manager", "ghcr.io/toolgate/manager:0.1.0", "-X main.version=0.1.0"},
		{GateImage("0.1.0"), "Dockerfile.gate", "gate", "ghcr.io/toolgate/gate:0.1.0", ""},
	} {
		t.Run(tc.dockerfile, func(t *testing.T) {
			if tc.image.Name != tc.binary || tc.image.Ref != tc.ref || tc.image.LDFlags != tc.ldf || tc.image.Package != "./cmd/"+tc.binary {
				t.Errorf("recipe = %+v", tc.image)
			}
			// The Dockerfile builds the same package with the same
			// flags, places it at the same path and runs it the same
			// way: a change to one side must be made to the other.
			data, err := os.ReadFile(filepath.Join("../..", tc.dockerfile))
			if err != nil {
				t.Fatal(err)
			}
			dockerfile := string(data)
			ldflags := strings.TrimSpace("-s -w " + strings.ReplaceAll(tc.ldf, "0.1.0", "${VERSION}"))
			for _, want := range []string{
				"CGO_ENABLED=0",
				`go build -trimpath -ldflags "` + ldflags + `" -o /out/` + tc.binary + " ./cmd/" + tc.binary,
				"FROM gcr.io/distroless/static-debian12:nonroot",
				"COPY --from=build /out/" + tc.binary + " /" + tc.binary,
				"USER 65532:65532",
				`ENTRYPOINT ["/` + tc.binary + `"]`,
			} {
				if !strings.Contains(dockerfile, want) {
					t.Errorf("%s no longer has %q: change the recipe with it", tc.dockerfile, want)
				}
			}
		})
	}
}
