package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestOptions(t *testing.T) {
	inPod := map[string]string{"POD_NAMESPACE": "toolgate-system", "SERVICE_ACCOUNT_NAME": "toolgate"}
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, o *options)
	}{
		{name: "in a pod the operator is its service account", env: inPod, check: func(t *testing.T, o *options) {
			if o.operatorUser != "system:serviceaccount:toolgate-system:toolgate" {
				t.Errorf("operator user %q", o.operatorUser)
			}
		}},
		{name: "outside a pod the operator must be named", wantErr: "--operator-user is required"},
		{name: "approver service accounts are parsed", args: []string{"--operator-user=op",
			"--approver-service-accounts= system:serviceaccount:ci:bot ,,system:serviceaccount:ops:release"},
			check: func(t *testing.T, o *options) {
				if !slices.Equal(o.approverSAs, []string{"system:serviceaccount:ci:bot", "system:serviceaccount:ops:release"}) {
					t.Errorf("approvers %q", o.approverSAs)
				}
			}},
		{name: "an approver that is not a service account", args: []string{"--operator-user=op", "--approver-service-accounts=alice"},
			wantErr: `"alice" is not system:serviceaccount:NAMESPACE:NAME`},
		{name: "an approver service account without a name", args: []string{"--operator-user=op", "--approver-service-accounts=system:serviceaccount:ci:"},
			wantErr: "is not system:serviceaccount:NAMESPACE:NAME"},
		{name: "administrators are parsed", args: []string{"--operator-user=op", "--admin-users= root ,,oncall", "--admin-groups=toolgate-admins, sre"},
			check: func(t *testing.T, o *options) {
				if !slices.Equal(o.adminUsers, []string{"root", "oncall"}) || !slices.Equal(o.adminGroups, []string{"toolgate-admins", "sre"}) {
					t.Errorf("administrators %q, groups %q", o.adminUsers, o.adminGroups)
				}
			}},
		{name: "no administrators by default", args: []string{"--operator-user=op"},
			check: func(t *testing.T, o *options) {
				if o.adminUsers != nil || o.adminGroups != nil {
					t.Errorf("administrators %q, groups %q", o.adminUsers, o.adminGroups)
				}
			}},
		{name: "the operator is not an administrator", args: []string{"--operator-user=op", "--admin-users=op"},
			wantErr: `--admin-users: "op" is the operator`},
		{name: "multi means two people at least", args: []string{"--operator-user=op", "--required-approvers=1"},
			wantErr: "--required-approvers is 1"},
		{name: "at least one probe worker", args: []string{"--operator-user=op", "--probe-concurrency=0"},
			wantErr: "--probe-concurrency is 0"},
		{name: "probe memory and reach by default", args: []string{"--operator-user=op"}, check: func(t *testing.T, o *options) {
			if o.probeMemoryBudget != 64<<20 || o.probeMemoryPerServer != 32<<20 || o.probeAllowLinkLocal {
				t.Errorf("budget %d, per server %d, link-local %v", o.probeMemoryBudget, o.probeMemoryPerServer, o.probeAllowLinkLocal)
			}
		}},
		{name: "probe memory as quantities", args: []string{"--operator-user=op", "--probe-memory-budget=1Gi", "--probe-memory-per-server=100M", "--probe-allow-link-local"},
			check: func(t *testing.T, o *options) {
				if o.probeMemoryBudget != 1<<30 || o.probeMemoryPerServer != 100_000_000 || !o.probeAllowLinkLocal {
					t.Errorf("budget %d, per server %d, link-local %v", o.probeMemoryBudget, o.probeMemoryPerServer, o.probeAllowLinkLocal)
				}
			}},
		{name: "an unlimited global probe budget", args: []string{"--operator-user=op", "--probe-memory-budget=0"},
			check: func(t *testing.T, o *options) {
				if o.probeMemoryBudget != 0 {
					t.Errorf("budget %d", o.probeMemoryBudget)
				}
			}},
		{name: "a global probe budget below one probe's", args: []string{"--operator-user=op", "--probe-memory-budget=16Mi"},
			wantErr: "--probe-memory-budget (16Mi) is less than --probe-memory-per-server (32Mi)"},
		{name: "the gate server by default", args: []string{"--operator-user=op"}, check: func(t *testing.T, o *options) {
			if o.gatePort != 9444 || o.gateBindAddress != "" || o.gateHeartbeat != 15*time.Second || o.gateMaxStreams != 4096 {
				t.Errorf("gate port %d, bind %q, heartbeat %s, max streams %d", o.gatePort, o.gateBindAddress, o.gateHeartbeat, o.gateMaxStreams)
			}
		}},
		{name: "certificate rotation off by default", args: []string{"--operator-user=op"}, check: func(t *testing.T, o *options) {
			if o.certRotation || o.certSecret != "toolgate-webhook-cert" {
				t.Errorf("rotation %v, secret %q", o.certRotation, o.certSecret)
			}
		}},
		{name: "certificate rotation in a pod", env: inPod, args: []string{"--cert-rotation", "--webhook-cert-dir=/certs",
			"--cert-mutating-webhooks=toolgate-mutating, toolgate-injection", "--cert-validating-webhooks=toolgate-validating"},
			check: func(t *testing.T, o *options) {
				if o.operatorNamespace != "toolgate-system" || !slices.Equal(o.certMutating, []string{"toolgate-mutating", "toolgate-injection"}) ||
					!slices.Equal(o.certValidating, []string{"toolgate-validating"}) {
					t.Errorf("namespace %q, mutating %q, validating %q", o.operatorNamespace, o.certMutating, o.certValidating)
				}
			}},
		{name: "certificate rotation needs the mount", env: inPod, args: []string{"--cert-rotation", "--cert-validating-webhooks=v"},
			wantErr: "--cert-rotation needs --webhook-cert-dir"},
		{name: "certificate rotation needs webhook configurations", env: inPod, args: []string{"--cert-rotation", "--webhook-cert-dir=/certs"},
			wantErr: "needs the webhook configurations"},
		{name: "certificate rotation needs the namespace", args: []string{"--operator-user=op", "--cert-rotation", "--webhook-cert-dir=/certs", "--cert-validating-webhooks=v"},
			wantErr: "--cert-rotation needs --operator-namespace"},
		{name: "a gate port out of range", args: []string{"--operator-user=op", "--gate-port=70000"}, wantErr: "--gate-port is 70000"},
		{name: "the cluster's ceilings", args: []string{"--operator-user=op", "--default-max-level=L2", "--max-level-cap=L4"},
			check: func(t *testing.T, o *options) {
				if o.ceilings.Default != "L2" || o.ceilings.Cap != "L4" {
					t.Errorf("ceilings %+v", o.ceilings)
				}
			}},
		{name: "ceilings by default: L3, no cap", args: []string{"--operator-user=op"},
			check: func(t *testing.T, o *options) {
				if o.ceilings.Default != "L3" || o.ceilings.Cap != "L5" {
					t.Errorf("ceilings %+v", o.ceilings)
				}
			}},
		{name: "a default ceiling that is no level", args: []string{"--operator-user=op", "--default-max-level=high"}, wantErr: `--default-max-level is "high"`},
		{name: "a cap that is no level", args: []string{"--operator-user=op", "--max-level-cap=L6"}, wantErr: `--max-level-cap is "L6"`},
		{name: "a gate stream shorter than its heartbeats", args: []string{"--operator-user=op", "--gate-max-stream-lifetime=20s"},
			wantErr: "--gate-max-stream-lifetime (20s) is less than two --gate-heartbeat-interval (15s)"},
		{name: "no injection by default", args: []string{"--operator-user=op"}, check: func(t *testing.T, o *options) {
			if o.gateImage != "" || o.gateOperatorURL != "" {
				t.Errorf("gate image %q, url %q", o.gateImage, o.gateOperatorURL)
			}
		}},
		{name: "injection derives the operator's URL", env: inPod,
			args: []string{"--gate-image=gate:1", "--operator-ca-file=ca.crt", "--inject-excluded-namespaces=monitoring, ci"},
			check: func(t *testing.T, o *options) {
				if o.gateOperatorURL != "https://toolgate-operator.toolgate-system.svc:9444" || o.operatorNamespace != "toolgate-system" {
					t.Errorf("url %q, namespace %q", o.gateOperatorURL, o.operatorNamespace)
				}
				if !slices.Equal(o.injectExcluded, []string{"monitoring", "ci"}) {
					t.Errorf("excluded %q", o.injectExcluded)
				}
				if o.gateResources.Requests.Memory().String() != "32Mi" || o.gateResources.Limits.Memory().String() != "128Mi" || o.gateResources.Limits.Cpu().Sign() != 0 {
					t.Errorf("resources %+v", o.gateResources)
				}
			}},
		{name: "injection needs the CA", env: inPod, args: []string{"--gate-image=gate:1"}, wantErr: "--operator-ca-file is required"},
		{name: "injection needs the operator namespace", args: []string{"--operator-user=op", "--gate-image=gate:1", "--operator-ca-file=ca"},
			wantErr: "--operator-namespace is required"},
		{name: "tunable gate flags", env: inPod, args: []string{"--gate-image=gate:1", "--operator-ca-file=ca", "--gate-args=--log-level=debug, --max-sessions=64"},
			check: func(t *testing.T, o *options) {
				if !slices.Equal(o.gateArgs, []string{"--log-level=debug", "--max-sessions=64"}) {
					t.Errorf("gate args %q", o.gateArgs)
				}
			}},
		{name: "a gate flag that would detach the gate", env: inPod, args: []string{"--gate-image=gate:1", "--operator-ca-file=ca", "--gate-args=--config-file=/open.json"},
			wantErr: "--config-file is not one of"},
		{name: "injection needs a way to the operator", env: inPod, args: []string{"--gate-image=gate:1", "--operator-ca-file=ca", "--gate-port=0"},
			wantErr: "needs the gate server"},
		{name: "a gate request above its limit", env: inPod, args: []string{"--gate-image=gate:1", "--operator-ca-file=ca", "--gate-memory-request=1Gi"},
			wantErr: "memory request 1Gi is above its limit 128Mi"},
		{name: "a gate quantity that is not one", env: inPod, args: []string{"--gate-image=gate:1", "--operator-ca-file=ca", "--gate-cpu-limit=lots"},
			wantErr: `--gate-cpu-limit "lots"`},
		{name: "no memory for a probe", args: []string{"--operator-user=op", "--probe-memory-per-server=0"},
			wantErr: "--probe-memory-per-server is 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("manager", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			o := bindFlags(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			err := o.complete(func(k string) string { return c.env[k] })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, o)
		})
	}
}

