#!/usr/bin/env bash
# The record through which make demo-down finds the demo that make demo
# started from the same clone, and only that one.
#
# A running demo lists its processes in a file of its own (DIR/pids, under
# the demo's temporary directory); the record is a file that names that
# list. It is kept in the cache, under a name made from the clone's
# absolute path (symbolic links resolved), so that two clones on one
# machine each stop their own demo, and the working tree stays clean.
# TOOLGATE_DEMO_RECORDS names another directory for the records: a test
# that runs the demo as a user does keeps its record apart from the one of
# a demo the user has running.
#
#   hack/demo-record.sh path         prints this clone's record file
#   hack/demo-record.sh start PIDS   records PIDS as this clone's running demo
#   hack/demo-record.sh forget PIDS  removes the record if it still names PIDS
#   hack/demo-record.sh stop         stops the demo the record names (make demo-down)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd -P)"
cache="${TOOLGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate}"

# The clone's directory name for whoever lists the cache, and a hash of
# its whole path so that two clones of the same name differ.
sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi; }
key="$(basename "$root")-$(printf '%s' "$root" | sha256 | cut -c1-16)"
record="${TOOLGATE_DEMO_RECORDS:-$cache/demo}/$key.pids"

case "${1:-}" in
  path)
    echo "$record"
    ;;
  start)
    [ -n "${2:-}" ] || { echo "usage: $0 start PIDS-FILE" >&2; exit 2; }
    mkdir -p "$(dirname "$record")"
    echo "$2" >"$record"
    ;;
  forget)
    [ -n "${2:-}" ] || { echo "usage: $0 forget PIDS-FILE" >&2; exit 2; }
    # Only the demo that wrote the record removes it: a later demo of the
    # same clone may have replaced it.
    if [ "$(cat "$record" 2>/dev/null)" = "$2" ]; then rm -f "$record"; fi
    ;;
  stop)
    pids_file="$(cat "$record" 2>/dev/null || true)"
    if [ -n "$pids_file" ] && [ -f "$pids_file" ]; then
      # The first pid is the demo's shell, whose exit trap stops the rest
      # and removes the list; the others are signalled too, in case it
      # cannot run its trap.
      # shellcheck disable=SC2046 # one pid a line, split on purpose
      kill $(cat "$pids_file") 2>/dev/null || true
      rm -f "$record"
      echo "demo stopped ($root)"
    else
      # A record whose list is gone belongs to a demo that ended without
      # its trap: nothing of it to stop.
      rm -f "$record"
      echo "no demo running from $root"
    fi
    ;;
  *)
    echo "usage: $0 path | start PIDS-FILE | forget PIDS-FILE | stop" >&2
    exit 2
    ;;
esac
