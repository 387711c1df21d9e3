#!/usr/bin/env bash
# The local demo of the whole product, on this machine: a real control plane
# (kube-apiserver and etcd, as the tests use), toolgate installed with its
# Helm chart, the operator and a gate, the Go SDK sample server (which can be
# told to redefine a tool) and a third-party server from npm
# (@modelcontextprotocol/server-everything). It prints every kubectl command
# it runs, so that you can run them again; logs go to files it names.
#
# There is no kubelet here, so the chart's Deployment cannot run: the chart
# is installed with externalOperator (docs/install.md), and the operator and
# the gate run as processes with the credentials a pod would have — a token
# of the chart's ServiceAccount for the operator, the token the API server
# mints for the agent's pod for the gate.
#
#   hack/demo.sh              runs, then leaves everything up until Ctrl-C
#                             or make demo-down, and exits 0 when stopped
#   DEMO_EXIT=1 hack/demo.sh  runs through, then stops everything (tests)
#
# Until it is up, the demo runs in stages (hack/lib/stage.sh): each says
# what it builds and how long that takes the first time, then how long it
# took, or that it was cached.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CACHE="${TOOLGATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate}"
EVERYTHING_VERSION=2026.8.31
# shellcheck source=hack/lib/stage.sh
source hack/lib/stage.sh

# Ctrl-C at a terminal signals its whole foreground process group: make as
# well as the demo. make then reports the demo as interrupted and exits
# 130 whatever the demo does, although Ctrl-C is how the demo is meant to
# end. So, at a terminal, the demo runs again as a job of its own (set -m):
# a process group that the terminal puts in the foreground, which Ctrl-C
# reaches and make does not. make waits, and takes the demo's own exit
# status. Elsewhere (a pipe, a test, CI) it runs as it is.
in_foreground() {
  local pgid tpgid
  read -r pgid tpgid < <(ps -o pgid=,tpgid= -p $$) || return 1
  [ "$pgid" = "$tpgid" ]
}
if [ -z "${TOOLGATE_DEMO_JOB:-}" ] && [ -z "${DEMO_EXIT:-}" ] && [ -t 0 ] && [ -t 2 ] && in_foreground; then
  set -m
  rc=0
  TOOLGATE_DEMO_JOB=1 "$ROOT/hack/demo.sh" "$@" || rc=$?
  exit "$rc"
fi

heading() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
note() { printf '   %s\n' "$*"; }
# cmdline prints its arguments as one shell command line, each argument the
# shell would split or expand in single quotes, so that it can be pasted.
cmdline() {
  local out="" a unsafe='[^A-Za-z0-9_./:=@,+%-]' q="'"
  for a in "$@"; do
    if [[ -z $a || $a =~ $unsafe ]]; then a="'${a//$q/$q\\$q$q}'"; fi
    out+="${out:+ }$a"
  done
  printf '%s' "$out"
}
# run prints a command as you would type it, then runs it.
run() { printf '\n$ %s\n' "$(cmdline "$@")"; "$@"; }
# lookup prints a command whose output the demo keeps (VAR="$(lookup ...)"),
# on standard error so that it shows while the output is captured.
lookup() { printf '\n$ %s\n' "$(cmdline "$@")" >&2; "$@"; }
# quiet prints a command as you would type it, then runs it with its output
# appended to $DIR/commands.log: for the commands whose output tells nothing.
quiet() {
  printf '\n$ %s\n' "$(cmdline "$@")"
  "$@" >>"$DIR/commands.log" 2>&1 || { echo "demo: that failed; see $DIR/commands.log" >&2; return 1; }
}

need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "demo: $tool is not on PATH; the demo needs it (see the README)" >&2; exit 1; }
  done
}
# Go builds everything below, kubectl included where none is installed.
need go node npm curl column base64 ps

DIR="$(mktemp -d "${TMPDIR:-/tmp}/toolgate-demo.XXXXXX")"
PIDS="$DIR/pids"
echo $$ >"$PIDS"
# make demo-down finds the running demo through this clone's record
# (hack/demo-record.sh), from the start: stopping a demo that is still
# building works too, and a demo of another clone is never the one
# stopped. A run for tests (DEMO_EXIT) records nothing, so that a record
# never points at it.
if [ -z "${DEMO_EXIT:-}" ]; then
  hack/demo-record.sh start "$PIDS"
