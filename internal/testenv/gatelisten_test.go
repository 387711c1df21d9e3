package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGateListeningReadsTheBoundAddresses(t *testing.T) {
	log := filepath.Join(t.TempDir(), "gate.log")
	if err := os.WriteFile(log, []byte(`{"time":"x","level":"INFO","msg":"starting"}`+"\n"+`{"msg":"gate listening","listen":"127.0.0.1:4101","metrics":"127.0.0.1:4102","health":""}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	l, m, err := GateListening(ctx, log, nil)
	if err != nil || l != "127.0.0.1:4101" || m != "127.0.0.1:4102" {
		t.Fatalf("got %q %q %v", l, m, err)
	}
}

func TestGateListeningReportsAGateThatExited(t *testing.T) {
	log := filepath.Join(t.TempDir(), "gate.log")
	if err := os.WriteFile(log, []byte("gate: --config-file: no such file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := GateListening(t.Context(), log, func() bool { return false })
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("want the log in the error, got %v", err)
	}
}
