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
// and chat services, clouds, code hosts, social networks — so that none
// comes back.
// Statement languages (SQL, SPARQL, Cypher, Gremlin) are languages a
// parameter can carry, not products, and are not in it. A word that
// begins or ends with a name of five letters or more counts as naming it
// ("dockerimage", "chromepath"), save the formats in formatNames.
var productNames = []string{
	"mysql", "postgres", "postgre", "postgresql", "mariadb", "mongodb", "mongo", "redis", "sqlite", "neo4j",
	"docker", "podman", "kubernetes", "kubectl", "helm", "ubuntu", "debian", "alpine", "macos",
	"chrome", "chromium", "firefox", "safari", "playwright", "puppeteer", "selenium",
	"gmail", "outlook", "slack", "discord", "telegram", "whatsapp", "notion", "jira", "confluence",
	"aws", "gcp", "azure", "github", "gitlab", "bitbucket", "stripe", "paypal", "shopify", "twilio",
	"salesforce", "hubspot", "zendesk", "figma", "vercel", "netlify", "heroku", "cloudflare", "terraform",
	"jenkins", "circleci", "openai", "anthropic", "supabase", "firebase", "airtable",
	"instagram", "storybook", "celery", "hn", "webkit", "electron", "neon", "cockroachdb",
	"clickhouse", "duckdb", "cassandra", "dynamodb", "fedora", "centos", "fastmail",
	"proton", "zoho",
}

// formatNames are words that hold a product's name but name a format
// every tool of the kind reads: "Dockerfile" is the build file's format
// (Containerfile is the same format under its other name).
var formatNames = map[string]bool{"dockerfile": true, "dockerfilepath": true}

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
					if !banned[w] {
						w = compoundOf(w, productNames)
					}
					if w != "" {
						t.Errorf("%s:%d: the rule names the product %q in %q", f, n+1, w, m[1])
					}
				}
			}
		}
	}
}