fi
pids=()
# UP is set once the demo is up: from then on Ctrl-C and make demo-down are
# how it ends, and it exits 0 saying goodbye; before, they interrupt it.
UP=
GOODBYE=
stop() {
  if [ -n "$UP" ]; then
    GOODBYE="toolgate: demo stopped; every process it started has exited"
    exit 0
  fi
  GOODBYE="toolgate: demo interrupted before it was up; every process it started has exited"
  exit 130
}
cleanup() {
  # A second Ctrl-C must not cut the stopping short and leave processes
  # behind.
  trap '' INT TERM
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # and whatever else runs in the background (the idle sleep below), or
  # the wait would wait for it
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  # The pids are gone: a later make demo-down must not kill whatever
  # process reuses them.
  rm -f "$PIDS"
  "$ROOT/hack/demo-record.sh" forget "$PIDS"
  if [ -n "$GOODBYE" ]; then printf '\n%s\n' "$GOODBYE" >&2; fi
}
trap cleanup EXIT
# Ctrl-C, and make demo-down's SIGTERM.
trap stop INT TERM
start() { # start LOG COMMAND...: printed, then run in the background, its pid recorded
  local log=$1; shift
  printf '\n$ %s >%s 2>&1 &\n' "$(cmdline "$@")" "$(cmdline "$log")"
  "$@" >"$log" 2>&1 &
  pids+=($!); echo $! >>"$PIDS"
}
wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then echo "demo: timed out waiting for $what; logs are in $DIR" >&2; exit 1; fi
    sleep 0.5
  done
}

heading "Building (the first run builds kube-apiserver, etcd and helm into $CACHE)"
TOOLGATE_STAGE=1/6 stage_modules
KUBEBUILDER_ASSETS="$(TOOLGATE_STAGE=2/6 hack/envtest-binaries.sh)"
export KUBEBUILDER_ASSETS
# kubectl is built of the control plane's version where none is installed.
kubectl_dir="$(TOOLGATE_STAGE=2/6 hack/envtest-binaries.sh --kubectl)"
export PATH="${kubectl_dir:+$kubectl_dir:}$PATH"
need kubectl
HELM="$(TOOLGATE_STAGE=3/6 hack/helm.sh)"
mkdir -p bin
export TOOLGATE_STAGE=4/6
stage_start
stage_begin "building the operator, the gate, the kubectl plugin and the demo's programs into bin/" "first run only, about 3 min on two cores"
compiled=0
for build in "-o bin/ ./cmd/manager ./cmd/gate ./hack/demo/controlplane ./hack/demo/sampleserver ./hack/demo/agent" \
  "-o bin/kubectl-toolgate ./cmd/kubectl-toolgate"; do
  # shellcheck disable=SC2086 # the flags and packages, split on purpose
  stage_go_compiling build $build || { rc=$?; stage_failed "$rc"; exit "$rc"; }
  compiled=$((compiled + _stage_compiled))
done
if ((compiled == 0)); then
  stage_done_cached "every binary was up to date"
else
  stage_done "${compiled} packages compiled and linked"
