package risk

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// productNames are products, vendors and libraries a rule must not name:
// a rule keyed on one says nothing of the next server built on another
// (docs/risk-model.md §12). The list cannot be complete; it holds the
// kinds of name the rules once held — database engines, container tools
// and operating systems, browsers and their automation libraries, mail
// and chat services, clouds, code hosts — so that none comes back.
// Statement languages (SQL, SPARQL, Cypher, Gremlin) are languages a
// parameter can carry, not products, and are not in it.
var productNames = []string{
	"mysql", "postgres", "postgre", "postgresql", "mariadb", "mongodb", "mongo", "redis", "sqlite", "neo4j",
	"docker", "podman", "kubernetes", "kubectl", "helm", "ubuntu", "debian", "alpine", "macos",
	"chrome", "chromium", "firefox", "safari", "playwright", "puppeteer", "selenium",
	"gmail", "outlook", "slack", "discord", "telegram", "whatsapp", "notion", "jira", "confluence",
	"aws", "gcp", "azure", "github", "gitlab", "bitbucket", "stripe", "paypal", "shopify", "twilio",
	"salesforce", "hubspot", "zendesk", "figma", "vercel", "netlify", "heroku", "cloudflare", "terraform",
	"jenkins", "circleci", "openai", "anthropic", "supabase", "firebase", "airtable",
}

// TestRulesNameNoProduct reads every string the judgement's code holds and
// fails on a product's name among its words.
func TestRulesNameNoProduct(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	word := regexp.MustCompile(`[a-z0-9]+`)
	banned := map[string]bool{}
	for _, p := range productNames {
		banned[p] = true
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "github.com/toolgate/") {
				continue // an import path
			}
			code, _, _ := strings.Cut(line, "//")
			for _, m := range literal.FindAllStringSubmatch(code, -1) {
				for _, w := range word.FindAllString(strings.ToLower(m[1]), -1) {
					if banned[w] {
						t.Errorf("%s:%d: the rule names the product %q in %q", f, n+1, w, m[1])
					}
				}
			}
		}
	}
}
