package tooldef

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"

	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/keysort"
)

// The parts of a definition that get a digest of their own, so a change can
// be explained. Top-level fields that MCP does not define are gathered in
// PartOther: they are hashed too, because the model may see them.
const (
	PartName         = "name"
	PartTitle        = "title"
	PartDescription  = "description"
	PartInputSchema  = "inputSchema"
	PartOutputSchema = "outputSchema"
	PartAnnotations  = "annotations"
	PartMeta         = "_meta"
	PartOther        = "other"
)

// Parts lists the part names in the order they are reported.
var Parts = []string{PartName, PartTitle, PartDescription, PartInputSchema, PartOutputSchema, PartAnnotations, PartMeta, PartOther}

// The MCP annotation hints and their defaults when a server omits them
// (MCP 2025-06-18 and later: a tool is assumed non-read-only, destructive,
// non-idempotent and open-world unless it says otherwise).
var hintDefaults = map[string]bool{
	"readOnlyHint":    false,
	"destructiveHint": true,
	"idempotentHint":  false,
	"openWorldHint":   true,
}

// hintNames are hintDefaults' keys in a fixed order, so that the first
// invalid hint is the one reported, on every run.
var hintNames = [...]string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// Tool is one tool definition as a server sent it.
type Tool struct {
	// Name is the tool's name.
	Name string
	// Title is the top-level title, or annotations.title when only that is set.
	Title string
	// Description is the tool's description.
	Description string
	// InputSchema and OutputSchema are the decoded schemas, each an
	// *Object (nil if absent).
	InputSchema, OutputSchema any
	// Annotations holds every annotation, hints filled with their defaults.
	Annotations *Object
	// Declared reports which hints the server actually sent, as opposed to
	// defaults filled in for the fingerprint.
	Declared map[string]bool
	// Object is the whole definition as decoded (numbers as json.Number),
	// annotations normalised: what the fingerprint covers.
	Object *Object

	// canonicalLen is the length of the canonical form. The form itself
	// is written again when asked for: every tool of every catalogue is
	// fingerprinted, few are ever asked for their form, and the gate and
	// the probe need only its size.
	canonicalLen int
	fingerprint  string
	partDigests  map[string]string
}

// Hint returns the value of an annotation hint, the MCP default when absent.
func (t *Tool) Hint(name string) bool {
	if v, ok := t.Annotations.Get(name).(bool); ok {
		return v
	}
	return hintDefaults[name]
}

// Canonical returns the RFC 8785 canonical JSON that the fingerprint hashes,
// written afresh from Object on each call (Object must not have changed
// since the Tool was made). It is nil only if the form can no longer be
// written, which a Tool from ParseTool or ParseToolValue never causes.
func (t *Tool) Canonical() []byte {
	w := writers.Get().(*canonicalWriter)
	defer writers.Put(w)
	// At depth -1, so that each member's value is written at depth 0 as
	// computeDigests writes it, and the depth limit falls where it did.
	b, err := w.append(make([]byte, 0, t.canonicalLen), t.Object, -1)
	if err != nil {
		return nil
	}
	return b
}

// CanonicalLen returns the length of Canonical without writing it: what a
// reader that meters definitions by their size needs.
func (t *Tool) CanonicalLen() int { return t.canonicalLen }

// Fingerprint returns "sha256:" and the hex SHA-256 of Canonical.
func (t *Tool) Fingerprint() string { return t.fingerprint }

// BodyFingerprint is the fingerprint of the definition without its name.
// Two tools with equal bodies are one definition under two names: renaming
// a tool that awaits review or was rejected must not launder it.
func (t *Tool) BodyFingerprint() (string, error) {
	b, err := appendCanonical(nil, t.Object.Without(PartName), 0)
	if err != nil {
		return "", err
	}
	return digest(b), nil
}

// PartDigests returns the digest of each part of the definition; an absent
// part has no entry.
func (t *Tool) PartDigests() map[string]string { return t.partDigests }

// ParseTool reads one tool object. The name must be a non-empty string.
func ParseTool(raw []byte) (*Tool, error) {
	// One decode serves everything: the fields read here, the schemas the
	// risk engine walks, and the canonical form, which is written from the
	// decoded tree (numbers are kept as written, so nothing is rounded
	// before RFC 8785 formats them).
	v, err := decode(raw, 0)
	if err != nil {
		return nil, fmt.Errorf("tool is not valid JSON: %w", err)
	}
	return parseTool(v)
}

