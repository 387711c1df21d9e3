package risk

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// catalogueOf parses one tool definition per name-and-description pair,
// each with an empty object schema: enough for what a catalogue's words
// say of its domain.
func catalogueOf(t *testing.T, pairs ...string) []*tooldef.Tool {
	t.Helper()
	var tools []*tooldef.Tool
	for i := 0; i+1 < len(pairs); i += 2 {
		def := fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object"}}`, pairs[i], pairs[i+1])
		tool, err := tooldef.ParseTool([]byte(def))
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	return tools
}

// filler is a catalogue's tools that speak of no domain.
func filler(n int) []string {
	var pairs []string
	for i := range n {
		pairs = append(pairs, fmt.Sprintf("list_folders_%d", i), "List the folders of the workspace")
	}
	return pairs
}

func TestReadDomain(t *testing.T) {
	secretTools := []string{
		"get_secret", "Read a secret from a path",
		"list_secrets", "List the secrets of a project",
		"generate", "Generate a secure password or passphrase",
		"unlock", "Unlock the vault with the master password",
		"create_login", "Store a new login with its credentials",
	}
	cases := []struct {
		name  string
		pairs []string
		want  Domain
	}{
		{"a secret store with its folders and members", append(slices.Clone(secretTools), filler(15)...), DomainSecrets},
		{"a secret store of nothing else", secretTools, DomainSecrets},
		// A fifth is the least share: five of twenty-six tools is under it.
		{"five tools of secrets among twenty-six", append(slices.Clone(secretTools), filler(21)...), 0},
		// Too few tools say anything of a catalogue.
		{"three tools, all of secrets", secretTools[:6], 0},
		{"a database server that sets one user's password", append([]string{
			"set_user_password", "Set the password of a database user",
			"rotate_credentials", "Rotate the credentials of the connection",
		}, filler(18)...), 0},
		{"an empty catalogue", nil, 0},
		// Boilerplate every tool repeats says nothing of the domain.
		{"a to-do list that needs credentials", []string{
			"get_item", "Get a to-do item. Requires credentials in TODO_API_KEY.",
			"list_items", "List to-do items. Requires credentials in TODO_API_KEY.",
			"create_item", "Create a to-do item. Requires credentials in TODO_API_KEY.",
			"delete_item", "Delete a to-do item. Requires credentials in TODO_API_KEY.",
			"complete_item", "Complete a to-do item. Requires credentials in TODO_API_KEY; the vault of settings is kept locally.",
		}, 0},
		// Names in any style say it, with no description at all.
		{"camel-case and upper-case names", []string{
			"getSecret", "", "listSecrets", "", "rotateVaultKey", "", "GET_TOTP_CODE", "", "Passwords.Export", "",
		}, DomainSecrets},
		// A word is a whole word: "secretary" and "passwordless" are not.
		{"words that hold a domain word", []string{
			"get_secretary", "", "list_secretaries", "", "enable_passwordless", "", "vaulted_ceiling", "", "credentialing", "",
		}, 0},
		// Words that speak of other things as often as of secrets do not
		// count: keys of records, tokens of sessions, locks of files.
		{"keys, tokens and locks", []string{
			"get_key", "Get the value of a key",
			"set_key", "Set the value of a key",
			"refresh_token", "Refresh the session token",
			"lock_file", "Lock a file",
			"unlock_file", "Unlock a file",
		}, 0},
	}
	for w := range catalogueDomainWords {
		if len(w) > domainWordMax || strings.ToLower(w) != w || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
			t.Errorf("domain word %q: a word is lower-case ASCII letters, at most %d of them", w, domainWordMax)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReadDomain(catalogueOf(t, tc.pairs...)); got != tc.want {
				t.Errorf("ReadDomain = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestWhatASecretStoreSaysOfItsItems: in a catalogue that keeps secrets, a
// read of an item nothing else names reveals a secret, and a change that
// places an item in a collection or an organisation gives it to whoever
// reads there; the same definitions outside such a catalogue keep the
// judgement their own words give, and what names its own object (a folder,
// a member, a collection) is judged by it.
func TestWhatASecretStoreSaysOfItsItems(t *testing.T) {
	cases := []struct {
		name      string
		def       string
		category  string
		inStore   string // riskLevel in a secret store's catalogue
		elsewhere string // riskLevel outside it
		minLevel  Level  // in the store
	}{
		{"a bare get of an item", `{"name":"get","description":"Get a specific item from your vault or organization","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}`,
			"read", "high", "low", L4},
		{"a list of items", `{"name":"list_items","description":"List items, optionally filtered by a search term","inputSchema":{"type":"object","properties":{"search":{"type":"string"}}}}`,
			"read", "high", "", L4},
		{"an item moved to an organization", `{"name":"move","description":"Move an item to an organization","inputSchema":{"type":"object","properties":{"itemId":{"type":"string"},"organizationId":{"type":"string"},"collectionIds":{"type":"array","items":{"type":"string"}}},"required":["itemId","organizationId"]}}`,
			"mutate", "critical", "", L5},
		{"an item moved to collections of workspaces", `{"name":"move_item_collection","description":"Move an item to collections","inputSchema":{"type":"object","properties":{"itemId":{"type":"string"},"workspaceIds":{"type":"array","items":{"type":"string"}},"collectionIds":{"type":"array","items":{"type":"string"}}},"required":["itemId"]}}`,
			"mutate", "critical", "", L5},
		{"the collections an item is in", `{"name":"edit_item_collections","description":"Edit which collections an item belongs to","inputSchema":{"type":"object","properties":{"itemId":{"type":"string"},"collectionIds":{"type":"array","items":{"type":"string"}}},"required":["itemId"]}}`,
			"mutate", "critical", "", L5},
		// Named objects keep their own judgement in the store.
		{"a folder created", `{"name":"create_folder","description":"Create a new folder in your vault","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`,
			"mutate", "medium", "medium", L3},
		{"a list of folders", `{"name":"list_folders","description":"List the folders of your vault","inputSchema":{"type":"object"}}`,
			"read", "low", "low", L2},
		// An item moved within one's own folders is given to no one.
		{"an item moved to a folder", `{"name":"move_item","description":"Move an item to another folder","inputSchema":{"type":"object","properties":{"itemId":{"type":"string"},"folderId":{"type":"string"}},"required":["itemId","folderId"]}}`,
			"mutate", "medium", "medium", L3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := tooldef.ParseTool([]byte(tc.def))
			if err != nil {
				t.Fatal(err)
			}
			in := Assess(Input{Tool: tool, Domain: DomainSecrets})
			if in.SEP.Category != tc.category || in.SEP.RiskLevel != tc.inStore || in.Level < tc.minLevel {
				t.Errorf("in a secret store: %s/%s at %s, want %s/%s at %s or above (%v)",
					in.SEP.Category, in.SEP.RiskLevel, in.Level, tc.category, tc.inStore, tc.minLevel, in.Reasons)
			}
			out := Assess(Input{Tool: tool})
			if tc.elsewhere != "" && out.SEP.RiskLevel != tc.elsewhere {
				t.Errorf("outside a secret store: riskLevel %s, want %s (%v)", out.SEP.RiskLevel, tc.elsewhere, out.Reasons)
			}
			fired := slices.ContainsFunc(in.Reasons, func(r string) bool { return strings.Contains(r, "the catalogue keeps secrets") })
			if fired != (tc.inStore != tc.elsewhere) {
				t.Errorf("the domain's reason given: %v, want %v (%v)", fired, tc.inStore != tc.elsewhere, in.Reasons)
			}
		})
	}
}

// TestADomainNeverLowers: a server chooses the words of its whole
// catalogue, so what the catalogue says of a tool may only raise it. Every
// tool of every corpus, judged as part of a catalogue of each domain,
// stays at or above the level, the riskLevel and the side effects it has
// judged alone.
func TestADomainNeverLowers(t *testing.T) {
	dirs := []string{filepath.Join("..", "..", "testdata", "corpus-3"), filepath.Join("..", "..", "testdata", "corpus-4"),
		filepath.Join("..", "..", "testdata", "corpus-15")}
	for _, folder := range corpus.Folders() {
		dirs = append(dirs, corpus.FolderDir(t, folder))
	}
	order := map[string]int{"low": 0, "medium": 1, "high": 2, "critical": 3}
	domains := []Domain{DomainSecrets, DomainTriggerTokens, DomainSecrets | DomainTriggerTokens}
	raised := make([]int, len(domains))
	for _, dir := range dirs {
		servers := 0
		for f, cat := range folderCatalogues(t, dir) {
			servers++
			for _, tool := range cat.Tools {
				alone := Assess(Input{Tool: tool})
				for k, d := range domains {
					in := Assess(Input{Tool: tool, Domain: d})
					switch {
					case in.Level < alone.Level:
						t.Errorf("%s %s: level %s in a catalogue of %s, %s alone", f, tool.Name, in.Level, d, alone.Level)
					case order[in.SEP.RiskLevel] < order[alone.SEP.RiskLevel]:
						t.Errorf("%s %s: riskLevel %s in a catalogue of %s, %s alone", f, tool.Name, in.SEP.RiskLevel, d, alone.SEP.RiskLevel)
					case blastOrder[in.SEP.BlastRadius] < blastOrder[alone.SEP.BlastRadius]:
						t.Errorf("%s %s: blast radius %s in a catalogue of %s, %s alone", f, tool.Name, in.SEP.BlastRadius, d, alone.SEP.BlastRadius)
					}
					for _, e := range alone.SEP.SideEffects {
						if !slices.Contains(in.SEP.SideEffects, e) {
							t.Errorf("%s %s: side effect %s lost in a catalogue of %s", f, tool.Name, e, d)
						}
					}
					if in.Level > alone.Level {
						raised[k]++
					}
				}
			}
		}
		if servers == 0 {
			t.Fatalf("no servers in %s", dir)
		}
	}
	for k, d := range domains {
		if raised[k] == 0 {
			t.Errorf("no tool of any corpus is raised in a catalogue of %s: the domain does nothing", d)
		}
	}
}

// TestSaysTriggerToken holds the catalogue's phrase to its cases.
func TestSaysTriggerToken(t *testing.T) {
	for text, want := range map[string]bool{
		"List project pipeline trigger tokens.":            true,
		"Trigger Token of a build":                         true,
		"A PIPELINE TRIGGER TOKEN":                         true,
		"Trigger token of a project":                       false,
		"Triggers a pipeline with a token":                 false,
		"trigger the token refresh of a pipeline":          false,
		"the token of a pipeline's trigger":                false,
		"Trigger tokenization of the pipeline's documents": false,
		"Retrigger tokens of a build":                      false,
		"":                                                 false,
	} {
		if got := saysTriggerToken(text); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}
