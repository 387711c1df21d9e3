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
// Statement languages (SQL, SPARQL, Cypher, Gremlin), the procedural
// languages a database declares its routines in (PL/pgSQL, PL/v8 …) and
// shells (bash, PowerShell) are languages a parameter can carry, not
// products, and are not in it, nor are the POSIX commands that are that
// language's words (ls, rm, chmod); nor is git, the format every
// version-control host serves a repository in, whatever the host is
// called, with its vocabulary (a reflog, a worktree); nor the kinds an
// orchestrator's vocabulary gave the language (a pod, a taint, to
// cordon), a store (a keyspace) or a package (a chart); nor "tweet", a
// short public post in any dictionary; nor the cluster address scheme of
// the platform toolgate runs on (".svc.cluster.local"). A word that
// begins or ends with a name of four letters or more counts as naming it
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
	"proton", "zoho", "kubeconfig", "subreddit", "reddit", "twitter", "gnupg", "gpg", "codesign", "nodejs",
	"droplet", "dropdatabase", "sequentialthinking", "gist", "nfl",
}

// formatNames are words that hold a product's name but name a format
// every tool of the kind reads: "Dockerfile" is the build file's format
// (Containerfile is the same format under its other name), and a "Docker
// image" the container image's, which every container runtime runs
// (OCI's image format began as Docker's and keeps its name in everyday
// use). A server built on another runtime still says "Docker image" or
// "container image", and both are read.
var formatNames = map[string]bool{"dockerfile": true, "dockerfilepath": true, "dockerimage": true}