fi
export PATH="$ROOT/bin:$PATH" # kubectl finds the toolgate plugin here
EVERYTHING="$CACHE/npm-server-everything-$EVERYTHING_VERSION"
export TOOLGATE_STAGE=5/6
stage_start
if [ -f "$EVERYTHING/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ]; then
  stage_cached "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION (npm)" "$EVERYTHING"
else
  stage_begin "installing @modelcontextprotocol/server-everything@$EVERYTHING_VERSION from npm" "first run only, under a minute"
  npm install --no-audit --no-fund --prefix "$EVERYTHING" "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" >"$DIR/npm.log" 2>&1 || {
    rc=$?
    cat "$DIR/npm.log" >&2
    stage_failed "$rc"
    exit "$rc"
  }
  stage_done
fi
export TOOLGATE_STAGE=6/6
stage_start
stage_say "starting the demo: the control plane, the chart, the operator, two MCP servers and an agent's gate ..."
note "logs of every process below are in $DIR"

heading "Starting the control plane (kube-apiserver and etcd, no kubelet)"
start "$DIR/controlplane.log" bin/controlplane "$DIR"
wait_for 90 "the control plane" test -s "$DIR/controlplane.env"
# shellcheck disable=SC1091
source "$DIR/controlplane.env"
export KUBECONFIG="$ADMIN_KUBECONFIG"

heading "Installing toolgate with its Helm chart"
note "No kubelet runs the chart's Deployment, so externalOperator points the webhooks at"
note "the operator's process on 127.0.0.1, with the CA of the certificate it serves."
CA_BUNDLE="$(base64 <"$OPERATOR_CA_FILE" | tr -d '\n')"
printf '\n$ helm install toolgate charts/toolgate --namespace toolgate-system --create-namespace \\\n'
printf '    --set externalOperator.enabled=true --set externalOperator.webhookURL=https://127.0.0.1:%s \\\n' "$WEBHOOK_PORT"
printf '    --set externalOperator.caBundle="$(base64 < %s | tr -d '"'"'\\n'"'"')" --set '"'"'approval.approvers.users={alice,bob}'"'"'\n' "$OPERATOR_CA_FILE"
"$HELM" install toolgate charts/toolgate --namespace toolgate-system --create-namespace \
  --set externalOperator.enabled=true \
  --set externalOperator.webhookURL="https://127.0.0.1:$WEBHOOK_PORT" \
  --set externalOperator.caBundle="$CA_BUNDLE" \
  --set 'approval.approvers.users={alice,bob}' >"$DIR/helm.log"
note "(helm's notes are in $DIR/helm.log)"
run kubectl get serviceaccounts,clusterroles,mutatingwebhookconfigurations,validatingwebhookconfigurations -l app.kubernetes.io/instance=toolgate -A

heading "Starting the operator as the chart's ServiceAccount"
note "A token from the TokenRequest API, as the kubelet would mount it, in a kubeconfig of its own:"
OPERATOR_KUBECONFIG="$DIR/operator.kubeconfig"
SERVER="$(lookup kubectl config view --raw --minify -o 'jsonpath={.clusters[0].cluster.server}')"
CA_JSONPATH='jsonpath={.clusters[0].cluster.certificate-authority-data}'
printf '\n$ %s | base64 -d >%s\n' "$(cmdline kubectl config view --raw --minify -o "$CA_JSONPATH")" "$(cmdline "$DIR/apiserver-ca.crt")"
kubectl config view --raw --minify -o "$CA_JSONPATH" | base64 -d >"$DIR/apiserver-ca.crt"
printf '\n$ TOKEN=$(kubectl create token toolgate-operator -n toolgate-system --duration 24h)\n'
TOKEN="$(kubectl create token toolgate-operator -n toolgate-system --duration 24h)"
quiet kubectl --kubeconfig "$OPERATOR_KUBECONFIG" config set-cluster local --server "$SERVER" --certificate-authority "$DIR/apiserver-ca.crt" --embed-certs
# The token is a credential: printed as the variable it is in, not its value.
printf '\n$ kubectl --kubeconfig %s config set-credentials toolgate-operator --token "$TOKEN"\n' "$(cmdline "$OPERATOR_KUBECONFIG")"
kubectl --kubeconfig "$OPERATOR_KUBECONFIG" config set-credentials toolgate-operator --token "$TOKEN" >>"$DIR/commands.log"
quiet kubectl --kubeconfig "$OPERATOR_KUBECONFIG" config set-context toolgate-operator --cluster local --user toolgate-operator
quiet kubectl --kubeconfig "$OPERATOR_KUBECONFIG" config use-context toolgate-operator
run kubectl --kubeconfig "$OPERATOR_KUBECONFIG" auth whoami
start "$DIR/operator.log" bin/manager --kubeconfig "$OPERATOR_KUBECONFIG" \
  --operator-user system:serviceaccount:toolgate-system:toolgate-operator \
  --operator-namespace toolgate-system --leader-elect --leader-election-namespace toolgate-system \
  --metrics-bind-address 0 --health-probe-bind-address 0 \
  --webhook-port "$WEBHOOK_PORT" --webhook-cert-dir "$WEBHOOK_CERT_DIR" \
  --gate-bind-address 127.0.0.1 --gate-port "$GATE_SERVER_PORT" \
  --gate-image ghcr.io/toolgate/gate:demo --operator-ca-file "$OPERATOR_CA_FILE"
note "bin/manager runs as system:serviceaccount:toolgate-system:toolgate-operator (log: $DIR/operator.log)"

heading "Starting two MCP servers"
note "The sample server answers MCP only with a bearer token, which the operator will read from a"
note "Secret and give the gate alone; the npm server asks for nothing."
printf '\n$ head -c 24 /dev/urandom | base64 | tr -d %s >%s\n' "$(cmdline '/+=\n')" "$(cmdline "$DIR/sample.token")"
head -c 24 /dev/urandom | base64 | tr -d '/+=\n' >"$DIR/sample.token"
start "$DIR/sampleserver.log" bin/sampleserver -url-file "$DIR/sample.url" -token-file "$DIR/sample.token"
wait_for 30 "the sample server" test -s "$DIR/sample.url"
SAMPLE_URL="$(cat "$DIR/sample.url")"
start "$DIR/everything.log" env PORT="$EVERYTHING_PORT" node "$EVERYTHING/node_modules/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp
EVERYTHING_URL="http://127.0.0.1:$EVERYTHING_PORT/mcp"
wait_for 30 "the npm server" curl -s -o /dev/null "$EVERYTHING_URL"
note "demo        the Go SDK sample server        $SAMPLE_URL"
note "everything  @modelcontextprotocol/server-everything@$EVERYTHING_VERSION (npm)  $EVERYTHING_URL"

heading "Registering the servers and a policy for the agents"
quiet kubectl create namespace tools
quiet kubectl create namespace agents
note "The sample server's token, in a Secret labelled for toolgate (the only Secrets it reads):"
quiet kubectl create secret generic demo-token -n tools --from-file=token="$DIR/sample.token"
quiet kubectl label secret demo-token -n tools toolgate.dev/credentials=true
cat >"$DIR/toolgate.yaml" <<YAML
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: demo, namespace: tools}
spec:
  endpoint: {url: "$SAMPLE_URL"}
  auth: {bearerToken: {name: demo-token, key: token}}
  catalogTrust: Internal
  consumers: {from: All}
  probe: {interval: 15s, timeout: 10s}