// ParseToolValue builds a Tool from a value DecodeValue decoded (numbers
// as json.Number). The Tool keeps the value's objects, and fills the
// absent hints into the value's annotations as it normalises them: the
// caller must not read the value as the server sent it afterwards.
func ParseToolValue(v any) (*Tool, error) {
	return parseTool(v)
}

func parseTool(v any) (*Tool, error) {
	obj, ok := v.(*Object)
	if !ok {
		if v == nil {
			return nil, errors.New("tool is null, not an object")
		}
		return nil, errors.New("tool is not a JSON object")
	}
	if obj == nil {
		return nil, errors.New("tool is null, not an object")
	}
	t := &Tool{Object: obj, Declared: map[string]bool{}}
	switch name := obj.Get("name").(type) {
	case string:
		if name == "" {
			return nil, errors.New("tool name is empty")
		}
		t.Name = name
	case nil:
		if obj.Has("name") {
			return nil, errors.New("tool name is not a string")
		}
		return nil, errors.New("tool has no name")
	default:
		return nil, errors.New("tool name is not a string")
	}
	for _, f := range [...]struct {
		key string
		dst *string
	}{{"title", &t.Title}, {"description", &t.Description}} {
		switch val := obj.Get(f.key).(type) {
		case string:
			*f.dst = val
		case nil:
		default:
			return nil, fmt.Errorf("%s is not a string", f.key)
		}
	}
	for _, f := range [...]struct {
		key string
		dst *any
	}{{"inputSchema", &t.InputSchema}, {"outputSchema", &t.OutputSchema}} {
		switch val := obj.Get(f.key).(type) {
		case *Object:
			*f.dst = val
		case nil:
		default:
			return nil, fmt.Errorf("%s is not a JSON object", f.key)
		}
	}
	if err := t.normaliseAnnotations(); err != nil {
		return nil, err
	}
	if t.Title == "" {
		if s, ok := t.Annotations.Get("title").(string); ok {
			t.Title = s
		}
	}
	if err := t.computeDigests(); err != nil {
		return nil, err
	}
	return t, nil
}

// normaliseAnnotations fills absent hints with their defaults, so that a
// server that starts or stops spelling out a default does not change the
// fingerprint, and records which hints were declared. The tool's object
// is changed in place to hold the normalised annotations, as it is made.
func (t *Tool) normaliseAnnotations() error {
	var ann *Object
	switch v := t.Object.Get(PartAnnotations).(type) {
	case *Object:
		ann = v
	case nil:
	default:
		return errors.New("annotations is not a JSON object")
	}
	var absent [len(hintNames)]bool
	missing := 0
	for i, hint := range hintNames {
		switch v := ann.Get(hint).(type) {
		case bool:
			t.Declared[hint] = true
		case nil:
			if ann.Has(hint) {
				return fmt.Errorf("annotations.%s is null, not a boolean", hint)
			}
			absent[i] = true
			missing++
		default:
			return fmt.Errorf("annotations.%s is %s, not a boolean", hint, jsonKind(v))
		}
	}
	if missing > 0 {
		n := ann.Len() + missing
		var filled *Object
		var ms []Member
		if n <= len(smallAnnotations{}.members) {
			sa := new(smallAnnotations)
			filled, ms = &sa.object, sa.members[:0:n]
		} else {
			filled, ms = new(Object), make([]Member, 0, n)
		}
		ms = append(ms, ann.Members()...)
		for i, hint := range hintNames {
			if absent[i] {
				ms = append(ms, Member{hint, hintDefaults[hint]})
			}
		}
		sortMembers(ms)
		filled.members, filled.nonASCII = ms, anyNonASCII(ms)
		ann = filled
		t.setMember(PartAnnotations, ann)
	}
	t.Annotations = ann
	return nil
}

// smallAnnotations is an object of annotations made with its members in
// one allocation: most tools declare none or a few, and get the four hints.
type smallAnnotations struct {
	object  Object
	members [6]Member
}

