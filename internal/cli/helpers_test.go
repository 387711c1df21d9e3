package cli

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const twoTools = `{"tools":[
 {"name":"list_issues","description":"Lists the issues of a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}},
 {"name":"delete_repository","description":"Deletes a repository and its history.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}}}}
]}`

// writeFile writes a test input, failing the test when it cannot: a missing
// input would make the command under test fail for the wrong reason.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
