package testenv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// GateListening waits for the line a gate writes to its log once it has
// bound its ports ("gate listening") and returns the agent and metrics
// addresses it bound. A test starts the gate with both addresses on port 0
// and learns them here: a port a test finds free, closes and hands to the
// gate can be taken by any other process in between, and on a loaded
// machine running several test packages at once, sometimes is.
//
// alive, when not nil, says whether the gate still runs; a gate that exits
// first is reported with its log.
func GateListening(ctx context.Context, logPath string, alive func() bool) (listen, metrics string, err error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		b, readErr := os.ReadFile(logPath)
		if readErr == nil {
			if l, m, ok := listeningIn(b); ok {
				return l, m, nil
			}
		}
		if alive != nil && !alive() {
			return "", "", fmt.Errorf("the gate exited before it listened; log:\n%s", b)
		}
		select {
		case <-ctx.Done():
			return "", "", fmt.Errorf("the gate did not say where it listens: %w; log:\n%s", ctx.Err(), b)
		case <-tick.C:
		}
	}
}

// listeningIn finds the gate's "gate listening" line among JSON log lines.
func listeningIn(log []byte) (listen, metrics string, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg     string `json:"msg"`
			Listen  string `json:"listen"`
			Metrics string `json:"metrics"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "gate listening" && line.Listen != "" && line.Metrics != "" {
			return line.Listen, line.Metrics, true
		}
	}
	return "", "", false
}
