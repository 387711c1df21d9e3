# shellcheck shell=bash
# Builds Kubernetes commands from the Go module proxy. Sourced by
# hack/envtest-binaries.sh (the control plane envtest runs) and
# hack/node-binaries.sh (the real node's components), so that both build the
# same Kubernetes version the same way and a node never joins a control plane
# of another version by accident.
#
# The caller defines log() before calling build_kubernetes_commands.

# shellcheck source=hack/lib/stage.sh
source "$(dirname "${BASH_SOURCE[0]}")/stage.sh"

# K8S_VERSION is the Kubernetes version of every component the project
# builds.
K8S_VERSION="${K8S_VERSION:-1.37.2}"
# CACHE_ROOT holds the built binaries outside the clone, keyed by version.
CACHE_ROOT="${TOOLGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate}"

# go_directive prints the toolchain's major.minor, for the go line of a
# throwaway module.
go_directive() {
  go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/'
}

# build_kubernetes_commands DEST NAME... builds k8s.io/kubernetes/cmd/NAME at
# K8S_VERSION into DEST/NAME for every NAME. All of them go through one go
# build, so the packages they share (most of them) compile once.
build_kubernetes_commands() {
  local dest=$1 work
  shift
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  # Within a stage, the stage's line has said what is being built.
  stage_active || log "building $* v${K8S_VERSION} (cold build: several CPU-minutes each)"
  local kmod
  kmod="$(cd "$work" && go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/^\s*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  [ -f "$kmod" ] || { log "cannot read go.mod of k8s.io/kubernetes@v${K8S_VERSION}"; return 1; }

  # The staging modules of k8s.io/kubernetes are published with the same
  # minor and patch as v0.<minor>.<patch>.
  local staging_version="v0.${K8S_VERSION#*.}"
  # The upstream go.mod replaces every staging module with a path inside its
  # own repository; a consumer must pin each of them to the published
  # version instead. Derive the list from the go.mod itself so it stays
  # right when the version changes.
  {
    echo "module toolgate.dev/build/kubernetes"
    echo
    echo "go $(go_directive)"
    echo
    echo "require k8s.io/kubernetes v${K8S_VERSION}"
    echo
    echo "replace ("
    sed -n 's#^\s*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\t\1 => \1 '"${staging_version}"'#p' "$kmod"
    echo ")"
  } >"$work/go.mod"
  local n
  n="$(grep -c "=> k8s.io/" "$work/go.mod" || true)"
  [ "$n" -gt 0 ] || { log "found no staging modules to pin"; return 1; }

  local pkgs=() name
  for name in "$@"; do
    pkgs+=("k8s.io/kubernetes/cmd/${name}")
  done
  local pkg=k8s.io/component-base/version
  local date
  date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  mkdir -p "$dest"
  (
    cd "$work"
    # -mod=mod lets the go command complete the requirements and go.sum of
    # this throwaway module from the proxy. The trailing slash of -o makes it
    # a directory, which go build needs for more than one command.
    GOFLAGS=-mod=mod CGO_ENABLED=0 stage_quiet go build -trimpath -o "${dest}/" \
      -ldflags "-s -w -X ${pkg}.gitVersion=v${K8S_VERSION} -X ${pkg}.gitMajor=${K8S_VERSION%%.*} -X ${pkg}.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2) -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=${date}" \
      "${pkgs[@]}"
  )
}
