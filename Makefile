# toolgate — build, generate, test.
#
# `make test` is the one command that runs the whole test suite on a fresh
# machine: it builds the control-plane binaries envtest needs when they are
# missing (into a cache outside the clone), then runs every Go test.
# `make test-unit` runs only the tests that start no control plane.
#
# The tools are pinned as Go tools in modules of their own under hack/tools,
# each built from source on first use and cached by the Go build cache, so
# their dependencies never mix with the project's or with each other's.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

GO ?= go
CONTROLLER_GEN := $(GO) tool -modfile=hack/tools/go.mod controller-gen
# golangci-lint with the module plugins .golangci.yml names (the Kubernetes
# API linter, logcheck) linked in: hack/tools/lint is the module that pins
# them and its main package, built into bin/tools by make lint.
GOLANGCI_LINT := bin/tools/golangci-lint
ENVTEST_BINARIES := hack/envtest-binaries.sh
HELM_BINARY := hack/helm.sh

# Extra flags for go test, e.g. make test GOTESTFLAGS='-run TestKubectl -v'.
# make test runs go test with -timeout $(TEST_TIMEOUT) before them (a
# -timeout in GOTESTFLAGS wins): go test's default of 10 minutes per package
# is too close to the e2e package's 5 on a fast machine.
GOTESTFLAGS ?=
TEST_TIMEOUT ?= 30m
# Extra flags for golangci-lint run, e.g. make lint LINTFLAGS=--fix.
LINTFLAGS ?=

.PHONY: all
all: build

##@ Development

.PHONY: generate
generate: ## Generate deepcopy functions for the API types.
	$(CONTROLLER_GEN) object paths=./api/...

.PHONY: manifests
manifests: ## Generate the CRDs, the manager's RBAC role and webhook configurations; sync them into the Helm chart.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=toolgate-manager paths="./controllers/...;./internal/approval/...;./internal/gateserver/...;./internal/injector/...;./internal/podconnect/..." output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) webhook paths=./internal/approval/... output:webhook:artifacts:config=config/webhook
	hack/chart-sync.sh

.PHONY: fmt
fmt: ## Format the Go code.
	gofmt -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	$(GO) vet ./...

.PHONY: lint
# --allow-serial-runners: a second lint on the machine (another clone's)
# waits for the first instead of failing.
lint: ## Run golangci-lint with .golangci.yml, the API linter on api/ included (the first run builds it from its pinned module, a few minutes).
	@# go build relinks only when the module or the Go toolchain changed.
	cd hack/tools/lint && $(GO) build -o "$(CURDIR)/$(GOLANGCI_LINT)" .
	$(GOLANGCI_LINT) run --allow-serial-runners $(LINTFLAGS) ./...

.PHONY: verify
verify: generate manifests vet ## Regenerate everything and fail on any difference, unformatted code or untidy modules.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) mod tidy -diff
	cd hack/tools && $(GO) mod tidy -diff
	cd hack/tools/lint && $(GO) mod tidy -diff
	cd hack/tools/promcheck && $(GO) mod tidy -diff
	@if [ -n "$$(git status --porcelain -- api config charts)" ]; then \
		echo "generated files are out of date; run 'make generate manifests' and commit:"; \
		git status --porcelain -- api config charts; git diff --stat -- api config charts; exit 1; \
	fi
	@echo "verify: generated code, manifests, formatting and modules are up to date"

##@ Test

.PHONY: envtest
envtest: ## Build kube-apiserver and etcd for envtest into the cache, when missing.
	@$(ENVTEST_BINARIES) >/dev/null

.PHONY: helm
helm: ## Build the helm CLI into the cache, when missing (the chart's golden tests run it).
	@$(HELM_BINARY) >/dev/null

# A machine that cannot run the node (not root, no apt-get: exit 2) builds
# nothing for it, and the real-node tests skip saying why (or fail under
# TOOLGATE_REQUIRE_NODE=1).
.PHONY: node-binaries
node-binaries: ## Build the real node's binaries (kubelet, controller-manager, scheduler, kube-proxy, CoreDNS) into the cache and install its Debian packages, when missing.
	@rc=0; hack/node-packages.sh || rc=$$?; \
	if [ $$rc -eq 2 ]; then echo "node-binaries: this machine cannot run the real node; its tests will skip"; exit 0; fi; \
	[ $$rc -eq 0 ] && hack/node-binaries.sh >/dev/null

.PHONY: node
node: envtest node-binaries ## Start the real node (its own network, mount and PID namespaces) and keep it until Ctrl-C; prints how to reach it.
	kubectl_dir="$$($(ENVTEST_BINARIES) --kubectl)" && PATH="$${kubectl_dir:+$$kubectl_dir:}$$PATH" \
	KUBEBUILDER_ASSETS="$$($(ENVTEST_BINARIES))" TOOLGATE_NODE_HOLD=1 TOOLGATE_REQUIRE_NODE=1 \
	$(GO) test ./test/nodeenv -run '^TestNodeRunsAPod$$' -count=1 -v -timeout 0