// compoundOf is the product's name a word begins or ends with, five
// letters or more ("dockerimage", "chromepath"), or "".
func compoundOf(w string, names []string) string {
	if formatNames[w] {
		return ""
	}
	for _, p := range names {
		if len(p) >= 5 && (strings.HasPrefix(w, p) || strings.HasSuffix(w, p)) {
			return p
		}
	}
	return ""
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

// TestSignalsInProductsPlaces holds the general signals that took the
// products' names' place, each on a name no lexicon holds (a made-up
// product), beside the neighbours each must leave alone.
func TestSignalsInProductsPlaces(t *testing.T) {
	checkGrades(t, []gradeCase{
		// a store the name calls by its kind
		{"a store of a kind removed", `{"name":"zorbdb_remove","description":"Removes a ZorbDB database permanently.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
			"critical", L5, 0},
		{"a host removed with its data", `{"name":"quello_delete","description":"Deletes a Quello instance along with its data.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"critical", L5, 0},
		{"an unknown name over a description that removes a store", `{"name":"quello_drop","description":"Drops the database. This cannot be undone.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
			"critical", L5, 0},
		{"a favourite database is a reference kept by a client", `{"name":"delete_favorite","description":"Deletes a favorite database from the sidebar","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"high", L4, 0},
		{"a connected database removed from a dashboard", `{"name":"remove_connection","description":"Removes a connected database from the dashboard; the database itself is untouched.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"high", L4, 0},
		{"a database's record is one item", `{"name":"quello_delete_row","description":"Deletes a database record by its id.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"high", L4, 0},
		// an image a workload runs
		{"an image a sandbox boots", `{"name":"create_sandbox","description":"Creates a sandbox.","inputSchema":{"type":"object","properties":{"image":{"type":"string","description":"Zorb image to boot the sandbox from"}},"required":["image"]}}`,
			"high", L4, 0},
		{"an image by its registry reference", `{"name":"register_thing","description":"Registers a thing.","inputSchema":{"type":"object","properties":{"image":{"type":"string","description":"e.g. registry.zorb.io/team/app"}},"required":["image"]}}`,
			"high", L4, 0},
		{"an image by name and version", `{"name":"make_box","description":"Makes a box.","inputSchema":{"type":"object","properties":{"image":{"type":"string","description":"e.g. python:3.12-slim"}},"required":["image"]}}`,
			"high", L4, 0},
		{"an image beside a registry's credentials", `{"name":"app_save_provider","description":"Save the provider of an app.","inputSchema":{"type":"object","properties":{"appId":{"type":"string"},"zorbImage":{"type":"string"},"registryUrl":{"type":"string"}},"required":["appId","zorbImage"]}}`,
			"high", L4, 0},
		{"a task definition's image", `{"name":"create_task_definition","description":"Registers a task definition.","inputSchema":{"type":"object","properties":{"image":{"type":"string","description":"Zorb image"}},"required":["image"]}}`,
			"high", L4, 0},
		{"a data store of a kind made from its engine's image", `{"name":"create_zorbdb","description":"Creates a ZorbDB database.","inputSchema":{"type":"object","properties":{"image":{"type":"string","description":"Zorb image"}},"required":["image"]}}`,
			"", L0, L3},
		{"a portrait on a verification session", `{"name":"create_session","description":"Create a verification session.","inputSchema":{"type":"object","properties":{"workflow_id":{"type":"string"},"portrait_image":{"type":"string","description":"Base64 or URL reference portrait"}},"required":["workflow_id"]}}`,
			"medium", L0, L3},
		{"a to-do's attached image", `{"name":"create_task","description":"Create a to-do task.","inputSchema":{"type":"object","properties":{"title":{"type":"string"},"image":{"type":"string","description":"Image attached to the task"}},"required":["title"]}}`,
			"medium", L0, L3},
		{"a banner named like a tag", `{"name":"set_banner","description":"Updates a campaign.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"image":{"type":"string","description":"Image, e.g. summer:2"}},"required":["id"]}}`,
			"medium", L0, 0},
		// a launcher of a program named by its product
		{"a launcher named for a product", `{"name":"launch_zorb","description":"Launch Zorb.","inputSchema":{"type":"object","properties":{"executablePath":{"type":"string","description":"Path to the Zorb binary"}}}}`,
			"critical", L5, 0},
		{"a launcher's path named for what it launches", `{"name":"launch_zorb","description":"Launch Zorb headless.","inputSchema":{"type":"object","properties":{"zorbPath":{"type":"string"}}}}`,
			"critical", L5, 0},
		{"a tour's file to sign", `{"name":"start_tour","description":"Start the onboarding tour.","inputSchema":{"type":"object","properties":{"executablePath":{"type":"string","description":"Path of the installer to sign, shown in the tour"}}}}`,
			"", L0, L3},
		{"a browser's data paths are no program", `{"name":"launch_browser","description":"Launch a browser.","inputSchema":{"type":"object","properties":{"userDataDirPath":{"type":"string"},"downloadPath":{"type":"string"},"startPath":{"type":"string","description":"Page to open first"}}}}`,
			"", L0, L4},
		{"a campaign launched", `{"name":"launch_campaign","description":"Launch a marketing campaign.","inputSchema":{"type":"object","properties":{"campaignId":{"type":"string"}},"required":["campaignId"]}}`,
			"", L0, L3},
		// a routine in a database's language; an automatic reply's text
		{"a routine in a database's language", `{"name":"create_function","description":"Creates a function in Zorb.","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"language":{"type":"string","enum":["plpgsql","sql"]},"body":{"type":"string"}},"required":["name","language","body"]}}`,
			"critical", L5, 0},
		{"a snippet in a database's language is kept", `{"name":"save_function","description":"Save a function snippet to your personal snippet library.","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"lang":{"type":"string","description":"Programming language, e.g. sql"},"body":{"type":"string"}},"required":["name","body"]}}`,
			"", L0, L3},
		{"a vacation reply with its text", `{"name":"zorb_set_vacation","description":"Set vacation settings.","inputSchema":{"type":"object","properties":{"subject":{"type":"string"},"body":{"type":"string"}},"required":["subject"]}}`,
			"high", L4, 0},
		{"a thermostat's vacation mode", `{"name":"set_vacation","description":"Set the thermostat's vacation mode.","inputSchema":{"type":"object","properties":{"start":{"type":"string"},"end":{"type":"string"},"temperature":{"type":"number"}}}}`,
			"", L0, L3},
		{"an employee's vacation request", `{"name":"update_vacation","description":"Update an employee's vacation request.","inputSchema":{"type":"object","properties":{"id":{"type":"string"},"start":{"type":"string"},"end":{"type":"string"},"note":{"type":"string"}}}}`,
			"", L0, L3},
	})
}
