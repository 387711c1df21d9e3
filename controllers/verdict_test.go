package controllers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/api/equality"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/cli"
	"github.com/toolgate/toolgate/internal/verdict"
	"github.com/toolgate/toolgate/pkg/vet"
)

// expectSameVerdictOffline lists the tools of the server at url, saves
// them, scores it with the CLI given the posture the
// operator sees and the reach its access reviews found, and checks that
// every named tool's pin holds the CLI's verdict. The reasons differ only in
// how the reach is worded, so they are left out of the comparison.
func expectSameVerdictOffline(t *testing.T, url, reach, ns, server string, tools ...string) {
	t.Helper()
	// The capture is what an MCP client lists, as a pipeline would save it.
	session, err := mcp.NewClient(&mcp.Implementation{Name: "capture", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	listed, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(listed)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"score", "-o", "json", "--url", url, "--transport", "streamable-http", "--reach", reach, file}, nil, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("toolgate score exited %d: %s", code, stderr.String())
	}
	var report vet.Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatal(err)
	}
	offline := map[string]*toolgatev1alpha1.ToolRisk{}
	fingerprints := map[string]string{}
	for _, tool := range report.Tools {
		offline[tool.Name] = verdict.ToolRisk(tool)
		fingerprints[tool.Name] = tool.Fingerprint
	}
	for _, name := range tools {
		if offline[name] == nil {
			t.Fatalf("%s: no offline verdict", name)
		}
		// The operator's pins of one probe are written one after another:
		// wait for this one's judgement.
		var pin *toolgatev1alpha1.ToolPin
		eventually(t, name+" is judged by the operator", func() (bool, string) {
			p, err := getPin(t, ns, server, name)
			pin = p
			return err == nil && p.Status.ComputedRiskOrApplied() != nil, fmt.Sprint(err)
		})
		if string(pin.Status.ObservedFingerprint) != fingerprints[name] {
			t.Fatalf("%s: the capture is not the definition the operator judged (%s, %s)", name, fingerprints[name], pin.Status.ObservedFingerprint)
		}
		inCluster, scored := pin.Status.ComputedRiskOrApplied().DeepCopy(), offline[name].DeepCopy()
		inCluster.Reasons, scored.Reasons = nil, nil
		if !equality.Semantic.DeepEqual(inCluster, scored) {
			t.Errorf("%s: the operator says %+v, toolgate score says %+v", name, inCluster, scored)
		}
	}
}