.PHONY: demo-node
demo-node: envtest helm node-binaries ## Run the walk-through on the real node: helm install, the operator and gates as pods, an agent and an MCP server in pods (NODE_HOLD=1 keeps the node at the end).
	kubectl_dir="$$($(ENVTEST_BINARIES) --kubectl)" && PATH="$${kubectl_dir:+$$kubectl_dir:}$$PATH" \
	KUBEBUILDER_ASSETS="$$($(ENVTEST_BINARIES))" TOOLGATE_HELM="$$($(HELM_BINARY))" TOOLGATE_REQUIRE_NODE=1 \
	TOOLGATE_NODE_HOLD=$(NODE_HOLD) $(GO) test ./test/node -run '^TestChartOnARealNode$$' -count=1 -v -timeout 0

# make test runs in stages (hack/lib/stage.sh): each says what it does and
# how long it takes the first time, then how long it took, or that its
# result was cached. Errors show in full and the exit status is the
# failing step's own.
.PHONY: test
test: ## Run every test, the ones against a real API server included, and print the risk engine's corpus figures.
	@TOOLGATE_STAGE=1/6 hack/lib/stage.sh modules
	@TOOLGATE_STAGE=2/6 $(ENVTEST_BINARIES) >/dev/null
	@TOOLGATE_STAGE=2/6 $(ENVTEST_BINARIES) --kubectl >/dev/null
	@TOOLGATE_STAGE=3/6 $(HELM_BINARY) >/dev/null
	@TOOLGATE_STAGE=4/6 hack/lib/stage.sh node
	@TOOLGATE_STAGE=5/6 hack/lib/stage.sh compile
	@kubectl_dir="$$($(ENVTEST_BINARIES) --kubectl)" && PATH="$${kubectl_dir:+$$kubectl_dir:}$$PATH" \
	KUBEBUILDER_ASSETS="$$($(ENVTEST_BINARIES))" TOOLGATE_HELM="$$($(HELM_BINARY))" TOOLGATE_STAGE=6/6 \
	hack/lib/stage.sh run "running every test: $(strip $(GO) test -timeout $(TEST_TIMEOUT) $(GOTESTFLAGS) ./...)" "about 10 to 17 min on two cores, longer under load" -- \
	$(GO) test -timeout $(TEST_TIMEOUT) $(GOTESTFLAGS) ./...
	@$(MAKE) --no-print-directory corpus-figures

# test-unit picks its packages from the import graph (hack/test-packages.sh):
# every package whose tests link neither internal/testenv nor envtest. It
# names the packages it leaves out, and it requires the development corpus
# (TOOLGATE_REQUIRE_CORPUS=1) so that nothing skips unseen; run it with
# TOOLGATE_REQUIRE_CORPUS= to let the corpus tests skip instead.
.PHONY: test-unit
test-unit: ## Run the tests that need no control plane or KUBEBUILDER_ASSETS; a missing corpus fails (TOOLGATE_REQUIRE_CORPUS= lets it skip).
	@echo "test-unit: not run here, they start a control plane (make test): $$(hack/test-packages.sh envtest | sed 's|^github.com/toolgate/toolgate/|./|' | tr '\n' ' ')"
	pkgs=$$(hack/test-packages.sh unit); \
	TOOLGATE_REQUIRE_CORPUS=$${TOOLGATE_REQUIRE_CORPUS-1} $(GO) test $(GOTESTFLAGS) $$pkgs

.PHONY: scale
scale: envtest ## Measure convergence of 200 MCPServers of 50 tools each, and the operator's peak memory.
	TOOLGATE_SCALE=1 KUBEBUILDER_ASSETS="$$($(ENVTEST_BINARIES))" $(GO) test -count=1 -v -timeout 15m -run TestFleetConverges ./test/scale/ | grep -E '^(scale:|---|ok|FAIL)|scale_test'

.PHONY: corpus-figures
corpus-figures: ## Print how the risk engine agrees with the reviewers' labels, per corpus folder (dev, dev-2), per part of each (written-from, held-back) and together, on corpus-3 to corpus-14 beside their first runs, and the poisoning scan's detection and false positives.
	@$(GO) test -count=1 -run 'TestCorpusFigures$$|TestCorpusThreeFigures$$|TestCorpusFourFigures$$|TestCorpusFiveFigures$$|TestCorpusSixFigures$$|TestCorpusSevenFigures$$|TestCorpusEightFigures$$|TestCorpusNineFigures$$|TestCorpusTenFigures$$|TestCorpusElevenFigures$$|TestCorpusTwelveFigures$$|TestCorpusThirteenFigures$$|TestCorpusFourteenFigures$$|TestCorpusFifteenFigures$$|TestCorpusSixteenFigures$$|TestCorpusSeventeenFigures$$|TestCorpusEighteenFigures$$|TestCorpusNineteenFigures$$|TestCorpusTwentyFigures$$|TestCorpusTwentyOneFigures$$|TestCorpusTwentyTwoFigures$$' -v ./pkg/risk/ | grep -E '^corpus |SKIP|skipped' || true
	@$(GO) test -count=1 -run 'TestPoisoning(Figures|HeldOut|CorpusThree|CorpusFour|CorpusFive|CorpusSix|CorpusSeven|CorpusEight|CorpusNine|CorpusTen|CorpusEleven|CorpusTwelve|CorpusThirteen|CorpusFourteen|CorpusFifteen|CorpusSixteen|CorpusSeventeen|CorpusEighteen|CorpusNineteen|CorpusTwenty|CorpusTwentyOne|CorpusTwentyTwo)$$' -v ./pkg/vet/ | grep -E '^poisoning:|SKIP|skipped|FAIL' || true

