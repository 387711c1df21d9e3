// Package cleantext is the clean tool output the benchmarks of the scan of
// what servers say share: prose, log lines, a JSON record and a link, the
// mix a fetch or a ticket tool returns. One text for all of them, so that
// the per-answer cost (test/bench/scanbench, pkg/resultscan's benchmarks)
// and the gate's latency (test/bench/gatebench) are measured on one answer.
package cleantext

import "strings"

var parts = []string{
	"The quarterly report shows revenue grew by 12 percent compared with the same period last year. ",
	"Operating costs were flat, and the team shipped three releases of the billing service.\n",
	"2024-05-01T10:00:00Z INFO request served path=/api/v1/users status=200 duration=12ms\n",
	"{\"id\": 4411, \"name\": \"Ada Example\", \"email\": \"ada@example.com\", \"role\": \"admin\"}\n",
	"See https://docs.example.com/guide?section=setup&lang=en for the setup guide.\n",
	"Please review the pull request and merge it when the checks pass. ",
	"Customers in the northern region reported faster response times after the migration.\n",
}

// Of is size bytes of the text.
func Of(size int) string {
	var b strings.Builder
	for b.Len() < size {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	return b.String()[:size]
}
