package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestLoggerKeepsAFailingTestReadable(t *testing.T) {
	conflict := fmt.Errorf("patching status of ns/weather: %w",
		apierrors.NewConflict(schema.GroupResource{Group: "toolgate.dev", Resource: "mcpservers"}, "weather", errors.New("the object has been modified")))
	canceled := fmt.Errorf("labelling ns/pin: %w", context.Canceled)
	refused := errors.New("probing ns/weather: connection refused")

	for _, tc := range []struct {
		name  string
		debug bool
		log   func(l logr.Logger)
		// want are the substrings of the output, in order of lines; none
		// means no output at all.
		want []string
	}{
		{
			name: "an unexpected error is one line, without a stack trace",
			log:  func(l logr.Logger) { l.Error(refused, "Reconciler error", "controller", "mcpserver") },
			want: []string{"ERROR\tReconciler error\t{\"controller\": \"mcpserver\", \"error\": \"probing ns/weather: connection refused\"}"},
		},
		{
			name: "a conflict is left out at info",
			log:  func(l logr.Logger) { l.Error(conflict, "Reconciler error") },
		},
		{
			name: "a cancelled context is left out at info",
			log:  func(l logr.Logger) { l.WithName("toolpin").WithValues("pin", "p").Error(canceled, "Reconciler error") },
		},
		{
			name:  "a conflict shows at debug, marked expected",
			debug: true,
			log:   func(l logr.Logger) { l.Error(conflict, "Reconciler error") },
			want:  []string{"DEBUG\tReconciler error\t{\"error\": \"patching status of ns/weather: Operation cannot be fulfilled", "\"expected\": true}"},
		},
		{
			name: "info lines pass, V(1) lines only at debug",
			log: func(l logr.Logger) {
				l.Info("Starting workers", "worker count", 4)
				l.V(1).Info("Event occurred")
			},
			want: []string{"INFO\tStarting workers\t{\"worker count\": 4}"},
		},
		{
			name:  "V(1) lines at debug",
			debug: true,
			log:   func(l logr.Logger) { l.V(1).Info("Event occurred") },
			want:  []string{"DEBUG\tEvent occurred"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.log(newLogger(&out, tc.debug))
			text := strings.TrimSuffix(out.String(), "\n")
			if len(tc.want) == 0 {
				if text != "" {
					t.Fatalf("logged %q, want nothing", text)
				}
				return
			}
			lines := strings.Split(text, "\n")
			if len(lines) != 1 {
				t.Fatalf("logged %d lines, want one:\n%s", len(lines), text)
			}
			rest := lines[0]
			for _, want := range tc.want {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("the line lacks %q:\n%s", want, lines[0])
				}
				rest = rest[i+len(want):]
			}
		})
	}
}
