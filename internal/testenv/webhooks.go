package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/internal/approval"
)

// toolPinWebhooks reads the generated ToolPin webhook configurations and
// names OperatorUser in their operator match condition, as the chart names
// its service account: the control plane then skips those webhooks for the
// operator's writes, and calls them for everyone else's, exactly as in a
// cluster installed from the chart.
func toolPinWebhooks() ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	path := filepath.Join(RepoRoot(), "config", "webhook", "manifests.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the webhook configurations: %w", err)
	}
	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	expr := approval.OperatorMatchExpression(OperatorUser)
	name := func(conds []admissionregistrationv1.MatchCondition) {
		for i := range conds {
			if conds[i].Name == approval.OperatorMatchCondition {
				conds[i].Expression = expr
			}
		}
	}
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		var kind struct{ Kind string }
		if err := yaml.Unmarshal(doc, &kind); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		switch kind.Kind {
		case "MutatingWebhookConfiguration":
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			for i := range c.Webhooks {
				name(c.Webhooks[i].MatchConditions)
			}
			mutating = append(mutating, &c)
		case "ValidatingWebhookConfiguration":
			var c admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			for i := range c.Webhooks {
				name(c.Webhooks[i].MatchConditions)
			}
			validating = append(validating, &c)
		}
	}
	if len(mutating) == 0 || len(validating) == 0 {
		return nil, nil, fmt.Errorf("%s: no mutating or no validating webhook configuration", path)
	}
	return mutating, validating, nil
}
