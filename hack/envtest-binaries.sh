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
# is what KUBEBUILDER_ASSETS must point at. What it builds, and how long that
# took, it says on standard error as a stage (hack/lib/stage.sh).
set -euo pipefail

# K8S_VERSION, CACHE_ROOT and build_kubernetes_commands come from the
# library the real node's build shares, so both build one Kubernetes version.
# shellcheck source=hack/lib/kubernetes-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kubernetes-build.sh"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
DEST="$CACHE_ROOT/envtest/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"

log() { printf 'envtest-binaries: %s\n' "$*" >&2; }

have() { [ -x "$DEST/$1" ] && "$DEST/$1" --version >/dev/null 2>&1; }

build_etcd() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  stage_active || log "building etcd v${ETCD_VERSION}"
  {
    echo "module toolgate.dev/envtest/etcd"
    echo
    echo "go $(go_directive)"
    echo
    echo "require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}"
  } >"$work/go.mod"
  (
    cd "$work"
    GOFLAGS=-mod=mod CGO_ENABLED=0 stage_quiet go build -trimpath -o "$DEST/etcd" -ldflags "-s -w" go.etcd.io/etcd/server/v3
  )
}

# fail STATUS: the build failed; its cause is above.
fail() {
  stage_failed "$1"
  exit "$1"
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
  stage_start
  if [ -x "$DEST/kubectl" ] && "$DEST/kubectl" version --client >/dev/null 2>&1; then
    stage_cached "kubectl v${K8S_VERSION}" "$DEST"
  else
    stage_begin "building kubectl v${K8S_VERSION} from the Go module proxy (none is on PATH)" "first run only, about 3 min on two cores"
    build_kubernetes_commands "$DEST" kubectl || fail $?
    "$DEST/kubectl" version --client >/dev/null 2>&1 || { log "kubectl did not build"; fail 1; }
    stage_done
  fi
  echo "$DEST"
  exit 0
fi
stage_start
if have kube-apiserver && have etcd; then
  stage_cached "the control plane (kube-apiserver v${K8S_VERSION}, etcd v${ETCD_VERSION})" "$DEST"
else
  stage_begin "building the control plane (kube-apiserver v${K8S_VERSION}, etcd v${ETCD_VERSION}) from the Go module proxy" \
    "first run only, about 5 min on two cores"
  have kube-apiserver || build_kubernetes_commands "$DEST" kube-apiserver || fail $?
  have etcd || build_etcd || fail $?
  have kube-apiserver || { log "kube-apiserver did not build"; fail 1; }
  have etcd || { log "etcd did not build"; fail 1; }
  stage_done
fi
echo "$DEST"
