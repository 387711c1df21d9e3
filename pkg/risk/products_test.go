package risk

import (
	"encoding/json"
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
// and chat services, clouds, code hosts — so that no new one comes in and
// the ones still held (stillNamed) only go.
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

// stillNamed are the products' names the rules still hold, by file: the
// debt docs/risk-model.md §12 describes. Taking them out with the general
// signals tried so far lowered dangerous tools a review wrote (a database
// engine's removal, a browser's launcher, an image "Docker" says is a
// container's); each must go with a signal that holds them. The test
// fails on a name not here, and on a name here that is gone, so that the
// list only shrinks.
var stillNamed = map[string][]string{
	"action.go":   {"alpine", "chrome", "chromium", "debian", "docker", "firefox", "mariadb", "mongo", "mongodb", "mysql", "playwright", "postgre", "postgresql", "puppeteer", "ubuntu"},
	"severity.go": {"gmail"},
}

// TestRulesNameNoProduct reads every string the judgement's code holds and
// fails on a product's name among its words that stillNamed does not
// grandfather.
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
	found := map[string]map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		allowed := map[string]bool{}
		for _, w := range stillNamed[f] {
			allowed[w] = true
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
					if !banned[w] {
						continue
					}
					if !allowed[w] {
						t.Errorf("%s:%d: the rule names the product %q in %q", f, n+1, w, m[1])
					}
					if found[f] == nil {
						found[f] = map[string]bool{}
					}
					found[f][w] = true
				}
			}
		}
	}
	for f, names := range stillNamed {
		for _, w := range names {
			if !found[f][w] {
				t.Errorf("%s no longer names %q: take it out of stillNamed", f, w)
			}
		}
	}
}

// TestProductSignalsHoldTheReview holds the definitions a review wrote
// against the taking-out of products' names (testdata/product-names-
// review.json): databases removed by an engine's name, workloads started
// from an image an operating system or a container tool names, browsers
// launched by their product's name with a path the caller sets, stored
// routines in a named database, and a mail service's automatic reply.
// Its "floors" give, for each dangerous one, the level and the riskLevel
// the engine gave it while the names were in the rules; whatever takes a
// name's place must grade none of them lower. The review's decoys (a
// favourite database, a product's photo) have no floor.
func TestProductSignalsHoldTheReview(t *testing.T) {
	for file, want := range map[string][2]int{"testdata/product-names-review.json": {77, 65}, "testdata/product-names-review-2.json": {26, 21}} {
		holdsFloors(t, file, want[0], want[1])
	}
}

func holdsFloors(t *testing.T, file string, tools, floors int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var review struct {
		Tools  []json.RawMessage `json:"tools"`
		Floors map[string]struct {
			Level     string `json:"level"`
			RiskLevel string `json:"riskLevel"`
		} `json:"floors"`
	}
	if err := json.Unmarshal(data, &review); err != nil {
		t.Fatal(err)
	}
	if len(review.Tools) != tools || len(review.Floors) != floors {
		t.Fatalf("%s: %d definitions and %d floors, want %d and %d", file, len(review.Tools), len(review.Floors), tools, floors)
	}
	rank := map[string]int{"low": 0, "medium": 1, "high": 2, "critical": 3}
	held := 0
	for _, def := range review.Tools {
		var named struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(def, &named); err != nil {
			t.Fatal(err)
		}
		floor, ok := review.Floors[named.Name]
		if !ok {
			continue
		}
		held++
		want, err := ParseLevel(floor.Level)
		if err != nil {
			t.Fatalf("%s: %v", named.Name, err)
		}
		a := assess(t, string(def))
		if a.Level < want || rank[a.SEP.RiskLevel] < rank[floor.RiskLevel] {
			t.Errorf("%s: %s graded %s %s, below its floor %s %s (%v)", file, named.Name, a.Level, a.SEP.RiskLevel, floor.Level, floor.RiskLevel, a.Reasons)
		}
	}
	if held != len(review.Floors) {
		t.Errorf("%s: %d floors name a definition, want %d", file, held, len(review.Floors))
	}
}