// formatPhrases are the phrases a format's name is read in: the word
// alone, outside them, names the vendor.
var formatPhrases = []string{"docker image"}

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
				text := strings.ToLower(m[1])
				for _, f := range formatPhrases {
					text = strings.ReplaceAll(text, f, " ")
				}
				for _, w := range word.FindAllString(text, -1) {
					if formatNames[w] {
						continue
					}
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

// compoundOf is the product's name a word begins or ends with, four
// letters or more ("dockerimage", "chromepath"), or "".
func compoundOf(w string, names []string) string {
	if formatNames[w] {
		return ""
	}
	for _, p := range names {
		if len(p) >= 4 && (strings.HasPrefix(w, p) || strings.HasSuffix(w, p)) {
			return p
		}
	}
	return ""
}

// TestProductSignalsHoldTheReview holds the definitions reviews wrote
// against the taking-out of products' names (testdata/product-names-
// review*.json): databases removed by an engine's name, workloads started
// from an image an operating system or a container tool names, browsers
// launched by their product's name with a path the caller sets, stored
// routines in a named database, and a mail service's automatic reply.
// The first two files are a review's 103 hand-written definitions, the
// third the 1,303 a second review generated (609 the signals' first form
// graded lower, 694 both engines missed). Each file's "floors" give, for
// each dangerous definition, the level and the riskLevel the engine gave
// it while the names were in the rules; whatever takes a name's place
// must grade none of them lower. The first review's decoys (a favourite
// database, a product's photo) have no floor.
func TestProductSignalsHoldTheReview(t *testing.T) {
	for file, want := range map[string][2]int{"testdata/product-names-review.json": {77, 65}, "testdata/product-names-review-2.json": {26, 21},
		"testdata/product-names-review-3.json": {1303, 1303}} {
		holdsFloors(t, file, want[0], want[1])
	}
}

func holdsFloors(t *testing.T, file string, tools, floors int) {
	t.Helper()
	var review struct {
		Tools  []json.RawMessage `json:"tools"`
		Floors map[string]struct {
			Level     string `json:"level"`
			RiskLevel string `json:"riskLevel"`
		} `json:"floors"`
	}
	readReview(t, file, &review)
	if len(review.Tools) != tools || len(review.Floors) != floors {
		t.Fatalf("%s: %d definitions and %d floors, want %d and %d", file, len(review.Tools), len(review.Floors), tools, floors)
	}
	rank := map[string]int{"low": 0, "medium": 1, "high": 2, "critical": 3}
	held := 0
	for _, def := range review.Tools {
		named := toolName(t, def)
		floor, ok := review.Floors[named]
		if !ok {
			continue
		}
		held++
		want, err := ParseLevel(floor.Level)
		if err != nil {
			t.Fatalf("%s: %v", named, err)
		}
		a := assess(t, string(def))
		if a.Level < want || rank[a.SEP.RiskLevel] < rank[floor.RiskLevel] {
			t.Errorf("%s: %s graded %s %s, below its floor %s %s (%v)", file, named, a.Level, a.SEP.RiskLevel, floor.Level, floor.RiskLevel, a.Reasons)
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
		{"a database named by its parameter on a name no lexicon holds", `{"name":"zorb_drop","description":"Irreversibly drops it.","inputSchema":{"type":"object","properties":{"databaseName":{"type":"string"},"host":{"type":"string"}},"required":["databaseName"]}}`,
			"critical", L5, 0},
		{"a table beside the database is narrower", `{"name":"zorb_drop","description":"Irreversibly drops it.","inputSchema":{"type":"object","properties":{"databaseName":{"type":"string"},"table":{"type":"string"}},"required":["databaseName","table"]}}`,
			"high", L4, 0},
		{"a database removed from a named host", `{"name":"quello_remove","description":"Permanently drops the selected database from the current Zorb connection","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
			"critical", L5, 0},
		{"a database removed from monitoring", `{"name":"quello_unwatch","description":"Removes a database with its alert rules from monitoring; the database keeps running.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"", L0, 0},
		{"a headless launcher's path to a named program", `{"name":"zorb_start","description":"Start a session.","inputSchema":{"type":"object","properties":{"headless":{"type":"boolean"},"ZORB_PATH":{"type":"string","description":"Path to Zorb"}}}}`,
			"critical", L5, 0},
		{"a headless launcher's saved state is data", `{"name":"zorb_start","description":"Start a session.","inputSchema":{"type":"object","properties":{"headless":{"type":"boolean"},"authStatePath":{"type":"string","description":"Saved auth state"}}}}`,
			"", L0, L4},
		{"a routine saved in a named service", `{"name":"zorb_save_function","description":"Save a server-side function to Zorb","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"language":{"type":"string","enum":["javascript"]},"body":{"type":"string"}},"required":["name","body"]}}`,
			"critical", L5, 0},
		{"an automatic reply said in its first sentence", `{"name":"zorb_update","description":"Configure out of office","inputSchema":{"type":"object","properties":{"enabled":{"type":"boolean"},"text":{"type":"string","description":"Auto-reply text"}}}}`,
			"high", L4, 0},
		{"an image a provisioned thing runs code from", `{"name":"provision_quello","description":"Provision a quello for running code","inputSchema":{"type":"object","properties":{"image":{"type":"string","description":"Image ID"}},"required":["image"]}}`,
			"high", L4, 0},
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

// TestProductSignalsRaiseNoDecoy holds the honest definitions a review
// wrote to make the signals that took the products' names' place fire
// where they should not (testdata/product-names-decoys.json: 375 that
// their first form graded higher than the engine that held the names).
// Each keeps its level under the "ceilings" the names gave it, but for
// those below, graded higher on purpose or left as a known cost.
func TestProductSignalsRaiseNoDecoy(t *testing.T) {
	knownAbove := map[string]string{
		// An automatic reply answers whoever writes, on any channel: the
		// review called these borderline, and they are externally visible.
		"enable_autoreply": "auto reply", "set_auto_reply": "auto reply", "set_auto_reply_sms_keyword": "auto reply",
		"set_autoreply": "auto reply", "set_bot_autoreply": "auto reply", "set_discord_autoreply": "auto reply",
		"set_forum_autoreply": "auto reply", "update_autoreply": "auto reply", "update_livechat_autoreply": "auto reply",
		// A bare image on a workload's word (a sandbox, a cron, a task's
		// definition, an environment) is read as the workload's: a picture
		// taken for one is graded too high, a workload for a picture too low.
		"create_sandbox": "workload word", "create_cron": "workload word", "create_task_definition": "workload word",
		"update_env": "workload word",
		// An image named like a tag ("spring:3"), one said to be for a
		// kernel (of corn), one on a tutorial's step of a pipeline.
		"create_banner_slot": "tag-like name", "update_corn_listing": "kernel", "create_tutorial_step": "pipeline",
	}
	var review struct {
		Tools    []json.RawMessage `json:"tools"`
		Ceilings map[string]struct {
			Level string `json:"level"`
		} `json:"ceilings"`
	}
	readReview(t, "testdata/product-names-decoys.json", &review)
	if len(review.Tools) != 375 || len(review.Ceilings) != 375 {
		t.Fatalf("%d definitions and %d ceilings, want 375 and 375", len(review.Tools), len(review.Ceilings))
	}
	stillAbove := map[string]bool{}
	for _, def := range review.Tools {
		named := toolName(t, def)
		ceiling, err := ParseLevel(review.Ceilings[named].Level)
		if err != nil {
			t.Fatalf("%s: %v", named, err)
		}
		a := assess(t, string(def))
		if a.Level <= ceiling {
			continue
		}
		if _, known := knownAbove[named]; known {
			stillAbove[named] = true
			continue
		}
		t.Errorf("%s graded %s, above its ceiling %s (%v)", named, a.Level, ceiling, a.Reasons)
	}
	for name := range knownAbove {
		if !stillAbove[name] {
			t.Errorf("%s is no longer above its ceiling: take it out of knownAbove", name)
		}
	}
}

// readReview decodes a review's data file into v.
func readReview(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// toolName is a definition's name.
func toolName(t *testing.T, def json.RawMessage) string {
	t.Helper()
	var named struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(def, &named); err != nil {
		t.Fatal(err)
	}
	return named.Name
}
