#!/usr/bin/env bash
# Builds the components of the real node that the node tests run next to
# envtest's kube-apiserver and etcd: kubelet, kube-controller-manager,
# kube-scheduler, kube-proxy and CoreDNS, from the Go module proxy, for the
# same reason and at the same Kubernetes version as hack/envtest-binaries.sh.
#
# The binaries land in a cache outside the clone, keyed by version, and are
# built only when missing, so a second run costs nothing:
#
#   $TOOLGATE_CACHE/node/k8s-<K8S_VERSION>-coredns-<COREDNS_VERSION>/
#     {kubelet,kube-controller-manager,kube-scheduler,kube-proxy,coredns}
#
# The script prints the directory on its last line of standard output.
#
#   --check   print the directory and exit 0 when every binary is there and
#             reports its version; exit 1 otherwise. Builds nothing.
set -euo pipefail

# shellcheck source=hack/lib/kubernetes-build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kubernetes-build.sh"
COREDNS_VERSION="${COREDNS_VERSION:-1.15.0}"
DEST="$CACHE_ROOT/node/k8s-${K8S_VERSION}-coredns-${COREDNS_VERSION}"

log() { printf 'node-binaries: %s\n' "$*" >&2; }

KUBERNETES_COMMANDS=(kubelet kube-controller-manager kube-scheduler kube-proxy)

# COREDNS_PLUGINS are the plugins a test cluster's DNS needs, in the order
# CoreDNS runs them (its plugin.cfg order: a plugin's place in this list, not
# in the Corefile, decides what it sees of a query). Each name is both the
# directive and the package under github.com/coredns/coredns/plugin/. The
# full CoreDNS links every plugin, cloud SDKs included; this one adds only
# what serving cluster.local takes:
#   bind        keeps the server on the address it is given, off the host's
#               other interfaces;
#   ready, health  the probes a CoreDNS pod is deployed with;
#   errors, log    what went wrong, and each query, in the test's logs;
#   kubernetes  answers for Services and Pods from the API server;
#   forward     sends the rest upstream (ten small packages more).
COREDNS_PLUGINS=(bind ready health errors log kubernetes forward)

# have NAME VERSION: DEST/NAME runs and reports VERSION, so a binary cut
# short by an interrupted build, or one of another version, counts as
# missing.
have() {
  [ -x "$DEST/$1" ] || return 1
  local out
  out="$("$DEST/$1" --version 2>/dev/null)" || return 1
  [[ "$out" == *"$2"* ]]
}

missing_kubernetes_commands() {
  local name
  for name in "${KUBERNETES_COMMANDS[@]}"; do
    have "$name" "v${K8S_VERSION}" || echo "$name"
  done
}

have_coredns() { have coredns "CoreDNS-${COREDNS_VERSION}"; }

# build_coredns builds CoreDNS with COREDNS_PLUGINS only, the way CoreDNS
# builds with a chosen plugin set (its embedding example in core/dnsserver):
# a main that imports coremain and the plugins, sets the directives and runs
# coremain, in a throwaway module of its own (so its client-go is the one
# CoreDNS was released with, not the node's).
build_coredns() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building coredns v${COREDNS_VERSION} with plugins: ${COREDNS_PLUGINS[*]}"
  {
    echo "module toolgate.dev/build/coredns"
    echo
    echo "go $(go_directive)"
    echo
    echo "require github.com/coredns/coredns v${COREDNS_VERSION}"
  } >"$work/go.mod"
  local imports="" directives="" plugin
  for plugin in "${COREDNS_PLUGINS[@]}"; do
    imports+="	_ \"github.com/coredns/coredns/plugin/${plugin}\""$'\n'
    directives+="\"${plugin}\", "
  done
  cat >"$work/main.go" <<EOF
// Command coredns is CoreDNS with only the plugins a test cluster needs.
package main

import (
	"log"

	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
${imports})

func main() {
	if err := dnsserver.SetDirectives([]string{${directives%, }}); err != nil {
		log.Fatal(err)
	}
	coremain.Run()
}
EOF
  mkdir -p "$DEST"
  (
    cd "$work"
    # CoreDNS's own release build sets GitCommit from git describe, which on
    # a release is its tag.
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$DEST/coredns" \
      -ldflags "-s -w -X github.com/coredns/coredns/coremain.GitCommit=v${COREDNS_VERSION}" .
  )
}

case "${1:-}" in
  "") check_only=false ;;
  --check) check_only=true ;;
  *) log "usage: $0 [--check]"; exit 2 ;;
esac

# missing lists what DEST lacks, kubernetes commands first.
missing=()
list_missing() {
  mapfile -t missing < <(missing_kubernetes_commands)
  have_coredns || missing+=(coredns)
}

list_missing
if [ "$check_only" = true ]; then
  if [ "${#missing[@]}" -gt 0 ]; then
    log "missing in ${DEST}: ${missing[*]}"
    exit 1
  fi
  echo "$DEST"
  exit 0
fi

if [ "${#missing[@]}" -gt 0 ]; then
  kubernetes_missing=()
  for name in "${missing[@]}"; do
    [ "$name" = coredns ] || kubernetes_missing+=("$name")
  done
  [ "${#kubernetes_missing[@]}" -eq 0 ] || build_kubernetes_commands "$DEST" "${kubernetes_missing[@]}"
  [[ " ${missing[*]} " != *" coredns "* ]] || build_coredns
  list_missing
  [ "${#missing[@]}" -eq 0 ] || { log "did not build: ${missing[*]}"; exit 1; }
fi
log "$("$DEST/kubelet" --version), $("$DEST/coredns" --version | head -1)"
echo "$DEST"
