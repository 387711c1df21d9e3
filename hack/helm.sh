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
# output: HELM="$(hack/helm.sh)". What it builds, and how long that took, it
# says on standard error as a stage (hack/lib/stage.sh).
set -euo pipefail
# shellcheck source=hack/lib/stage.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/stage.sh"

HELM_VERSION="${HELM_VERSION:-4.3.1}"
CACHE_ROOT="${TOOLGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate}"
DEST="$CACHE_ROOT/helm-${HELM_VERSION}"

log() { printf 'helm: %s\n' "$*" >&2; }

have() { [ -x "$DEST/helm" ] && "$DEST/helm" version --short >/dev/null 2>&1; }

build_helm() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  mkdir -p "$DEST"
  # helm reads its version from these variables; without them it reports
  # v4.x-dev and a chart's kubeVersion constraint can misjudge it.
  local pkg=helm.sh/helm/v4/internal/version
  (
    cd "$work"
    # go install pkg@version builds in module mode outside any module, so the
    # project's go.mod and the caller's GOFLAGS never take part.
    GOFLAGS= GOBIN="$DEST" CGO_ENABLED=0 stage_quiet go install -trimpath \
      -ldflags "-s -w -X ${pkg}.version=v${HELM_VERSION} -X ${pkg}.gitTreeState=clean" \
      "helm.sh/helm/v4/cmd/helm@v${HELM_VERSION}"
  )
}

stage_start
if have; then
  stage_cached "helm v${HELM_VERSION}" "$DEST"
else
  stage_begin "building helm v${HELM_VERSION} from the Go module proxy" "first run only, about 3 min on two cores"
  rc=0
  build_helm || rc=$?
  if ((rc == 0)) && ! have; then
    log "helm did not build"
    rc=1
  fi
  if ((rc != 0)); then
    stage_failed "$rc"
    exit "$rc"
  fi
  stage_done
fi
echo "$DEST/helm"
