#!/usr/bin/env bash
# Makes sure the host has what the real node runs that is not built from Go
# modules: containerd, runc, the CNI plugins (bridge, host-local, loopback in
# /usr/lib/cni), iptables, conntrack and iproute2. Missing ones are installed
# from Debian's apt; nothing is installed, and apt's lists are not updated,
# when all are there.
#
# The install starts no service: the node tests run containerd themselves,
# with their own configuration, in namespaces of their own, and a containerd
# started by the package would hold /run/containerd and the default socket.
# Debian asks /usr/sbin/policy-rc.d before a package starts a service; when
# that file does not already refuse, the script puts one in place for the
# install and takes it away again.
#
#   hack/node-packages.sh          install what is missing
#   hack/node-packages.sh --check  only check
#
# Exit status: 0 all there; 1 something missing (--check) or the install
# failed; 2 something missing and this host cannot install it (not root, or
# no apt-get), said in one line; 64 a wrong argument.
set -euo pipefail

log() { printf 'node-packages: %s\n' "$*" >&2; }

POLICY_RC=/usr/sbin/policy-rc.d
PACKAGES=(containerd runc containernetworking-plugins iptables conntrack iproute2)

# iptables, conntrack and ip live in sbin, which is not on every PATH.
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

# present PACKAGE: what the node uses of PACKAGE is on this host, however it
# got there.
present() {
  case "$1" in
    containerd) command -v containerd >/dev/null && command -v containerd-shim-runc-v2 >/dev/null ;;
    runc) command -v runc >/dev/null ;;
    containernetworking-plugins) [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] ;;
    iptables) command -v iptables >/dev/null ;;
    conntrack) command -v conntrack >/dev/null ;;
    iproute2) command -v ip >/dev/null ;;
    *) log "no check for package $1"; return 1 ;;
  esac
}

missing=()
list_missing() {
  missing=()
  local pkg
  for pkg in "${PACKAGES[@]}"; do
    present "$pkg" || missing+=("$pkg")
  done
}

report_versions() {
  command -v dpkg-query >/dev/null || return 0
  log "installed: $(dpkg-query -W -f='${Package} ${Version}, ' "${PACKAGES[@]}" 2>/dev/null | sed 's/, $//')"
}

# refuses_service_starts: the policy-rc.d in place answers 101 ("action
# forbidden") for starting a service.
refuses_service_starts() {
  [ -x "$POLICY_RC" ] || return 1
  local rc=0
  "$POLICY_RC" containerd start >/dev/null 2>&1 || rc=$?
  [ "$rc" -eq 101 ]
}

# forbid_service_starts puts a refusing policy-rc.d in place unless one is
# there already, and arranges for the host's own file (or its absence) to
# come back when the script exits.
forbid_service_starts() {
  if refuses_service_starts; then
    return 0
  fi
  saved_policy_dir="$(mktemp -d)"
  if [ -e "$POLICY_RC" ]; then
    mv "$POLICY_RC" "$saved_policy_dir/policy-rc.d"
  fi
  trap restore_policy EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  printf '#!/bin/sh\n# Put here by hack/node-packages.sh for one install: start no service.\nexit 101\n' >"$POLICY_RC"
  chmod 755 "$POLICY_RC"
  log "refusing service starts through ${POLICY_RC} for the install"
}

restore_policy() {
  rm -f "$POLICY_RC"
  if [ -e "$saved_policy_dir/policy-rc.d" ]; then
    mv "$saved_policy_dir/policy-rc.d" "$POLICY_RC"
  fi
  rmdir "$saved_policy_dir"
}

case "${1:-}" in
  "") check_only=false ;;
  --check) check_only=true ;;
  *) log "usage: $0 [--check]"; exit 64 ;;
esac

list_missing
if [ "${#missing[@]}" -eq 0 ]; then
  report_versions
  exit 0
fi
if [ "$check_only" = true ]; then
  log "missing: ${missing[*]}"
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  log "missing: ${missing[*]}; cannot install them: this host has no apt-get (install them with its package manager)"
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  log "missing: ${missing[*]}; cannot install them: apt-get needs root (running as uid $(id -u))"
  exit 2
fi

# containerd_pids: the containerd daemons running now with the package's
# own command line (no arguments: its default socket and state), to tell
# whether the install started one. A containerd a test runs has a --config
# and does not count.
containerd_pids() { if command -v pgrep >/dev/null; then pgrep -xf '(/usr/bin/)?containerd' || true; fi; }
containerd_before="$(containerd_pids)"

forbid_service_starts
log "installing: ${missing[*]}"
# A lock held by another apt run is waited for, not failed on.
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=300 "$@"; }
# Only the missing packages are named: naming an installed one would
# upgrade it as a side effect.
if ! apt_get update >&2 || ! apt_get install -y --no-install-recommends "${missing[@]}" >&2; then
  log "apt-get failed installing: ${missing[*]}"
  exit 1
fi

if [ "$(containerd_pids)" != "$containerd_before" ]; then
  log "the install started containerd (pids: $(containerd_pids | tr '\n' ' ')); stop it before the node tests run their own"
  exit 1
fi
list_missing
if [ "${#missing[@]}" -gt 0 ]; then
  log "still missing after the install: ${missing[*]}"
  exit 1
fi
report_versions