// TestFlagSet: the manager takes --kubeconfig, as controller-runtime reads
// it, and the logger's flags, besides its own.
func TestFlagSet(t *testing.T) {
	fs, _, _ := newFlagSet()
	for _, name := range []string{"kubeconfig", "zap-log-level", "operator-user", "admin-users", "admin-groups", "probe-concurrency", "default-max-level", "max-level-cap", "gate-port", "gate-bind-address", "gate-image", "operator-ca-file", "gate-operator-url", "operator-namespace", "cert-rotation", "cert-secret", "cert-mutating-webhooks", "cert-validating-webhooks"} {
		if fs.Lookup(name) == nil {
			t.Errorf("no --%s flag", name)
		}
	}
}

// TestFlagsDocumented: every flag newFlagSet declares is named, as
// `--name`, in the flag table of docs/lifecycle.md ("Running the
// operator"), and every flag the table names exists, so that the table
// cannot drift from the code again.
func TestFlagsDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "lifecycle.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Running the operator\n")
	if !ok {
		t.Fatal(`docs/lifecycle.md has no section "Running the operator"`)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	// The table's rows: their first cells name the flags.
	named := map[string]bool{}
	for _, row := range strings.Split(section, "\n") {
		if !strings.HasPrefix(row, "| `--") {
			continue
		}
		cell := strings.SplitN(row, "|", 3)[1]
		for _, m := range regexp.MustCompile("`--([a-z0-9-]+)`").FindAllStringSubmatch(cell, -1) {
			named[m[1]] = true
		}
	}
	fs, _, _ := newFlagSet()
	fs.VisitAll(func(f *flag.Flag) {
		if !named[f.Name] {
			t.Errorf("docs/lifecycle.md's flag table does not name --%s", f.Name)
		}
		delete(named, f.Name)
	})
	for name := range named {
		t.Errorf("docs/lifecycle.md's flag table names --%s, which the manager does not have", name)
	}
}