---
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: everything, namespace: tools}
spec:
  endpoint: {url: "$EVERYTHING_URL"}
  catalogTrust: Internal
  consumers: {from: All}
  probe: {interval: 1h, timeout: 10s}
---
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: agents, namespace: agents}
spec:
  servers: [{namespace: tools, name: demo}, {namespace: tools, name: everything}]
  maxLevel: L3
  approval:
    tools: [{server: tools/everything, name: echo}]
    timeout: 2m
YAML
sed 's/^/   | /' "$DIR/toolgate.yaml"
run kubectl apply -f "$DIR/toolgate.yaml"
ready() { [ "$(kubectl get mcpserver "$1" -n tools -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ]; }
wait_for 90 "the servers' tools to be scored and pinned" bash -c "$(declare -f ready); ready demo && ready everything"

heading "The servers and their tools, scored and pinned (trust on first use)"
run kubectl get toolgate -n tools

heading "Can an agent walk around its gate?"
note "An agent shares its gate's network: a server that answers without the credentials only the"
note "gate holds can be called directly, and the gate sees nothing. The operator probes each server"
note "without them (GateBypassable; -o wide adds the reason):"
run kubectl get mcpservers -n tools -o wide
BYPASS_JSONPATH='jsonpath={.status.conditions[?(@.type=="GateBypassable")].reason}: {.status.conditions[?(@.type=="GateBypassable")].message}{"\n"}'
run kubectl get mcpserver everything -n tools -o "$BYPASS_JSONPATH"
run kubectl get mcpserver demo -n tools -o "$BYPASS_JSONPATH"
note "What an agent's own curl gets from each, without the gate (an MCP initialize; the HTTP status):"
INITIALIZE='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"agent","version":"1"}}}'
for url in "$SAMPLE_URL" "$EVERYTHING_URL"; do
  run curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 -X POST "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -d "$INITIALIZE" || true
done
note "The plugin says the same, with what to do:"
run kubectl toolgate servers -n tools

heading "What the policy exposes and withholds, and why"
note "A policy is enforced in namespaces enabled for injection: their pods get the gate."
run kubectl label namespace agents toolgate.dev/injection=enabled
wait_for 60 "the policy" bash -c '[ -n "$(kubectl get toolpolicy agents -n agents -o jsonpath="{.status.tools}")" ] &&
  [ "$(kubectl get toolpolicy agents -n agents -o jsonpath="{.status.conditions[?(@.type==\"Ready\")].status}")" = True ]'
run kubectl get toolpolicy agents -n agents
run kubectl toolgate policies -n agents
note "One line per tool:"
TOOLS_JSONPATH='jsonpath={range .status.tools[*]}{.server}|{.tool}|{.decision}|{.reason}{"\n"}{end}'
printf '\n$ { echo "SERVER|TOOL|DECISION|WHY"; %s; } | column -t -s %s\n' \
  "$(cmdline kubectl get toolpolicy agents -n agents -o "$TOOLS_JSONPATH")" "$(cmdline '|')"
{ echo "SERVER|TOOL|DECISION|WHY"
  kubectl get toolpolicy agents -n agents -o "$TOOLS_JSONPATH"
} | column -t -s '|'

heading "An agent pod in the namespace labelled for injection"
run kubectl create serviceaccount agent -n agents
cat >"$DIR/pod.yaml" <<YAML
apiVersion: v1
kind: Pod
metadata: {name: agent-0, namespace: agents}
spec:
  serviceAccountName: agent
  containers: [{name: agent, image: "agent:1"}]
YAML
run kubectl apply -f "$DIR/pod.yaml"
note "The webhook added the gate as a native sidecar, and told the agent where each server is:"
run kubectl get pod agent-0 -n agents -o jsonpath='{range .spec.initContainers[*]}init {.name}  {.image}  restartPolicy={.restartPolicy}{"\n"}{end}{range .spec.containers[*].env[*]}env  {.name}={.value}{"\n"}{end}'

heading "The gate, with the token the API server mints for that pod"
POD_UID="$(lookup kubectl get pod agent-0 -n agents -o jsonpath='{.metadata.uid}')"
# 24h, as the operator's: a demo left running outlives the default hour.
# The gate's volume, as the kubelet projects it: the token, and beside it
# the operator's URL and CA (from the pod's annotations). The gate presents
# its token to the operator named there and to no other.
mkdir -p "$DIR/gate-volume"
printf '\n$ kubectl create token agent -n agents --audience toolgate.dev/gate --duration 24h --bound-object-kind Pod --bound-object-name agent-0 --bound-object-uid %s >%s\n' "$POD_UID" "$(cmdline "$DIR/gate-volume/token")"
kubectl create token agent -n agents --audience toolgate.dev/gate --duration 24h \
  --bound-object-kind Pod --bound-object-name agent-0 --bound-object-uid "$POD_UID" >"$DIR/gate-volume/token"
cp "$OPERATOR_CA_FILE" "$DIR/gate-volume/ca.crt"
printf 'https://127.0.0.1:%s' "$GATE_SERVER_PORT" >"$DIR/gate-volume/operator-url"
note "(written to $DIR/gate-volume/, as the kubelet would project it into the gate container; on a node the"
note " operator's URL there is the pod's toolgate.dev/operator-url annotation, its Service's address)"
start "$DIR/gate.log" bin/gate --listen "127.0.0.1:$GATE_PORT" --metrics-addr "127.0.0.1:$GATE_METRICS_PORT" \
  --token-file "$DIR/gate-volume/token"
wait_for 60 "the gate's configuration" curl -sf "http://127.0.0.1:$GATE_METRICS_PORT/readyz"
note "bin/gate listens on 127.0.0.1:$GATE_PORT (log and audit lines: $DIR/gate.log)"
GATE="http://127.0.0.1:$GATE_PORT"
note "The agent's URLs, from its pod's environment, with the port of this gate:"
DEMO_URL="$(lookup kubectl get pod agent-0 -n agents -o 'jsonpath={.spec.containers[0].env[?(@.name=="TOOLGATE_MCP_DEMO_URL")].value}' | sed "s|http://127.0.0.1:[0-9]*|$GATE|")"
EVERY_URL="$(lookup kubectl get pod agent-0 -n agents -o 'jsonpath={.spec.containers[0].env[?(@.name=="TOOLGATE_MCP_EVERYTHING_URL")].value}' | sed "s|http://127.0.0.1:[0-9]*|$GATE|")"
note "demo        $DEMO_URL"
note "everything  $EVERY_URL"

heading "What the agent sees through the gate (a Go SDK MCP client)"
run bin/agent -url "$DEMO_URL" list
run bin/agent -url "$EVERY_URL" list
run bin/agent -url "$EVERY_URL" call get-sum a=2 b=3
run bin/agent -url "$DEMO_URL" call delete_repository repo=toolgate

heading "A rug pull: the sample server redefines get_weather"
run curl -s -X POST "${SAMPLE_URL%/mcp}/update"
note "The gate recomputes every fingerprint on each list, and withholds the tool at once:"
run bin/agent -url "$DEMO_URL" list
run bin/agent -url "$DEMO_URL" call get_weather city=Paris
PIN="$(lookup kubectl get toolpins -n tools -o jsonpath='{range .items[?(@.spec.toolName=="get_weather")]}{.metadata.name}{end}')"
wait_for 60 "the operator to see the change" bash -c "[ \"\$(kubectl get toolpin $PIN -n tools -o jsonpath='{.status.state}')\" = AwaitingReview ]"
note "The operator's next probe puts the pin back into review, with what changed:"
run kubectl get toolpin "$PIN" -n tools -o jsonpath='{.status.state}{"\n"}{.status.change.details}{"\n"}'
FP="$(lookup kubectl get toolpin "$PIN" -n tools -o jsonpath='{.status.observedFingerprint}')"
note "alice, an approver (the chart's approver role), approves the new definition:"
run kubectl --kubeconfig "$ALICE_KUBECONFIG" patch toolpin "$PIN" -n tools --subresource=status --type=json \
  -p "[{\"op\":\"add\",\"path\":\"/status/decisions/-\",\"value\":{\"action\":\"Approve\",\"fingerprint\":\"$FP\",\"comment\":\"metric units are fine\"}}]"
wait_for 30 "the gate to take the approval" bash -c "bin/agent -url '$DEMO_URL' list | grep -q get_weather"
run bin/agent -url "$DEMO_URL" call get_weather city=Paris

heading "A call held for a human: echo needs approval"
printf '\n$ %s >%s 2>&1 &\n' "$(cmdline bin/agent -url "$EVERY_URL" call echo message="hello from the agent")" "$(cmdline "$DIR/held.out")"
bin/agent -url "$EVERY_URL" call echo message="hello from the agent" >"$DIR/held.out" 2>&1 &
HELD=$!; pids+=($HELD)
note "the agent called echo; the gate holds the call ..."
ECHO_PIN="$(lookup kubectl get toolpins -n tools -o jsonpath='{range .items[?(@.spec.toolName=="echo")]}{.metadata.name}{end}')"
wait_for 30 "the held call" bash -c "[ -n \"\$(kubectl get toolpin $ECHO_PIN -n tools -o jsonpath='{.status.pendingCalls[0].id}')\" ]"
CALL="$(lookup kubectl get toolpin "$ECHO_PIN" -n tools -o jsonpath='{.status.pendingCalls[0].id}')"
run kubectl toolgate pending -A
run env KUBECONFIG="$ALICE_KUBECONFIG" kubectl toolgate approve "$ECHO_PIN" -n tools --call "$CALL" --comment "echo is harmless"
wait "$HELD" || true
note "the agent's call returned:"
sed 's/^/   /' "$DIR/held.out"

heading "What a call is called with: an argument rule"
note "The same tool can be harmless or grave by its arguments. A rule in the policy, in CEL, refuses"
note "get-sum's calls with a number over 100 (rules may also hold a call for a person, or raise its level):"
cat >"$DIR/rule.yaml" <<YAML
spec:
  argumentRules:
    - name: small-sums
      tools: [{server: tools/everything, name: get-sum}]
      expression: args.a > 100 || args.b > 100
      action: Refuse
      message: the agents add small numbers only
YAML
sed 's/^/   | /' "$DIR/rule.yaml"
run kubectl patch toolpolicy agents -n agents --type merge --patch-file "$DIR/rule.yaml"
wait_for 60 "the gate to take the rule" bash -c "bin/agent -url '$EVERY_URL' call get-sum a=1000 b=1 | grep -q small-sums"
note "The operator checked the rule against get-sum's pinned inputSchema:"
run kubectl get toolpolicy agents -n agents -o jsonpath='{.status.conditions[?(@.type=="ArgumentRules")].reason}: {.status.conditions[?(@.type=="ArgumentRules")].message}{"\n"}'
run bin/agent -url "$EVERY_URL" call get-sum a=2 b=3
run bin/agent -url "$EVERY_URL" call get-sum a=1000 b=1
note "The same judgement offline, for a pipeline, on a saved call (exit 1 when it is not what -expect says):"
printf '{"name":"get-sum","arguments":{"a":1000,"b":1}}\n' >"$DIR/call.json"
kubectl get toolpolicy agents -n agents -o yaml >"$DIR/policy.yaml"
run bin/kubectl-toolgate check-call -policy "$DIR/policy.yaml" -call "$DIR/call.json" -server tools/everything -level L2 -expect refuse

heading "The gate's audit lines and a metric"
run bin/agent audit "$DIR/gate.log"
printf '\n$ curl -s http://127.0.0.1:%s/metrics | grep ^toolgate_gate_calls_total\n' "$GATE_METRICS_PORT"
curl -s "http://127.0.0.1:$GATE_METRICS_PORT/metrics" | grep '^toolgate_gate_calls_total' ||
  note "(the gate reported no toolgate_gate_calls_total; see $DIR/gate.log)"

stage_say "done in $(stage_elapsed): the demo is up"
# The PATH of this shell, for another: the demo's binaries and kubectl's
# toolgate plugin, helm from the cache, and kubectl where it was built.
HINT_PATH="$ROOT/bin:$(dirname "$HELM")${kubectl_dir:+:$kubectl_dir}"
cat <<TEXT

== The demo is up. In another shell:

  cd $ROOT
  export KUBECONFIG=$ADMIN_KUBECONFIG
  export PATH=$HINT_PATH:\$PATH
  kubectl get toolgate -A
  kubectl toolgate servers -A
  kubectl describe toolpin $PIN -n tools

  # A malicious redefinition: get_weather now asks for the user's messages.
  # The poisoning scan makes it L5 and multi (two people must decide):
  curl -X POST ${SAMPLE_URL%/mcp}/rugpull
  kubectl get toolpin $PIN -n tools -o jsonpath='{.status.risk.level} {.status.risk.approvalRecommendation}{"\n"}{.status.risk.findings}{"\n"}'
  FP=\$(kubectl get toolpin $PIN -n tools -o jsonpath='{.status.observedFingerprint}')
  KUBECONFIG=$ALICE_KUBECONFIG kubectl patch toolpin $PIN -n tools --subresource=status --type=json \\
    -p "[{\"op\":\"add\",\"path\":\"/status/decisions/-\",\"value\":{\"action\":\"Reject\",\"fingerprint\":\"\$FP\",\"comment\":\"asks for the user's messages\"}}]"

  # The agent, through the gate:
  bin/agent -url $DEMO_URL list

Logs are in $DIR. Stop everything with Ctrl-C here, or make demo-down.
TEXT

if [ -n "${DEMO_EXIT:-}" ]; then
  exit 0
fi
UP=1
printf '\n==> running; press Ctrl-C to stop\n'
# sleep in the background and wait: bash runs a trap only once the
# foreground command ends, and wait returns at once on a signal, so
# Ctrl-C and make demo-down stop the demo without delay.
while true; do sleep 3600 & wait $!; done