##@ Demo

.PHONY: demo
demo: ## Run the demo of the whole product: a control plane, the chart, the operator, a gate, two MCP servers (DEMO_EXIT=1 stops at the end).
	hack/demo.sh

.PHONY: demo-down
demo-down: ## Stop every process that make demo started from this clone (a demo of another clone runs on).
	@hack/demo-record.sh stop

##@ Build

.PHONY: build
build: ## Build the binaries into bin/.
	$(GO) build -o bin/ ./cmd/...

.PHONY: kubectl-plugin
kubectl-plugin: ## Build the kubectl plugin bin/kubectl-toolgate (put bin/ on PATH: kubectl toolgate pending).
	$(GO) build -o bin/kubectl-toolgate ./cmd/kubectl-toolgate

# The images' tag and the version stamped into the manager, as the
# Dockerfiles' VERSION build argument: make images VERSION=0.1.0.
VERSION ?= dev

.PHONY: images
images: ## Build the operator's and the gate's images as tarballs into bin/images, without Docker, from the same recipe as the Dockerfiles.
	$(GO) run ./hack/images -out bin/images -version $(VERSION)

.PHONY: krew-manifest
krew-manifest: ## Build the kubectl plugin's release archives into bin/dist (linux, darwin; amd64, arm64) and write plugins/krew/toolgate.yaml with their sha256: make krew-manifest VERSION=v0.1.0.
	$(GO) run ./hack/krew -version $(VERSION) -dist bin/dist -out plugins/krew/toolgate.yaml

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-12s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

.PHONY: bench-gate bench-gate-sessions bench-scan
# The fuzz targets of the gate's wire: each package and target, and how
# long each runs. A finding is written under the package's testdata/fuzz/
# and fails every later go test until it is fixed: commit it with the fix.
FUZZTIME ?= 60s
FUZZ_TARGETS := \
	./internal/gate/rpcmsg:FuzzCallReading \
	./internal/gate/rpcmsg:FuzzListReading \
	./internal/gate/rpcmsg:FuzzAnswerCheck \
	./internal/gate/argcheck:FuzzCheck \
	./pkg/namefold:FuzzCheck

.PHONY: fuzz
fuzz: ## Run each fuzz target of the gate's wire for FUZZTIME (60s): what the gate reads against what encoding/json reads, the answer check, the argument check.
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

# The gate measured is built as its image builds it (Dockerfile.gate,
# internal/ociimage): static, without the C library, paths trimmed and no
# symbol tables, so that its memory is the shipped binary's. A gate linked
# against the C library maps about 1.3 MiB more pages.
GATE_BENCH_BUILD = CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags "-s -w" -o bin/gate-bench ./cmd/gate

bench-gate: ## Measure the gate, built as its image ships it, against a plain reverse proxy and a direct connection (latency at 1/16/64 clients, 100-tool lists, RSS).
	$(GATE_BENCH_BUILD)
	$(GO) run ./test/bench/gatebench --gate-bin bin/gate-bench

bench-gate-sessions: ## Measure the gate, built as its image ships it, as agents' clients open sessions: a fresh session every round (both generations, 1/16/64/256 clients, per-round and per-call latency, RSS, goroutines).
	$(GATE_BENCH_BUILD)
	$(GO) run ./test/bench/gatebench --gate-bin bin/gate-bench --sessions fresh --generation both --clients 1,16,64,256

bench-scan: ## Measure the scan of what servers say per answer (p50/p99 of a 4 KiB result, MB/s of a 4 MiB one) beside the answer check alone, on one core.
	GOMAXPROCS=1 $(GO) run ./test/bench/scanbench

.PHONY: bench-fleet
bench-fleet: envtest ## Measure one operator serving 2,000 gates' streams: a policy edit and a pin change to the last gate (p50/p99/max), memory per stream, a restart, TokenReviews (TOOLGATE_FLEET_OPERATOR=bin measures another build).
	TOOLGATE_FLEET=1 KUBEBUILDER_ASSETS="$$($(ENVTEST_BINARIES))" $(GO) test -count=1 -v -timeout 30m -run TestFleet ./test/fleet/ | grep -E '^(fleet:|---|ok|FAIL)|fleet_test'
