package node

import (
	"archive/tar"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/ociimage"
	"github.com/toolgate/toolgate/internal/testenv"
	"github.com/toolgate/toolgate/test/nodeenv"
)

const (
	everythingImage = "docker.io/toolgate-test/everything:" + version
	// everythingPort is where the server listens in its pod. It reads
	// PORT and calls express's app.listen(PORT) with no host, which is
	// Node's unspecified address (:: and, dual-stack, 0.0.0.0, or 0.0.0.0
	// where the pod has no IPv6): the pod IP is reached without a HOST
	// variable, which the server does not read anyway.
	everythingPort = 3001
	// everythingRoot is where the npm install's node_modules lands in the
	// image; Node resolves the server's imports by walking up from its
	// entry point to it.
	everythingRoot = "/srv/everything"
	// nodeInImage is where the Node.js runtime lands in the image.
	nodeInImage = "/usr/bin/node"
)

// buildEverythingImage writes the image that runs the npm MCP server in
// a pod, without a container engine or a registry: the machine's Node.js
// runtime with its loader and shared libraries, and the npm install of the
// server, run as nonroot in its streamable HTTP mode on everythingPort.
func buildEverythingImage(t *testing.T, outFile string) ociimage.Result {
	t.Helper()
	program, err := exec.LookPath("node")
	if err != nil {
		testenv.NPMUnavailable(t, "node is not on PATH")
	}
	install := testenv.EverythingInstall(t)
	files, libDirs, err := nodeRuntime(program, nodeInImage)
	if err != nil {
		t.Fatalf("the Node.js runtime of this machine: %v", err)
	}
	pkg, err := treeFiles(filepath.Join(install, "node_modules"), everythingRoot+"/node_modules")
	if err != nil {
		t.Fatalf("the npm install of the server: %v", err)
	}
	entry, err := filepath.Rel(install, testenv.EverythingEntry(install))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + ociimage.DefaultPath,
		fmt.Sprintf("PORT=%d", everythingPort),
		"NODE_ENV=production",
	}
	if len(libDirs) > 0 {
		env = append(env, "LD_LIBRARY_PATH="+strings.Join(libDirs, ":"))
	}
	res, err := ociimage.Write(ociimage.Spec{
		Ref:        everythingImage,
		Files:      append(files, pkg...),
		Entrypoint: []string{nodeInImage},
		Args:       []string{path.Join(everythingRoot, filepath.ToSlash(entry)), "streamableHttp"},
		Env:        env,
		WorkingDir: everythingRoot,
		User:       fmt.Sprintf("%d:%d", ociimage.NonrootUID, ociimage.NonrootGID),
	}, outFile)
	if err != nil {
		t.Fatalf("building the image %s: %v", everythingImage, err)
	}
	return res
}

// nodeRuntime returns the files that run program, a Linux executable of
// this machine, at imagePath in an image with nothing else: the program;
// for a dynamically linked one, its interpreter at the very path the
// program names (the kernel starts it from there); and every shared
// library it needs, transitively, at the path where it was found. It also
// returns those directories, in search order, for LD_LIBRARY_PATH: the
// image has no ld.so.cache, and the loader's built-in directories need not
// include one a library came from (/usr/local/lib).
//
// It reads the ELF files (debug/elf: the PT_INTERP segment and the
// DT_NEEDED entries) rather than running ldd: ldd runs the program's own
// loader over it and prints for people, whereas the ELF headers are data,
// read the same way on any machine, and a library that cannot be found is
// an error that names it and whoever needs it. The search follows the
// loader's order: the needing object's DT_RUNPATH (or DT_RPATH), then the
// directories of ld.so.conf on Debian and of the loader's built-in list,
// multiarch first; a candidate of another ELF class or machine (a 32-bit
// library in /lib) is passed over, as the loader passes it over.
func nodeRuntime(program, imagePath string) ([]ociimage.File, []string, error) {
	resolved, err := filepath.EvalSymlinks(program)
	if err != nil {
		return nil, nil, err
	}
	exe, err := elf.Open(resolved)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", resolved, err)
	}
	defer exe.Close()
	files := []ociimage.File{{Path: imagePath, Mode: 0o755, Source: resolved}}
	interp, err := interpreter(exe)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", resolved, err)
	}
	if interp == "" {
		return files, nil, nil // static: it needs nothing else
	}
	interpSource, err := filepath.EvalSymlinks(interp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: its interpreter: %w", resolved, err)
	}
	files = append(files, ociimage.File{Path: interp, Mode: 0o755, Source: interpSource})

	var libDirs []string
	found := map[string]string{} // soname → where it was found
	type need struct{ name, by, byFile string }
	queue := []need{}
	enqueue := func(f *elf.File, by, byFile string) error {
		names, err := f.ImportedLibraries()
		if err != nil {
			return fmt.Errorf("%s: DT_NEEDED: %w", by, err)
		}
		for _, n := range names {
			queue = append(queue, need{n, by, byFile})
		}
		return nil
	}
	if err := enqueue(exe, resolved, resolved); err != nil {
		return nil, nil, err
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if _, done := found[n.name]; done {
			continue
		}
		at, err := findLibrary(n.name, n.byFile, exe.Class, exe.Machine)
		if err != nil {
			return nil, nil, fmt.Errorf("%s, needed by %s: %w", n.name, n.by, err)
		}
		found[n.name] = at
		source, err := filepath.EvalSymlinks(at)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", at, err)
		}
		// The path it was found at, not its target: the loader asks for
		// libstdc++.so.6, not libstdc++.so.6.0.30, and the image holds no
		// symbolic links. A path already in the image (the interpreter
		// found again under its soname) keeps its first entry.
		if !slices.ContainsFunc(files, func(f ociimage.File) bool { return f.Path == at }) {
			files = append(files, ociimage.File{Path: at, Mode: 0o755, Source: source})
		}
		if d := filepath.Dir(at); !slices.Contains(libDirs, d) {
			libDirs = append(libDirs, d)
		}
		lib, err := elf.Open(source)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", source, err)
		}
		err = enqueue(lib, at, source)
		lib.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	return files, libDirs, nil
}

