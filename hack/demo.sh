#!/usr/bin/env bash
# The local demo: a real control plane, the operator, and a sample MCP
# server built with the Go SDK, on this machine. It applies an MCPServer,
# waits until its tools are scored and pinned, and prints what
# `kubectl get toolgate` shows and how to try an approval by hand.
#
#   hack/demo.sh            runs until Ctrl-C
#   DEMO_EXIT=1 hack/demo.sh  prints, then stops everything (for checks)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n==> %s\n' "$*"; }

say "building the control plane binaries (first run only) and toolgate"
export KUBEBUILDER_ASSETS="$(hack/envtest-binaries.sh)"
mkdir -p bin
go build -o bin/ ./cmd/manager ./cmd/toolgate ./hack/demo/controlplane ./hack/demo/sampleserver

DIR="$(mktemp -d "${TMPDIR:-/tmp}/toolgate-demo.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then echo "demo: timed out waiting for $what; logs are in $DIR" >&2; exit 1; fi
    sleep 0.5
  done
}

say "starting kube-apiserver and etcd"
bin/controlplane "$DIR" >"$DIR/controlplane.json" 2>"$DIR/controlplane.log" &
pids+=($!)
wait_for 90 "the control plane" test -s "$DIR/controlplane.env"
# shellcheck disable=SC1091
source "$DIR/controlplane.env"

say "starting the sample MCP server"
bin/sampleserver -url-file "$DIR/sample.url" 2>"$DIR/sampleserver.log" &
pids+=($!)
wait_for 30 "the sample server" test -s "$DIR/sample.url"
SAMPLE_URL="$(cat "$DIR/sample.url")"

say "starting the operator"
bin/manager --kubeconfig "$OPERATOR_KUBECONFIG" \
  --operator-user system:serviceaccount:toolgate-system:toolgate-manager \
  --metrics-bind-address 0 --health-probe-bind-address 0 \
  --webhook-port "$WEBHOOK_PORT" --webhook-cert-dir "$WEBHOOK_CERT_DIR" >"$DIR/manager.log" 2>&1 &
pids+=($!)

export KUBECONFIG="$ADMIN_KUBECONFIG"
say "applying an MCPServer for the sample server"
kubectl apply -f - <<YAML
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata:
  name: demo
  namespace: default
spec:
  endpoint:
    url: ${SAMPLE_URL}
  catalogTrust: Internal
  probe:
    interval: 15s
    timeout: 10s
YAML
wait_for 60 "the server's tools to be scored and pinned" \
  bash -c '[ "$(kubectl get mcpserver demo -o jsonpath="{.status.conditions[?(@.type==\"Ready\")].status}")" = True ]'

say "kubectl get toolgate"
kubectl get toolgate
PIN="$(kubectl get toolpins -o jsonpath='{range .items[?(@.spec.toolName=="get_weather")]}{.metadata.name}{end}')"
cat <<TEXT

==> The demo is running. In another shell:

  export KUBECONFIG=$ADMIN_KUBECONFIG
  kubectl get toolgate
  kubectl describe toolpin $PIN

  # Redefine get_weather on the server, as a compromised server would; within
  # 15 seconds its pin is back to AwaitingReview with the diff:
  curl -X POST ${SAMPLE_URL%/mcp}/rugpull
  kubectl get toolpin $PIN -o jsonpath='{.status.state}{"\n"}{.status.change.details}{"\n"}'

  # The new description tells the model to pass the user's messages along:
  # the poisoning scan finds it, so the tool is L5 and its change needs two
  # people (approvalRecommendation multi). Read the finding, then reject the
  # definition as alice, an approver (the webhook stamps her identity; a
  # service account of an agent namespace would be refused):
  kubectl get toolpin $PIN -o jsonpath='{.status.risk.level} {.status.risk.approvalRecommendation}{"\n"}{.status.risk.findings}{"\n"}'
  FP=\$(kubectl get toolpin $PIN -o jsonpath='{.status.observedFingerprint}')
  KUBECONFIG=$ALICE_KUBECONFIG kubectl patch toolpin $PIN --subresource=status --type=json \\
    -p "[{\"op\":\"add\",\"path\":\"/status/decisions/-\",\"value\":{\"action\":\"Reject\",\"fingerprint\":\"\$FP\",\"comment\":\"asks for the user's messages\"}}]"
  kubectl get toolpin $PIN -o jsonpath='{.status.state}{"\n"}'

Logs are in $DIR.
TEXT

if [ -n "${DEMO_EXIT:-}" ]; then
  exit 0
fi
say "press Ctrl-C to stop"
while true; do sleep 3600; done
