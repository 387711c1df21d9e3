#!/usr/bin/env bash
# Builds the control-plane binaries that envtest runs (kube-apiserver and etcd)
# from the Go module proxy, because no download site for prebuilt envtest
# binaries is reachable from the machines this project is tested on.
#
# The binaries land in a cache outside the clone, keyed by version, and are
# built only when missing, so a second run costs nothing:
#
#   $TOOLGATE_CACHE/envtest/k8s-<K8S_VERSION>-etcd-<ETCD_VERSION>/{kube-apiserver,etcd}
#
# The script prints the directory on its last line of standard output, which
# is what KUBEBUILDER_ASSETS must point at.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.2}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
CACHE_ROOT="${TOOLGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate}"
DEST="$CACHE_ROOT/envtest/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"

log() { printf 'envtest-binaries: %s\n' "$*" >&2; }

# The staging modules of k8s.io/kubernetes are published with the same minor
# and patch as v0.<minor>.<patch>.
STAGING_VERSION="v0.${K8S_VERSION#*.}"

have() { [ -x "$DEST/$1" ] && "$DEST/$1" --version >/dev/null 2>&1; }

# build_kubernetes_command NAME builds k8s.io/kubernetes/cmd/NAME at
# K8S_VERSION into $DEST/NAME.
build_kubernetes_command() {
  local name=$1 work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building ${name} v${K8S_VERSION} (cold build: several CPU-minutes)"
  local kmod
  kmod="$(cd "$work" && go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/^\s*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  [ -f "$kmod" ] || { log "cannot read go.mod of k8s.io/kubernetes@v${K8S_VERSION}"; return 1; }

  # The upstream go.mod replaces every staging module with a path inside its
  # own repository; a consumer must pin each of them to the published
  # version instead. Derive the list from the go.mod itself so it stays
  # right when the version changes.
  {
    echo "module toolgate.dev/envtest/${name}"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
    echo
    echo "require k8s.io/kubernetes v${K8S_VERSION}"
    echo
    echo "replace ("
    sed -n 's#^\s*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\t\1 => \1 '"${STAGING_VERSION}"'#p' "$kmod"
    echo ")"
  } >"$work/go.mod"
  local n
  n="$(grep -c "=> k8s.io/" "$work/go.mod" || true)"
  log "pinned ${n} staging modules to ${STAGING_VERSION}"
  [ "$n" -gt 0 ] || { log "found no staging modules to pin"; return 1; }

  local pkg=k8s.io/component-base/version
  local date
  date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  (
    cd "$work"
    # -mod=mod lets the go command complete the requirements and go.sum of
    # this throwaway module from the proxy.
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$DEST/${name}" \
      -ldflags "-s -w -X ${pkg}.gitVersion=v${K8S_VERSION} -X ${pkg}.gitMajor=${K8S_VERSION%%.*} -X ${pkg}.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2) -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=${date}" \
      "k8s.io/kubernetes/cmd/${name}"
  )
}

build_etcd() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building etcd v${ETCD_VERSION}"
  {
    echo "module toolgate.dev/envtest/etcd"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//; s/^\([0-9]*\.[0-9]*\).*/\1/')"
    echo
    echo "require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}"
  } >"$work/go.mod"
  (
    cd "$work"
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$DEST/etcd" -ldflags "-s -w" go.etcd.io/etcd/server/v3
  )
}

mkdir -p "$DEST"
# --kubectl: make sure there is a kubectl for the tests and the demo, which
# drive the cluster with it. With one on PATH, print nothing; otherwise
# build one of the control plane's version and print its directory, for
# PATH.
if [ "${1:-}" = "--kubectl" ]; then
  if command -v kubectl >/dev/null; then
    exit 0
  fi
  [ -x "$DEST/kubectl" ] && "$DEST/kubectl" version --client >/dev/null 2>&1 || build_kubernetes_command kubectl
  "$DEST/kubectl" version --client >/dev/null 2>&1 || { log "kubectl did not build"; exit 1; }
  echo "$DEST"
  exit 0
fi
have kube-apiserver || build_kubernetes_command kube-apiserver
have etcd || build_etcd
have kube-apiserver || { log "kube-apiserver did not build"; exit 1; }
have etcd || { log "etcd did not build"; exit 1; }
log "$("$DEST/kube-apiserver" --version), $("$DEST/etcd" --version | head -1)"
echo "$DEST"