// setMember sets the member key of the tool's object to v, in place: the
// object is the tool's own, decoded for it and not yet read by anyone
// else, as the annotations are normalised.
func (t *Tool) setMember(key string, v any) {
	ms := t.Object.members
	for i := range ms {
		if ms[i].Key == key {
			ms[i].Value = v
			return
		}
	}
	grown := make([]Member, len(ms), len(ms)+1)
	copy(grown, ms)
	grown = append(grown, Member{key, v})
	sortMembers(grown)
	t.Object.members = grown
	t.Object.nonASCII = t.Object.nonASCII || !isASCII(key)
}

// computeDigests writes the canonical form of each top-level member once and
// assembles the whole object from the parts: the RFC 8785 form of an object
// is its members sorted by the UTF-16 code units of their names.
func (t *Tool) computeDigests() error {
	// The form is written into a pooled buffer and copied out at its final
	// size: growing a fresh buffer for every tool cost more than writing it.
	w := writers.Get().(*canonicalWriter)
	defer writers.Put(w)

	// The parts' sums are gathered first and written out as one string that
	// every part digest is a slice of: one allocation for up to eight
	// digests, which live and die together in the map. The fingerprint has
	// its own, as callers keep it long after the parts.
	var sums [8]partSum // the seven parts MCP names and the other members
	n := 0
	whole := w.buf[:0]
	defer func() { w.buf = whole[:0] }()
	other := w.other[:0]
	defer func() { w.other = other[:0] }()
	whole = append(whole, '{')
	for i, m := range canonicalMembers(t.Object) {
		key := m.Key
		if i > 0 {
			whole = append(whole, ',')
		}
		memberStart := len(whole)
		whole = appendCanonicalString(whole, key)
		whole = append(whole, ':')
		valueStart := len(whole)
		var err error
		whole, err = w.append(whole, m.Value, 0)
		if err != nil {
			// Only MCP's names are quoted: the message of a probe must not
			// read back what a server chose.
			if !slices.Contains(Parts, key) {
				return fmt.Errorf("a member MCP does not define: %w", err)
			}
			return fmt.Errorf("%s: %w", key, err)
		}
		switch key {
		case PartName, PartTitle, PartDescription, PartInputSchema, PartOutputSchema, PartAnnotations, PartMeta:
			sums[n] = partSum{key, sha256.Sum256(whole[valueStart:])}
			n++
		default:
			if len(other) == 0 {
				other = append(other, '{')
			} else {
				other = append(other, ',')
			}
			other = append(other, whole[memberStart:]...)
		}
	}
	whole = append(whole, '}')
	if len(other) > 0 {
		other = append(other, '}')
		sums[n] = partSum{PartOther, sha256.Sum256(other)}
		n++
	}
	t.canonicalLen = len(whole)
	t.fingerprint = digest(whole)

	var out strings.Builder
	out.Grow(n * digestLen)
	for i := range sums[:n] {
		appendDigest(&out, &sums[i].sum)
	}
	all := out.String()
	t.partDigests = make(map[string]string, n)
	for i, ps := range sums[:n] {
		t.partDigests[ps.part] = all[i*digestLen : (i+1)*digestLen]
	}
	return nil
}

// partSum is the SHA-256 of one part's canonical form.
type partSum struct {
	part string
	sum  [sha256.Size]byte
}

// writers holds canonical writers with their buffers, reused across tools.
var writers = sync.Pool{New: func() any { return &canonicalWriter{buf: make([]byte, 0, 4096)} }}

// maxDepth bounds nesting, so a hostile definition cannot exhaust the stack.
const maxDepth = 128

// canonicalWriter appends RFC 8785 forms, with buffers that
// computeDigests reuses from one tool to the next.
type canonicalWriter struct {
	// buf is the buffer computeDigests writes a tool's whole form into.
	buf []byte
	// other is where computeDigests gathers the members MCP does not
	// define.
	other []byte
}

// appendCanonical appends the RFC 8785 form of a decoded JSON value.
func appendCanonical(b []byte, v any, depth int) ([]byte, error) {
	var w canonicalWriter
	return w.append(b, v, depth)
}

