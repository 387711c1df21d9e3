#!/usr/bin/env bash
# Stage lines: what make test and make demo are doing, and how long each
# step took. A first run spends minutes building the control plane and
# helm from the Go module proxy; without these lines a newcomer sees either
# nothing or a flood of `go: downloading` lines, and cannot tell a slow
# step from a hung one.
#
# Each stage prints one line when it starts, saying what it does and how
# long it takes the first time, and one when it ends, with the time it took:
#
#   toolgate: [2/6] building the control plane (kube-apiserver v1.37.2, etcd v3.6.16) from the Go module proxy — first run only, about 5 min on two cores ...
#   toolgate: [2/6] done in 3m12s (241 modules downloaded)
#
# A stage whose result is already there says so in one line:
#
#   toolgate: [2/6] the control plane (kube-apiserver v1.37.2, etcd v3.6.16): cached in ~/.cache/toolgate/envtest/k8s-1.37.2-etcd-3.6.16 (0.1s)
#
# The lines go to standard error, so that the standard output of a script
# that prints a path (hack/envtest-binaries.sh, hack/helm.sh) stays that
# path. `go: downloading` lines are counted instead of shown; everything
# else a command prints, its errors above all, is shown as it comes, and
# every exit status is the command's own.
#
# A caller numbers its stages through TOOLGATE_STAGE ("2/6"), which reaches
# the scripts it runs: their lines then carry the caller's number. Where
# TOOLGATE_STAGE is unset, a script's cached result goes unsaid (make test
# asks hack/envtest-binaries.sh for its directory several times) and a
# build is announced without a number.
#
# Sourced by hack/helm.sh, hack/demo.sh and hack/lib/kubernetes-build.sh
# (and through it by hack/envtest-binaries.sh and hack/node-binaries.sh);
# make test runs the stages of its own through the commands at the end:
#
#   hack/lib/stage.sh modules              the project's Go modules
#   hack/lib/stage.sh compile              the project's packages and tests, compiled, not run
#   hack/lib/stage.sh node                 the real node's packages and binaries (make node-binaries)
#   hack/lib/stage.sh run WHAT FIRST -- COMMAND...
#                                          COMMAND as one stage

# stage_label prints what starts every line: the program and the stage's
# number, when it has one.
stage_label() {
  if [ -n "${TOOLGATE_STAGE:-}" ]; then
    printf 'toolgate: [%s]' "$TOOLGATE_STAGE"
  else
    printf 'toolgate:'
  fi
}

# stage_say prints one line of the stage on standard error.
stage_say() { printf '%s %s\n' "$(stage_label)" "$*" >&2; }

# _stage_now prints the time in microseconds.
_stage_now() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t=${EPOCHREALTIME/[.,]/}
    printf '%s' "$((10#$t))"
  else
    printf '%s000000' "$(date +%s)"
  fi
}

# stage_elapsed prints the time since stage_start as a person reads it:
# 0.4s, 12s, 3m12s.
stage_elapsed() {
  local us=$(($(_stage_now) - ${_stage_t0:-$(_stage_now)}))
  local s=$((us / 1000000))
  if ((s < 10)); then
    printf '%d.%ds' "$s" "$(((us / 100000) % 10))"
  elif ((s < 60)); then
    printf '%ds' "$s"
  else
    printf '%dm%02ds' "$((s / 60))" "$((s % 60))"
  fi
}

# stage_start starts the stage's clock, before a script looks in its cache,
# so that a cached stage reports what looking cost.
stage_start() {
  _stage_t0=$(_stage_now)
  _stage_downloads=0
  # The modules a stage downloads are counted in a file, so that a build in
  # a subshell counts too.
  rm -f "${_stage_counts:-}"
  _stage_counts="$(mktemp)"
}

# _stage_add_downloads adds the counts written by stage_quiet, in this
# shell or a subshell, to _stage_downloads.
_stage_add_downloads() {
  local n
  [ -n "${_stage_counts:-}" ] && [ -f "$_stage_counts" ] || return 0
  n=$(awk '{ s += $1 } END { print s + 0 }' "$_stage_counts")
  _stage_downloads=$((${_stage_downloads:-0} + n))
  : >"$_stage_counts"
}

# _stage_stop ends the stage's clock.
_stage_stop() {
  _stage_t0=
  rm -f "${_stage_counts:-}"
  _stage_counts=
}

# stage_active succeeds while a stage's clock runs: a script that says
# what it builds leaves that to the stage's line then.
stage_active() { [ -n "${_stage_t0:-}" ]; }

# stage_begin WHAT [FIRST]: the stage does WHAT, which takes about FIRST
# the first time ("first run only, about 5 min on two cores").
stage_begin() {
  [ -n "${_stage_t0:-}" ] || stage_start
  stage_say "$1${2:+ — $2} ..."
}

# stage_done [NOTE]: the stage has ended well; the modules it downloaded
# are counted in the line.
stage_done() {
  local note=${1:-}
  _stage_add_downloads
  if ((${_stage_downloads:-0} > 0)); then
    note="${note:+$note, }${_stage_downloads} modules downloaded"
  fi
  stage_say "done in $(stage_elapsed)${note:+ ($note)}"
  _stage_stop
}

# stage_done_cached NOTE: the stage, announced, found nothing to do: NOTE
# says why.
stage_done_cached() {
  _stage_add_downloads
  stage_say "done in $(stage_elapsed) (cached: $1)"
  _stage_stop
}

# stage_failed STATUS: the stage's command failed with STATUS; what it
# printed is above this line.
stage_failed() {
  stage_say "failed after $(stage_elapsed) (exit status $1); the cause is above"
  _stage_stop
}

