// Command golangci-lint is golangci-lint v2 with two module plugins linked
// in: the Kubernetes API linter (sigs.k8s.io/kube-api-linter), which checks
// api/ against the Kubernetes API conventions, and logcheck
// (sigs.k8s.io/logtools), which checks structured logging calls.
//
// This file is what `golangci-lint custom` would generate from a
// .custom-gcl.yml; that command clones golangci-lint's repository, which a
// machine that reaches only the Go module proxy cannot do. Written here, the
// whole tool is an ordinary Go module: its versions are pinned in this
// directory's go.mod, and `make lint` builds it with go build, which the Go
// build cache makes a no-op when nothing changed. The plugins register
// themselves in their init functions; .golangci.yml turns them on under
// linters.settings.custom.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// The module plugins, registered by their init functions.
	_ "sigs.k8s.io/kube-api-linter"
	_ "sigs.k8s.io/logtools/logcheck/gclplugin"
)

func main() {
	if err := commands.Execute(buildInfo()); err != nil {
		_, _ = fmt.Fprintf(os.Stderr, "golangci-lint: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// buildInfo reports golangci-lint's own version, read from the module graph,
// so that `golangci-lint version` names the release this binary is built from
// and the cache is not shared with a different one.
func buildInfo() commands.BuildInfo {
	info := commands.BuildInfo{Version: "unknown", Commit: "?", Date: "(unknown)", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	for _, dep := range bi.Deps {
		if dep.Path == "github.com/golangci/golangci-lint/v2" {
			info.Version = strings.TrimPrefix(dep.Version, "v") + " (with kube-api-linter and logcheck)"
		}
	}
	return info
}
