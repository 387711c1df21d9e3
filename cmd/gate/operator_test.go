package main

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOperatorEndpointComesFromBesideTheToken: the gate takes the
// operator's URL and CA from its projected volume; flags may repeat them
// and never replace them.
func TestOperatorEndpointComesFromBesideTheToken(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	write(t, token, "a.b.c")
	write(t, filepath.Join(dir, operatorURLFile), "https://toolgate-operator.toolgate-system.svc:9444\n")
	write(t, filepath.Join(dir, operatorCAFile), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	sameCA := filepath.Join(t.TempDir(), "same.crt")
	write(t, sameCA, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----")
	otherCA := filepath.Join(t.TempDir(), "other.crt")
	write(t, otherCA, "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n")
	bare := filepath.Join(t.TempDir(), "token")
	write(t, bare, "a.b.c")

	for _, tc := range []struct {
		name, token, url, ca string
		wantErr              string
	}{
		{"from the volume", token, "", "", ""},
		{"flags that repeat it", token, "https://toolgate-operator.toolgate-system.svc:9444", filepath.Join(dir, "ca.crt"), ""},
		{"a CA file elsewhere with the same certificate", token, "", sameCA, ""},
		{"another operator URL", token, "https://elsewhere.example:443", "", "is not the operator the pod names"},
		{"another CA", token, "", otherCA, "is not the CA the pod names"},
		{"no operator-url beside the token", bare, "https://elsewhere.example:443", "", "no " + filepath.Join(filepath.Dir(bare), operatorURLFile)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, ca, err := operatorEndpoint(tc.token, tc.url, tc.ca)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q %q %v, want an error containing %q", url, ca, err, tc.wantErr)
				}
				return
			}
			if err != nil || url != "https://toolgate-operator.toolgate-system.svc:9444" || ca != filepath.Join(dir, operatorCAFile) {
				t.Fatalf("got %q %q %v", url, ca, err)
			}
		})
	}
}

// TestBinaryPresentsItsTokenOnlyToThePodsOperator runs the gate binary as
// `kubectl exec … -- /gate --operator-url …` would: told another operator
// URL, or a CA of its own, it refuses to start, and a listener standing in
// for the other operator receives nothing. The same listener named beside
// the token, as the injector does for the real operator, receives the
// token: the harness would see a leak.
func TestBinaryPresentsItsTokenOnlyToThePodsOperator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the gate binary")
	}
	bin := filepath.Join(t.TempDir(), "gate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the gate: %v\n%s", err, out)
	}
	var mu sync.Mutex
	var heard []string
	elsewhere := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "not the operator", http.StatusForbidden)
	}))
	t.Cleanup(elsewhere.Close)
	elsewhereCA := filepath.Join(t.TempDir(), "elsewhere.crt")
	write(t, elsewhereCA, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: elsewhere.Certificate().Raw})))
	heardSoFar := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), heard...)
	}

	const token = "pod-bound.gate.token"
	volume := t.TempDir()
	write(t, filepath.Join(volume, "token"), token)
	write(t, filepath.Join(volume, operatorURLFile), "https://127.0.0.1:1")
	write(t, filepath.Join(volume, operatorCAFile), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: elsewhere.Certificate().Raw})))

	run := func(t *testing.T, wait time.Duration, args ...string) (string, bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), wait)
		defer cancel()
		args = append(args, "--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
		out, _ := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		return string(out), ctx.Err() == nil
	}
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"another operator URL", "is not the operator the pod names", []string{"--token-file", filepath.Join(volume, "token"), "--operator-url", elsewhere.URL}},
		{"another URL and its CA", "is not the operator the pod names", []string{"--token-file", filepath.Join(volume, "token"), "--operator-url", elsewhere.URL, "--operator-ca-file", elsewhereCA}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, exited := run(t, 30*time.Second, tc.args...)
			if !exited || !strings.Contains(out, tc.want) {
				t.Fatalf("the gate did not refuse to start (exited %v):\n%s", exited, out)
			}
			if got := heardSoFar(); len(got) != 0 {
				t.Fatalf("the other operator received %q", got)
			}
		})
	}

	t.Run("the listener named beside the token hears it", func(t *testing.T) {
		named := t.TempDir()
		write(t, filepath.Join(named, "token"), token)
		write(t, filepath.Join(named, operatorURLFile), elsewhere.URL)
		write(t, filepath.Join(named, operatorCAFile), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: elsewhere.Certificate().Raw})))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--token-file", filepath.Join(named, "token"), "--listen", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cancel(); _ = cmd.Wait() }()
		deadline := time.Now().Add(time.Minute)
		for len(heardSoFar()) == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the gate never reached the operator named beside its token")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := heardSoFar()[0]; got != "Bearer "+token {
			t.Fatalf("the operator named beside the token heard %q", got)
		}
	})
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