func (w *canonicalWriter) append(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		if x {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case string:
		return appendCanonicalString(b, x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("a number of %d digits cannot be represented as an IEEE 754 double (RFC 8785)", len(x))
		}
		s, err := jcs.NumberToJSON(f)
		if err != nil {
			return nil, err
		}
		return append(b, s...), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = w.append(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case *Object:
		b = append(b, '{')
		for i, m := range canonicalMembers(x) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonicalString(b, m.Key)
			b = append(b, ':')
			var err error
			if b, err = w.append(b, m.Value, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("unexpected JSON value %T", v)
}

// smallObject is the most members the decoder gathers on the goroutine's
// stack: most objects of a schema have two or three.
const smallObject = 8

// appendCanonicalString writes a string as RFC 8785 does: only the quote,
// the backslash and control characters are escaped, with the short forms
// where JSON has them and \u00xx in lower-case hex otherwise.
func appendCanonicalString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// sortMembers sorts an object's members by their names' bytes: the order
// an Object holds them in, which every reader walks (a schema's
// parameters, the texts a scan reads, the findings it reports) and
// Lookup searches. For names in ASCII it is also the order RFC 8785
// writes them in; see canonicalMembers for the others.
func sortMembers(ms []Member) {
	if len(ms) > 12 {
		slices.SortFunc(ms, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
		return
	}
	// Most objects have a handful of members whose names differ in the
	// first byte: an insertion sort that compares first bytes before whole
	// names costs a fraction of the generic sort.
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for ; j > 0 && keysort.Less(m.Key, ms[j-1].Key); j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
}

// canonicalMembers returns o's members in the order RFC 8785 writes them,
// by the UTF-16 code units of their names. That is the order o holds them
// in unless a name is outside ASCII, where the two can differ (a character
// above U+FFFF sorts before one in U+E000–U+FFFF in UTF-16, after it in
// UTF-8): then a sorted copy is returned.
func canonicalMembers(o *Object) []Member {
	if !o.nonASCII {
		return o.members
	}
	ms := slices.Clone(o.members)
	slices.SortFunc(ms, func(a, b Member) int { return compareUTF16(a.Key, b.Key) })
	return ms
}

// compareUTF16 is lessUTF16 as a three-way comparison, for slices.SortFunc.
func compareUTF16(a, b string) int {
	switch {
	case a == b:
		return 0
	case lessUTF16(a, b):
		return -1
	}
	return 1
}

// lessUTF16 orders strings by their UTF-16 code units, as RFC 8785 sorts
// member names. Byte order agrees with it except where a character beyond
// the Basic Multilingual Plane meets one in U+E000–U+FFFF.
func lessUTF16(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// digestPrefix and digestLen describe a digest: "sha256:" and 64 hex digits.
const (
	digestPrefix = "sha256:"
	digestLen    = len(digestPrefix) + 2*sha256.Size
)

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	// One allocation, the string itself, instead of one for the hex and one
	// for the concatenation.
	var out strings.Builder
	out.Grow(digestLen)
	appendDigest(&out, &sum)
	return out.String()
}

// appendDigest writes a sum as a digest, "sha256:" and its hex.
func appendDigest(out *strings.Builder, sum *[sha256.Size]byte) {
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum[:])
	out.WriteString(digestPrefix)
	out.Write(hx[:])
}

// Catalogue is the tools of one server, with what it said of itself.
type Catalogue struct {
	// Tools in the order the server sent them.
	Tools []*Tool
	// Instructions are the server's initialize instructions, when the input
	// carried them.
	Instructions string
	// ServerName is the server's name from initialize, when known.
	ServerName string
}

// Limits bound what a catalogue may hold.
type Limits struct {
	// MaxBytes is the most input read; larger input is refused.
	MaxBytes int64
	// MaxTools is the most tools accepted.
	MaxTools int
	// MaxStringBytes is the longest string accepted anywhere in the input;
	// zero means no limit.
	MaxStringBytes int
}

// DefaultLimits are generous for real servers and small enough that a
// hostile one cannot exhaust memory.
var DefaultLimits = Limits{MaxBytes: 32 << 20, MaxTools: 5000, MaxStringBytes: 1 << 20}

// ErrTooLarge marks a catalogue refused for exceeding a Limit, as opposed
// to one that is malformed.
var ErrTooLarge = errors.New("over a limit")

// limitError is a message that classifies as ErrTooLarge without repeating
// it.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrTooLarge }

// ParseCatalogue reads a tools/list result in any of the shapes people save:
// a bare array of tools, an object with a "tools" key (a tools/list result,
// or a capture with "initialize" beside it, holding the initialize result
// or the JSON-RPC response that carried it), or a whole JSON-RPC response
// whose "result" is such an object. The server's instructions come from the
// initialize result. Errors name the position in the input.
func ParseCatalogue(data []byte, limits Limits) (*Catalogue, error) {
	if limits.MaxBytes > 0 && int64(len(data)) > limits.MaxBytes {
		return nil, &limitError{fmt.Sprintf("input is %d bytes, over the limit of %d", len(data), limits.MaxBytes)}
	}
	// One decode of the whole input; every tool is built from the decoded
	// tree, so no byte is parsed twice.
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("input is empty: want JSON")
	}
	top, err := decode(data, limits.MaxStringBytes)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, fmt.Errorf("%s: %w", position(data, mustOffset(err)), err)
		}
		return nil, positionError(data, err)
	}

	cat := &Catalogue{}
	var tools any
	switch v := top.(type) {
	case []any:
		tools = v
	case *Object:
		obj := v
		if errVal, ok := obj.Lookup("error"); ok {
			b, _ := json.Marshal(errVal)
			return nil, fmt.Errorf("input is a JSON-RPC error response: %s", clip.String(string(b), 200))
		}
		if res, ok := obj.Lookup("result"); ok {
			if obj, ok = res.(*Object); !ok || obj == nil {
				return nil, errors.New(`"result" is not an object with a "tools" array`)
			}
		}
		if cursor := obj.GetString("nextCursor"); cursor != "" {
			return nil, errors.New(`input is one page of several ("nextCursor" is set): save every page's tools in one array`)
		}
		var ok bool
		if tools, ok = obj.Lookup("tools"); !ok {
			return nil, errors.New(`object has no "tools" key: want a tools array, a tools/list result or a JSON-RPC response`)
		}
		if init := obj.GetObject("initialize"); init != nil {
			// The initialize result, or the whole JSON-RPC response that
			// carried it, as a client that logs its traffic saves it.
			if res := init.GetObject("result"); res != nil {
				init = res
			}
			switch in := init.Get("instructions").(type) {
			case string:
				cat.Instructions = in
			case nil:
			default:
				return nil, fmt.Errorf("initialize.instructions is a JSON %s, not a string", jsonKind(in))
			}
			if info := init.GetObject("serverInfo"); info != nil {
				cat.ServerName = info.GetString("name")
			}
		}
	default:
		return nil, fmt.Errorf("input is a JSON %s: want a tools array, a tools/list result or a JSON-RPC response", jsonKind(top))
	}

	list, ok := tools.([]any)
	if !ok {
		return nil, errors.New(`"tools" is not an array`)
	}
	if limits.MaxTools > 0 && len(list) > limits.MaxTools {
		return nil, &limitError{fmt.Sprintf("%d tools, over the limit of %d", len(list), limits.MaxTools)}
	}
	seen := make(map[string]int, len(list))
	if len(list) > 0 {
		cat.Tools = make([]*Tool, 0, len(list))
	}
	for i, v := range list {
		t, err := parseTool(v)
		if err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		if j, dup := seen[t.Name]; dup {
			return nil, fmt.Errorf("tools[%d] and tools[%d] are both named %q: a catalogue cannot offer two tools of one name", j, i, t.Name)
		}
		seen[t.Name] = i
		cat.Tools = append(cat.Tools, t)
	}
	return cat, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	}
	return "value"
}

// positionError turns a decoding error into one that names line and column.
func positionError(data []byte, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: JSON ends early", position(data, int64(len(data))))
	}
	msg := err.Error()
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) && syn.Err != nil {
		msg = syn.Err.Error()
		if syn.JSONPointer != "" {
			msg += " at " + string(syn.JSONPointer)
		}
	}
	if offset, ok := errorOffset(err); ok {
		return fmt.Errorf("%s: not valid JSON: %s", position(data, offset), msg)
	}
	return fmt.Errorf("not valid JSON: %w", err)
}

// position renders a byte offset as "line L, column C".
func position(data []byte, offset int64) string {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// SortedKeys returns the keys of m in order; a small helper for stable
// output.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
