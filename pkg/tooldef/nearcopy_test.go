package tooldef

import "testing"

func TestNearCopy(t *testing.T) {
	const rejected = `{"name":"export_contacts","description":"Exports every contact of the address book to a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`
	for _, c := range []struct {
		name, other string
		near        bool
	}{
		{"the same body under another name", `{"name":"contacts_dump","description":"Exports every contact of the address book to a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`, true},
		{"a trailing space", `{"name":"contacts_dump","description":"Exports every contact of the address book to a URL. ","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`, true},
		{"an empty _meta", `{"name":"contacts_dump","_meta":{},"description":"Exports every contact of the address book to a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`, true},
		{"a title", `{"name":"contacts_dump","title":"Backup","description":"Exports every contact of the address book to a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`, true},
		{"one character changed", `{"name":"contacts_dump","description":"Exports every contact of the address book to an URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`, true},
		{"case and punctuation", `{"name":"contacts_dump","description":"EXPORTS every contact, of the address-book, to a url!","inputSchema":{"type":"object","properties":{"URL":{"type":"string"},"format":{"type":"string"}}}}`, true},
		{"a parameter description added", `{"name":"contacts_dump","description":"Exports every contact of the address book to a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string","description":"where to"},"format":{"type":"string"}}}}`, true},
		{"another tool altogether", `{"name":"get_weather","description":"Returns the weather forecast for one city.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`, false},
		{"the same words about other parameters", `{"name":"contacts_dump","description":"Exports every contact of the address book to a URL.","inputSchema":{"type":"object","properties":{"bucket":{"type":"string"},"region":{"type":"string"},"key":{"type":"string"}}}}`, false},
		{"a different description of the same parameters", `{"name":"shorten","description":"Shortens one long URL into a short link in the chosen format.","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"format":{"type":"string"}}}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseTool([]byte(rejected))
			if err != nil {
				t.Fatal(err)
			}
			b, err := ParseTool([]byte(c.other))
			if err != nil {
				t.Fatal(err)
			}
			if got := NearCopy(a, b); got != c.near {
				t.Errorf("NearCopy = %v, want %v", got, c.near)
			}
			if NearCopy(b, a) != NearCopy(a, b) {
				t.Error("NearCopy is not symmetric")
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "abd", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}} {
		if got := editDistance([]rune(c.a), []rune(c.b)); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
