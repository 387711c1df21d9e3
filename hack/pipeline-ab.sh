#!/usr/bin/env bash
# Measures the risk pipeline of the working tree against another commit in
# one process: both trees are built into one binary (the other under the
# import path .../zzbase), and rounds alternate between them, so load on
# the machine falls on both alike. Usage:
#
#   hack/pipeline-ab.sh BASE [-mode each|all] [-rounds N] [-passes N] [-dir CORPUS/servers]
#
# -mode each vets every corpus server alone (BenchmarkVetCorpus/each-server-alone),
# -mode all vets them together (all-servers-together). It prints both
# trees' median and least milliseconds a pass, the median ratio new/base
# and in how many rounds the working tree was faster. GOMAXPROCS is 1, as
# in the docs' CPU method; CPU time is the process's, not the wall clock.
set -euo pipefail
base="${1:?usage: hack/pipeline-ab.sh BASE [flags]}"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
git ls-files -co --exclude-standard -z | grep -z -E '^(go\.mod|go\.sum|pkg/|internal/corpus/|api/)' |
	xargs -0 -I{} cp --parents {} "$work/"
mkdir -p "$work/zzbase" "$work/cmd/zzab"
git archive "$base" pkg internal/corpus api | tar -x -C "$work/zzbase"
find "$work/zzbase" -name '*.go' -exec sed -i 's#"github.com/toolgate/toolgate/\(pkg\|internal/corpus\|api\)#"github.com/toolgate/toolgate/zzbase/\1#' {} +
find "$work/zzbase" -name '*_test.go' -delete
cp hack/pipeline-ab/main.go.tmpl "$work/cmd/zzab/main.go"
(cd "$work" && go build -o "$work/ab" ./cmd/zzab)
# The development corpus lives beside the repository, as the tests find it.
"$work/ab" -dir "$root/../shared/corpus/dev/servers" "$@"