// interpreter is the program's PT_INTERP, or "" for a static program.
func interpreter(f *elf.File) (string, error) {
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", fmt.Errorf("PT_INTERP: %w", err)
		}
		s := strings.TrimRight(string(b), "\x00")
		if !filepath.IsAbs(s) {
			return "", fmt.Errorf("PT_INTERP %q is not an absolute path", s)
		}
		return filepath.Clean(s), nil
	}
	return "", nil
}

// findLibrary returns the path of the shared library name, as byFile
// (the object that needs it, on this machine) would have it loaded.
func findLibrary(name, byFile string, class elf.Class, machine elf.Machine) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil // a path: the loader takes it as it is
	}
	var dirs []string
	if by, err := elf.Open(byFile); err == nil {
		origin := filepath.Dir(byFile)
		for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
			paths, _ := by.DynString(tag)
			for _, p := range paths {
				for d := range strings.SplitSeq(p, ":") {
					d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", origin), "$ORIGIN", origin)
					if d != "" {
						dirs = append(dirs, d)
					}
				}
			}
			if len(dirs) > 0 {
				break // DT_RUNPATH, when present, replaces DT_RPATH
			}
		}
		by.Close()
	}
	dirs = append(dirs, systemLibDirs()...)
	var passed []string
	for _, d := range dirs {
		candidate := filepath.Join(d, name)
		f, err := elf.Open(candidate)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				passed = append(passed, fmt.Sprintf("%s (%v)", candidate, err))
			}
			continue
		}
		ok := f.Class == class && f.Machine == machine
		f.Close()
		if ok {
			return candidate, nil
		}
		passed = append(passed, candidate+" (another ELF class or machine)")
	}
	if len(passed) > 0 {
		return "", fmt.Errorf("not found in %s; passed over %s", strings.Join(dirs, ", "), strings.Join(passed, ", "))
	}
	return "", fmt.Errorf("not found in %s", strings.Join(dirs, ", "))
}

// systemLibDirs are the directories the loader searches with no
// LD_LIBRARY_PATH: Debian's ld.so.conf (/usr/local first, then multiarch),
// then the built-in list, with lib64 for the distributions that use it.
func systemLibDirs() []string {
	triplet := map[string]string{
		"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "386": "i386-linux-gnu",
		"arm": "arm-linux-gnueabihf", "ppc64le": "powerpc64le-linux-gnu", "s390x": "s390x-linux-gnu",
		"riscv64": "riscv64-linux-gnu",
	}[runtime.GOARCH]
	var dirs []string
	for _, base := range []string{"/usr/local/lib", "/lib", "/usr/lib"} {
		if triplet != "" {
			dirs = append(dirs, base+"/"+triplet)
		}
	}
	return append(dirs, "/lib64", "/usr/lib64", "/usr/local/lib", "/lib", "/usr/lib")
}

