package decide

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// constants returns the values of the constants of a type declared in the
// package's own source: the vocabulary as written, so that a word added
// here and not documented fails the tests below.
func constants(t *testing.T, typ string) []string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != typ {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("a %s constant that is not a string literal: %s", typ, fset.Position(v.Pos()))
					}
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s constants found", typ)
	}
	return out
}

// auditLineRow returns the words in backquotes of a field's row of the
// audit line's table in docs/gate.md.
func auditLineRow(t *testing.T, doc, field string) map[string]bool {
	t.Helper()
	i := strings.Index(doc, "### The audit line")
	if i < 0 {
		t.Fatal("docs/gate.md has no section \"The audit line\"")
	}
	prefix := "| `" + field + "` |"
	for _, line := range strings.Split(doc[i:], "\n") {
		if strings.HasPrefix(line, prefix) {
			words := map[string]bool{}
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(strings.TrimPrefix(line, prefix), -1) {
				words[m[1]] = true
			}
			return words
		}
	}
	t.Fatalf("the audit line's table has no row %q", field)
	return nil
}

// TestVocabularyIsDocumented: every verdict and every reason of the
// gate's own is in the audit line's table, where log pipelines and
// dashboards read them; every verdict but Hold is a decision an audit line
// can carry, and Refuse and Hold are what enforceWould says.
func TestVocabularyIsDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	decisions, enforce, reasons := auditLineRow(t, doc, "decision"), auditLineRow(t, doc, "enforceWould"), auditLineRow(t, doc, "reason")
	for _, v := range constants(t, "Verdict") {
		switch Verdict(v) {
		case Hold:
			if decisions[v] {
				t.Errorf("the decision row names %q, which is never an audit line's decision", v)
			}
		default:
			if !decisions[v] {
				t.Errorf("verdict %q is not in the decision row of docs/gate.md's audit line", v)
			}
		}
	}
	for _, v := range []Verdict{Refuse, Hold} {
		if !enforce[string(v)] {
			t.Errorf("verdict %q is not in the enforceWould row of docs/gate.md's audit line", v)
		}
	}
	for _, r := range constants(t, "Reason") {
		if !reasons[r] {
			t.Errorf("reason %q is not in the reason row of docs/gate.md's audit line", r)
		}
	}
}

// TestReasonsTellWhoDecided: a configuration's reason passes verbatim,
// and no reason of the gate's own spells one, so that a reader of the
// audit line can tell the operator's decision from the gate's.
func TestReasonsTellWhoDecided(t *testing.T) {
	own := map[string]bool{}
	for _, r := range constants(t, "Reason") {
		own[r] = true
	}
	for _, r := range []gateproto.Reason{
		gateproto.ReasonNotAdmitted, gateproto.ReasonServerNotReady, gateproto.ReasonNotListed, gateproto.ReasonRemoved,
		gateproto.ReasonRejected, gateproto.ReasonAwaitingReview, gateproto.ReasonPoisoning, gateproto.ReasonAboveCeiling,
		gateproto.ReasonTrustLevel,
	} {
		if got := FromConfig(r); string(got) != string(r) {
			t.Errorf("FromConfig(%q) = %q, want it verbatim", r, got)
		}
		if own[string(r)] {
			t.Errorf("the gate's own reasons spell the configuration's %q", r)
		}
	}
}
