#!/usr/bin/env bash
# Lists the Go packages with tests, split by whether their tests start a
# control plane:
#
#   hack/test-packages.sh unit      tests that need no kube-apiserver or etcd
#   hack/test-packages.sh envtest   tests that start one
#
# A package counts as envtest when its test binary links internal/testenv
# (the project's one way in to envtest) or controller-runtime's envtest
# itself, directly or through any dependency. The split is read from the
# import graph, not from build tags or names, so a new test file lands on
# the right side without anyone remembering to mark it.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
  unit|envtest) ;;
  *) echo "usage: $0 unit|envtest" >&2; exit 2 ;;
esac

# With -test, every package that has tests gets a synthesised "<pkg>.test"
# main package whose Deps are everything the test binary links.
${GO:-go} list -test -f '{{if and (eq .Name "main") (not .ForTest)}}{{.ImportPath}}{{range .Deps}} {{.}}{{end}}{{end}}' ./... |
while read -r testmain deps; do
  # The packages themselves are listed too, and commands are also "main".
  [[ "$testmain" == *.test ]] || continue
  case " $deps " in
    *" github.com/toolgate/toolgate/internal/testenv "* | *" sigs.k8s.io/controller-runtime/pkg/envtest "*) kind=envtest ;;
    *) kind=unit ;;
  esac
  if [ "$kind" = "$mode" ]; then
    echo "${testmain%.test}"
  fi
done