// treeFiles returns the regular files under hostDir as files of an image
// under imageDir, readable by every user and executable where they are
// on this machine. A symbolic link becomes a copy of the file it names (npm
// links node_modules/.bin/* to the packages' scripts), as the image holds
// no links; a link to a directory is refused, as copying it could loop.
func treeFiles(hostDir, imageDir string) ([]ociimage.File, error) {
	var files []ociimage.File
	err := filepath.WalkDir(hostDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := os.Stat(p) // follows a link
		if err != nil {
			return err
		}
		if info.IsDir() {
			return fmt.Errorf("%s links to a directory; the image holds no links", p)
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%v)", p, info.Mode().Type())
		}
		rel, err := filepath.Rel(hostDir, p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		files = append(files, ociimage.File{Path: path.Join(imageDir, filepath.ToSlash(rel)), Mode: mode, Source: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no files", hostDir)
	}
	return files, nil
}

// TestEverythingImageRunsAlone runs the npm server's image with nothing of
// this machine but its kernel: its filesystem, extracted from the tarball
// the node imports, becomes the root of a process that runs as the image's
// user with the image's entrypoint, arguments, environment and working
// directory. The server answers an MCP client there, so a library or file
// the image lacks shows up here in seconds, named, rather than as a pod
// that crash-loops on the node minutes later.
func TestEverythingImageRunsAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv(nodeenv.RequireNode) != "" {
			t.Fatalf("running the image's filesystem as a root of its own needs root (chroot), and %s is set", nodeenv.RequireNode)
		}
		t.Skip("running the image's filesystem as a root of its own needs root (chroot)")
	}
	dir := t.TempDir()
	res := buildEverythingImage(t, filepath.Join(dir, "everything.tar"))
	img, err := tarball.ImageFromPath(res.File, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	rootfs := filepath.Join(dir, "rootfs")
	if err := extract(mutate.Extract(img), rootfs); err != nil {
		t.Fatalf("extracting the image: %v", err)
	}
	var size int64
	_ = filepath.WalkDir(rootfs, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	t.Logf("%s: %d MiB of files, image ID %s", everythingImage, size>>20, res.ImageID)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	uid, gid, err := numericUser(cfg.Config.User)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// The path, the working directory and the libraries resolve inside
	// the new root: Go chroots, then changes directory, then executes.
	cmd := exec.CommandContext(ctx, cfg.Config.Entrypoint[0], append(cfg.Config.Entrypoint[1:], cfg.Config.Cmd...)...)
	cmd.Dir = cfg.Config.WorkingDir
	cmd.Env = append(slices.Clone(cfg.Config.Env), fmt.Sprintf("PORT=%d", port)) // the last PORT wins
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs, Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	// A file, not a buffer: the server writes while the test reads.
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	serverLog := func() string {
		b, _ := os.ReadFile(logFile.Name())
		return string(b)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s in the image: %v", cfg.Config.Entrypoint[0], err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})

	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	c := mcp.NewClient(&mcp.Implementation{Name: "node-test", Version: "1"}, nil)
	var session *mcp.ClientSession
	eventually(t, time.Minute, "the server in the image answers an MCP client", func() error {
		select {
		case <-exited:
			t.Fatalf("the server in the image exited: %v\n%s", waitErr, serverLog())
		default:
		}
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		s, err := c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return err
		}
		session = s
		return nil
	})
	defer session.Close()
	res2, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		t.Fatalf("calling get-sum: %v\n%s", err, serverLog())
	}
	var text strings.Builder
	for _, c := range res2.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res2.IsError || !strings.Contains(text.String(), "is 5") {
		t.Errorf("get-sum a=2 b=3 answered %q (error %v)", text.String(), res2.IsError)
	}
}

// numericUser parses an image's USER, "UID" or "UID:GID".
func numericUser(user string) (uint32, uint32, error) {
	u, g, hasGroup := strings.Cut(user, ":")
	uid, err := strconv.ParseUint(u, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("the image's user %q: %w", user, err)
	}
	gid := uid
	if hasGroup {
		if gid, err = strconv.ParseUint(g, 10, 32); err != nil {
			return 0, 0, fmt.Errorf("the image's user %q: %w", user, err)
		}
	}
	return uint32(uid), uint32(gid), nil
}

// extract writes a layer's directories and regular files under dir, with
// their modes and owners; the images of internal/ociimage hold nothing
// else.
func extract(rc io.ReadCloser, dir string) error {
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+h.Name)))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: tar entry type %c, which the image should not hold", h.Name, h.Typeflag)
		}
		// Chmod after the umask, so that /tmp keeps its sticky bit.
		if err := os.Chown(p, h.Uid, h.Gid); err != nil {
			return err
		}
		if err := os.Chmod(p, fs.FileMode(h.Mode&0o777)|tarModeBits(h.Mode)); err != nil {
			return err
		}
	}
}

func tarModeBits(m int64) fs.FileMode {
	var out fs.FileMode
	if m&0o4000 != 0 {
		out |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		out |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		out |= fs.ModeSticky
	}
	return out
}