# stage_cached WHAT [WHERE]: nothing to do, WHAT is already there. Said
# only when the caller numbers its stages (see above).
stage_cached() {
  if [ -n "${TOOLGATE_STAGE:-}" ]; then
    stage_say "$1: cached${2:+ in $2} ($(stage_elapsed))"
  fi
  _stage_stop
}

# stage_quiet COMMAND...: runs COMMAND with its `go: downloading` lines
# counted into the stage's downloads instead of shown; everything else it
# writes to standard error shows as it comes. Standard output is left
# alone. Returns COMMAND's status.
stage_quiet() {
  local rc=0
  { "$@" 2>&1 1>&3 3>&- | awk -v out="${_stage_counts:-/dev/null}" '
      /^go: downloading / { n++; next }
      { print; fflush() }
      END { print n + 0 >> out }' >&2; } 3>&1 || rc=$?
  return "$rc"
}

# stage_go_compiling SUBCOMMAND ARGS...: runs go SUBCOMMAND -x ARGS, its
# standard output discarded, and sets _stage_compiled to how many packages
# it compiled and linked: 0 when the build cache held them all. The -x
# trace is only counted; on failure the command runs again without it, so
# that its errors show in full (what compiled before is cached, so the
# second run costs little).
stage_go_compiling() {
  local sub=$1 log rc=0
  shift
  _stage_compiled=0
  log="$(mktemp)"
  go "$sub" -x "$@" 2>"$log" >/dev/null || rc=$?
  if ((rc != 0)); then
    rm -f "$log"
    rc=0
    stage_quiet go "$sub" "$@" >/dev/null || rc=$?
    return "$rc"
  fi
  grep -c '^go: downloading ' "$log" >>"${_stage_counts:-/dev/null}" || true
  _stage_compiled=$(grep -c -E '/(compile|link) ' "$log" || true)
  rm -f "$log"
}

# stage_modules downloads the project's Go modules. With the module proxy
# turned off, go mod download fails at once when the cache lacks one: the
# stage is cached when it succeeds. Otherwise a module's zip newer than the
# start of the download is one it fetched.
stage_modules() {
  stage_start
  local json marker rc=0 total fetched=0 zip
  json="$(mktemp)"
  if GOFLAGS=-mod=mod GOPROXY=off go mod download -json >"$json" 2>/dev/null; then
    total=$(grep -c '"Zip"' "$json" || true)
    rm -f "$json"
    stage_cached "the project's Go modules (${total})" "$(go env GOMODCACHE)"
    return 0
  fi
  stage_begin "downloading the project's Go modules from the module proxy" "first run only, about 2 min"
  marker="$(mktemp)"
  go mod download -json >"$json" || rc=$?
  if ((rc != 0)); then
    grep '"Error"' "$json" >&2 || true
    rm -f "$marker" "$json"
    stage_failed "$rc"
    return "$rc"
  fi
  total=0
  while IFS= read -r zip; do
    total=$((total + 1))
    if [ "$zip" -nt "$marker" ]; then fetched=$((fetched + 1)); fi
  done < <(sed -n 's/^[[:space:]]*"Zip": "\(.*\)",\{0,1\}$/\1/p' "$json")
  rm -f "$marker" "$json"
  stage_done "${fetched} of ${total} modules downloaded"
}

# stage_compile compiles every package of the project and its tests,
# without linking or running anything, so that the test stage's time is
# the tests'.
stage_compile() {
  stage_start
  stage_say "compiling the project and its tests — first run only, about 4 min on two cores ..."
  local rc=0
  stage_go_compiling list -export -deps -test ./... || rc=$?
  if ((rc != 0)); then
    stage_failed "$rc"
    return "$rc"
  fi
  if ((_stage_compiled == 0)); then
    stage_done_cached "every package was in the Go build cache"
  else
    stage_done "${_stage_compiled} packages compiled"
  fi
}

# stage_node: the real node's Debian packages and binaries, where this
# machine can run it (make node-binaries).
stage_node() {
  stage_start
  if hack/node-packages.sh --check >/dev/null 2>&1 && hack/node-binaries.sh --check >/dev/null 2>&1; then
    stage_cached "the real node's packages and binaries (kubelet, containerd, CoreDNS ...)" "$(hack/node-binaries.sh --check 2>/dev/null)"
    return 0
  fi
  stage_begin "installing and building the real node (containerd, kubelet, CoreDNS ...) when this machine can run it" \
    "first run only, about 16 CPU-minutes"
  local rc=0 out
  out="$(mktemp)"
  stage_quiet make --no-print-directory node-binaries >"$out" || rc=$?
  if ((rc != 0)); then
    cat "$out" >&2
    rm -f "$out"
    stage_failed "$rc"
    return "$rc"
  fi
  if grep -q 'cannot run the real node' "$out"; then
    rm -f "$out"
    stage_done "this machine cannot run the real node; its tests will skip"
    return 0
  fi
  rm -f "$out"
  stage_done
}

# stage_run WHAT FIRST -- COMMAND...: COMMAND as one stage, its output
# shown as it is.
stage_run() {
  local what=$1 first=$2 rc=0
  shift 2
  [ "${1:-}" = "--" ] && shift
  stage_start
  stage_begin "$what" "$first"
  # What COMMAND runs is no part of this stage (the tests run the demo,
  # which has stages of its own).
  env -u TOOLGATE_STAGE "$@" || rc=$?
  if ((rc != 0)); then
    stage_failed "$rc"
    return "$rc"
  fi
  stage_done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cd "$(dirname "$0")/../.."
  case "${1:-}" in
    modules) stage_modules ;;
    compile) stage_compile ;;
    node) stage_node ;;
    run) shift; stage_run "$@" ;;
    *)
      echo "usage: $0 modules | compile | node | run WHAT FIRST -- COMMAND..." >&2
      exit 2
      ;;
  esac
fi
