#!/usr/bin/env bash
# Builds the helm CLI from the Go module proxy, because no download site for
# prebuilt helm binaries is reachable from the machines this project is tested
# on (the same reason hack/envtest-binaries.sh builds kube-apiserver and etcd).
#
# The binary lands in a cache outside the clone, keyed by version, and is
# built only when missing, so a second run costs nothing:
#
#   $TOOLGATE_CACHE/helm-<HELM_VERSION>/helm
#
# The script prints the path of the binary on its last line of standard
# output: HELM="$(hack/helm.sh)".
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-4.3.1}"
CACHE_ROOT="${TOOLGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate}"
DEST="$CACHE_ROOT/helm-${HELM_VERSION}"

log() { printf 'helm: %s\n' "$*" >&2; }

have() { [ -x "$DEST/helm" ] && "$DEST/helm" version --short >/dev/null 2>&1; }

build_helm() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building helm v${HELM_VERSION} (cold build: a few CPU-minutes)"
  mkdir -p "$DEST"
  # helm reads its version from these variables; without them it reports
  # v4.x-dev and a chart's kubeVersion constraint can misjudge it.
  local pkg=helm.sh/helm/v4/internal/version
  (
    cd "$work"
    # go install pkg@version builds in module mode outside any module, so the
    # project's go.mod and the caller's GOFLAGS never take part.
    GOFLAGS= GOBIN="$DEST" CGO_ENABLED=0 go install -trimpath \
      -ldflags "-s -w -X ${pkg}.version=v${HELM_VERSION} -X ${pkg}.gitTreeState=clean" \
      "helm.sh/helm/v4/cmd/helm@v${HELM_VERSION}"
  )
}

have || build_helm
have || { log "helm did not build"; exit 1; }
log "$("$DEST/helm" version --short)"
echo "$DEST/helm"
