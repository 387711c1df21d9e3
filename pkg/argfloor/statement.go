package argfloor

import (
	"bytes"
	"strconv"
)

// A statement is read the way the databases that run it read it, closely
// enough to find its verbs and nothing inside its literals: words are
// case-insensitive; comments (-- and /* */) and literals ('…' with ''
// escapes, "…" and `…` identifiers, Postgres' $tag$…$tag$) are skipped;
// ';' separates statements; a statement may open with a WITH clause or sit
// in parentheses. Where two dialects read the same text differently — a
// backslash escapes a quote in MySQL and not in standard SQL, $$ quotes in
// Postgres and names in MySQL, /*! … */ runs in MySQL and is a comment
// elsewhere — the text is read both ways and the worse reading counts, so
// that no dialect's literal hides a statement from the other's reading.
//
// A verb is found where a statement starts, and anywhere a second one can
// start without a ';' (T-SQL runs "SELECT 1 DROP TABLE t" as two
// statements, Postgres runs the DELETE of "WITH d AS (DELETE FROM t
// RETURNING *) SELECT …"): after a value, a closing parenthesis or an
// opening one, never after a keyword that takes the verb as its operand
// (ON DELETE, FOR UPDATE, DO UPDATE, WITH GRANT OPTION).

// kw is a keyword of the statement languages read here.
type kw uint8

const (
	kwNone kw = iota
	kwSelect
	kwInsert
	kwUpdate
	kwDelete
	kwDrop
	kwTruncate
	kwAlter
	kwCreate
	kwGrant
	kwRevoke
	kwDeny
	kwMerge
	kwReplace
	kwUpsert
	kwCopy
	kwLoad
	kwImport
	kwCall
	kwExec
	kwExecute
	kwDo
	kwPrepare
	kwVacuum
	kwReindex
	kwCluster
	kwRefresh
	kwComment
	kwLock
	kwAttach
	kwDetach
	kwRename
	kwOptimize
	kwRepair
	kwUnload
	kwKill
	kwPragma
	kwSet
	kwExplain
	kwAnalyze
	kwAnalyse
	kwMatch
	kwOptional
	kwUnwind
	kwRemove
	kwWhere
	kwFrom
	kwInto
	kwTrue
	kwFalse
	kwOff
	kwOr
	kwLimit
	kwReturning
	kwOrder
	kwOutput
	kwUser
	kwRole
	kwLogin
	kwGroup
	kwPolicy
	kwOwner
	kwPassword
	kwSession
	kwAuthorization
	kwProgram
	kwTable
	kwDatabase
	kwSchema
	kwIndex
	kwView
	kwFunction
	kwProcedure
	kwTrigger
	kwSequence
	kwColumn
	kwConstraint
	kwExtension
	kwCollection
	kwType
	// Keywords that take a verb as their operand, or a name.
	kwOn
	kwAfter
	kwBefore
	kwOf
	kwThen
	kwFor
	kwKey
	kwAs
	kwWith
	kwInstead
	kwCommit
	kwEach
	kwJoin
	kwBy
	kwAnd
	kwNot
	kwDistinct
	kwUsing
	kwIs
	kwIn
	kwLike
	kwWhen
	kwElse
	kwCase
	kwAll
	kwAny
	kwTo
	kwIf
	kwExists
	kwOnly
	kwRule
	kwLateral
	kwDescribe
	kwOption
	kwCount
)

var kwNames = [kwCount]string{
	kwSelect: "SELECT", kwInsert: "INSERT", kwUpdate: "UPDATE", kwDelete: "DELETE", kwDrop: "DROP",
	kwTruncate: "TRUNCATE", kwAlter: "ALTER", kwCreate: "CREATE", kwGrant: "GRANT", kwRevoke: "REVOKE",
	kwDeny: "DENY", kwMerge: "MERGE", kwReplace: "REPLACE", kwUpsert: "UPSERT", kwCopy: "COPY",
	kwLoad: "LOAD", kwImport: "IMPORT", kwCall: "CALL", kwExec: "EXEC", kwExecute: "EXECUTE", kwDo: "DO",
	kwPrepare: "PREPARE", kwVacuum: "VACUUM", kwReindex: "REINDEX", kwCluster: "CLUSTER",
	kwRefresh: "REFRESH", kwComment: "COMMENT", kwLock: "LOCK", kwAttach: "ATTACH", kwDetach: "DETACH",
	kwRename: "RENAME", kwOptimize: "OPTIMIZE", kwRepair: "REPAIR", kwUnload: "UNLOAD", kwKill: "KILL",
	kwPragma: "PRAGMA", kwSet: "SET", kwExplain: "EXPLAIN", kwAnalyze: "ANALYZE", kwAnalyse: "ANALYSE",
	kwMatch: "MATCH", kwOptional: "OPTIONAL", kwUnwind: "UNWIND", kwRemove: "REMOVE", kwWhere: "WHERE",
	kwFrom: "FROM", kwInto: "INTO", kwTrue: "TRUE", kwFalse: "FALSE", kwOff: "OFF", kwOr: "OR",
	kwLimit: "LIMIT", kwReturning: "RETURNING", kwOrder: "ORDER", kwOutput: "OUTPUT", kwUser: "USER",
	kwRole: "ROLE", kwLogin: "LOGIN", kwGroup: "GROUP", kwPolicy: "POLICY", kwOwner: "OWNER",
	kwPassword: "PASSWORD", kwSession: "SESSION", kwAuthorization: "AUTHORIZATION", kwProgram: "PROGRAM",
	kwTable: "TABLE", kwDatabase: "DATABASE", kwSchema: "SCHEMA", kwIndex: "INDEX", kwView: "VIEW",
	kwFunction: "FUNCTION", kwProcedure: "PROCEDURE", kwTrigger: "TRIGGER", kwSequence: "SEQUENCE",
	kwColumn: "COLUMN", kwConstraint: "CONSTRAINT", kwExtension: "EXTENSION", kwCollection: "COLLECTION",
	kwType: "TYPE", kwOn: "ON", kwAfter: "AFTER", kwBefore: "BEFORE", kwOf: "OF", kwThen: "THEN",
	kwFor: "FOR", kwKey: "KEY", kwAs: "AS", kwWith: "WITH", kwInstead: "INSTEAD", kwCommit: "COMMIT",
	kwEach: "EACH", kwJoin: "JOIN", kwBy: "BY", kwAnd: "AND", kwNot: "NOT", kwDistinct: "DISTINCT",
	kwUsing: "USING", kwIs: "IS", kwIn: "IN", kwLike: "LIKE", kwWhen: "WHEN", kwElse: "ELSE",
	kwCase: "CASE", kwAll: "ALL", kwAny: "ANY", kwTo: "TO", kwIf: "IF", kwExists: "EXISTS",
	kwOnly: "ONLY", kwRule: "RULE", kwLateral: "LATERAL", kwDescribe: "DESCRIBE", kwOption: "OPTION",
}

// keywords lists the keywords by length and first letter, so that a word
// is compared with the two or three keywords it could be: every word of
// every statement is looked up, and a hash of each costs more.
var keywords = func() (idx [maxKeyword + 1][26][]kw) {
	for k, name := range kwNames {
		if name != "" {
			idx[len(name)][name[0]-'A'] = append(idx[len(name)][name[0]-'A'], kw(k))
		}
	}
	return idx
}()

// maxKeyword is the length of the longest keyword.
const maxKeyword = len("AUTHORIZATION")

// operandOf are the keywords after which a verb is an operand or a name,
// not the start of a statement: ON DELETE CASCADE, FOR UPDATE, ON
// CONFLICT DO UPDATE, WITH GRANT OPTION, FROM delete_log … and the verbs
// themselves (GRANT SELECT, INSERT ON t).
var operandOf = func() [kwCount]bool {
	var b [kwCount]bool
	for _, k := range []kw{kwFrom, kwJoin, kwInto, kwTable, kwBy, kwAs, kwOn, kwOr, kwAnd, kwNot, kwAfter,
		kwBefore, kwOf, kwThen, kwDo, kwFor, kwKey, kwWith, kwInstead, kwCommit, kwEach, kwSelect, kwDistinct,
		kwWhere, kwSet, kwUsing, kwIs, kwIn, kwLike, kwWhen, kwElse, kwCase, kwReturning, kwAll, kwAny, kwTo,
		kwIf, kwExists, kwOnly, kwView, kwTrigger, kwRule, kwLateral, kwGrant, kwRevoke, kwDeny, kwExplain,
		kwDescribe, kwUpdate, kwInsert, kwDelete, kwDrop, kwCreate, kwAlter, kwExecute, kwExec, kwPrepare,
		kwOption} {
		b[k] = true
	}
	return b
}()

// accessObjects are what CREATE, ALTER and RENAME change when they change
// who may do what.
var accessObjects = [kwCount]bool{kwUser: true, kwRole: true, kwLogin: true, kwGroup: true, kwPolicy: true}

type tokKind uint8

const (
	tWord   tokKind = iota + 1 // a keyword or a name
	tQuoted                    // a quoted name: "x", `x`
	tString                    // a literal: '…', E'…', $tag$…$tag$
	tNumber
	tPunct
)

// sqlTok is one token of a statement.
type sqlTok struct {
	start, end int32 // the token in the text; a dollar-quoted literal's body
	depth      int32 // parentheses around the token
	kind       tokKind
	kw         kw
	punct      byte
	// escapes says a literal's backslashes escape (E'…', MySQL).
	escapes bool
	dollar  bool
}

// sqlScratch is the token buffer of a statement reading, reused across
// calls.
type sqlScratch struct {
	toks []sqlTok
	src  []byte
}

func (x *sqlScratch) release() {
	if cap(x.toks) > 1<<12 {
		x.toks = nil
	}
	x.src = nil
}

// verdict is what a statement does: a level (0 for nothing to raise) and
// a label naming the verb, never the statement's own text.
type verdict struct {
	level int
	label string
}

func (v *verdict) raise(w verdict) {
	if w.level > v.level {
		*v = w
	}
}

// Levels of statements: a drop, a truncation, a delete or update of every
// row and an alteration that drops lose data that no later statement
// brings back; a grant, a revocation or a change of who owns or may log
// in changes who can do anything at all; every other write changes data
// that a later write can change back.
const (
	destructive = l5
	access      = l5
	write       = l3
)

// maxNesting bounds the statements read inside literals (EXECUTE
// 'DROP …', DO $$ … $$).
const maxNesting = 2

// tautology reports a condition that holds for every row, given as a
// parameter's value (where: "1=1"), with or without its WHERE.
func (x *sqlScratch) tautology(src []byte) bool {
	x.src = src
	x.toks = tokenize(x.toks[:0], src, false)
	j := 0
	if len(x.toks) > 0 && x.toks[0].kw == kwWhere {
		j = 1
	}
	return x.alwaysTrue(x.toks, j, len(x.toks))
}

// classify returns the worst verdict of the statements in src.
func (x *sqlScratch) classify(src []byte) verdict {
	return x.classifyAt(src, 0)
}

func (x *sqlScratch) classifyAt(src []byte, nesting int) verdict {
	worst := x.pass(src, false, nesting)
	// Without a backslash, a double quote, a dollar or /*!, both
	// dialects read the same tokens: one reading is enough.
	if bytes.ContainsAny(src, "\\\"$") || bytes.Contains(src, []byte("/*!")) {
		worst.raise(x.pass(src, true, nesting))
	}
	return worst
}

// pass reads src in one dialect's way.
func (x *sqlScratch) pass(src []byte, mysql bool, nesting int) verdict {
	x.src = src
	x.toks = tokenize(x.toks[:0], src, mysql)
	var worst verdict
	start, n := 0, 0
	for i := 0; i <= len(x.toks); i++ {
		if i < len(x.toks) && !(x.toks[i].kind == tPunct && x.toks[i].punct == ';') {
			continue
		}
		if i > start {
			n++
			v := x.statement(x.toks[start:i], nesting)
			if v.level > 0 && n > 1 {
				v.label = "statement " + strconv.Itoa(n) + ": " + v.label
			}
			worst.raise(v)
		}
		start = i + 1
	}
	return worst
}

// statement judges one statement's tokens.
func (x *sqlScratch) statement(t []sqlTok, nesting int) verdict {
	f := 0
	for f < len(t) && t[f].kind == tPunct && t[f].punct == '(' {
		f++
	}
	if f == len(t) || t[f].kind != tWord {
		return verdict{}
	}
	if t[f].kw == kwExplain && !x.explainRuns(t, f) {
		return verdict{} // a plan, not a run: nothing it names happens
	}
	v := x.segment(t, f, nesting)
	for i := f + 1; i < len(t); i++ {
		if startsStatement(t, i) {
			v.raise(x.segment(t, i, nesting))
		}
	}
	return v
}

// explainRuns reports an EXPLAIN that runs what it explains: ANALYZE
// (Postgres, MySQL), unless turned off.
func (x *sqlScratch) explainRuns(t []sqlTok, f int) bool {
	for j := f + 1; j < len(t) && j < f+12; j++ {
		if t[j].kw == kwAnalyze || t[j].kw == kwAnalyse {
			if j+1 < len(t) && (t[j+1].kw == kwFalse || t[j+1].kw == kwOff || x.zero(t[j+1])) {
				return false
			}
			return true
		}
	}
	return false
}

// zero reports the number 0 (ANALYZE 0, WHERE 0).
func (x *sqlScratch) zero(t sqlTok) bool {
	return t.kind == tNumber && t.end-t.start == 1 && x.src[t.start] == '0'
}

// startsStatement reports whether the verb at i starts a statement inside
// another one's text (see the package comment on statements).
func startsStatement(t []sqlTok, i int) bool {
	w := t[i]
	if w.kind != tWord || i+1 >= len(t) {
		return false
	}
	switch prev := t[i-1]; prev.kind {
	case tPunct:
		if prev.punct != '(' && prev.punct != ')' {
			return false
		}
	case tWord:
		if operandOf[prev.kw] {
			return false
		}
	}
	next := t[i+1]
	named := next.kind == tWord || next.kind == tQuoted
	switch w.kw {
	case kwDrop, kwTruncate, kwAlter, kwCreate, kwGrant, kwRevoke, kwDeny:
		return named
	case kwDelete:
		return next.kw == kwFrom
	case kwInsert, kwMerge, kwReplace:
		return next.kw == kwInto
	case kwUpdate:
		if !named {
			return false
		}
		for j := i + 2; j < len(t) && j < i+8; j++ {
			if t[j].kw == kwSet && t[j].depth == w.depth {
				return true
			}
		}
	case kwExec, kwExecute:
		return named || next.kind == tString || (next.kind == tPunct && next.punct == '(')
	}
	return false
}

// segment judges the statement whose verb is at i.
func (x *sqlScratch) segment(t []sqlTok, i, nesting int) verdict {
	k := t[i].kw
	end := segmentEnd(t, i)
	name := kwNames[k]
	switch k {
	case kwDrop:
		return verdict{destructive, "DROP" + objectOf(t, i)}
	case kwTruncate:
		return verdict{destructive, "TRUNCATE"}
	case kwDelete, kwUpdate:
		if !x.conditioned(t, i, end) {
			return verdict{destructive, name + " without WHERE"}
		}
		return verdict{write, name + " with WHERE"}
	case kwAlter:
		if accessObjects[kwAt(t, i+1)] {
			return verdict{access, "ALTER" + objectOf(t, i)}
		}
		for j := i + 1; j < end; j++ {
			switch t[j].kw {
			case kwDrop:
				return verdict{destructive, "ALTER … DROP"}
			case kwOwner, kwGrant, kwRevoke, kwPassword:
				return verdict{access, "ALTER … " + kwNames[t[j].kw]}
			}
		}
		return verdict{write, "ALTER" + objectOf(t, i)}
	case kwCreate:
		// CREATE [OR REPLACE] [TEMPORARY …] ROLE: the object is among the
		// first few words, before any name.
		for j := i + 1; j < end && j < i+5; j++ {
			if accessObjects[kwAt(t, j)] {
				return verdict{access, "CREATE " + kwNames[kwAt(t, j)]}
			}
			if objectKeywords[kwAt(t, j)] {
				break
			}
		}
		return verdict{write, "CREATE" + objectOf(t, i)}
	case kwGrant, kwRevoke, kwDeny:
		return verdict{access, name}
	case kwRename:
		if accessObjects[kwAt(t, i+1)] {
			return verdict{access, "RENAME" + objectOf(t, i)}
		}
		return verdict{write, name}
	case kwSet:
		switch kwAt(t, i+1) {
		case kwRole, kwPassword:
			return verdict{access, "SET " + kwNames[kwAt(t, i+1)]}
		case kwSession:
			if kwAt(t, i+2) == kwAuthorization {
				return verdict{access, "SET SESSION AUTHORIZATION"}
			}
		}
		return verdict{}
	case kwCopy:
		for j := i + 1; j < end; j++ {
			if t[j].kw == kwProgram {
				return verdict{destructive, "COPY … PROGRAM"}
			}
		}
		return verdict{write, name}
	case kwInsert, kwReplace, kwUpsert, kwMerge, kwLoad, kwImport, kwVacuum, kwReindex, kwCluster, kwRefresh,
		kwComment, kwLock, kwAttach, kwDetach, kwOptimize, kwRepair, kwUnload, kwKill:
		return verdict{write, name}
	case kwCall, kwExec, kwExecute, kwDo, kwPrepare:
		v := verdict{write, name}
		if k == kwPrepare {
			v = verdict{}
		}
		// The code it runs may be a literal: EXECUTE 'DROP TABLE t',
		// DO $$ BEGIN … END $$, PREPARE s FROM 'DELETE FROM t'.
		for j := i + 1; j < end && nesting < maxNesting; j++ {
			if t[j].kind != tString {
				continue
			}
			var inner sqlScratch
			if w := inner.classifyAt(x.literal(t[j]), nesting+1); w.level > v.level {
				v = verdict{w.level, name + ": " + w.label}
			}
		}
		return v
	case kwPragma:
		for j := i + 1; j < end; j++ {
			if t[j].kind == tPunct && t[j].punct == '=' {
				return verdict{write, name}
			}
		}
	case kwSelect:
		for j := i + 1; j < end; j++ {
			if t[j].kw == kwInto && t[j].depth == t[i].depth {
				return verdict{write, "SELECT … INTO"}
			}
		}
	case kwMatch, kwOptional, kwUnwind:
		return cypher(t, i, end)
	}
	return verdict{}
}

// kwAt is the keyword at j, or none past the end.
func kwAt(t []sqlTok, j int) kw {
	if j < len(t) && t[j].kind == tWord {
		return t[j].kw
	}
	return kwNone
}

// objectKeywords name the kinds of objects statements act on.
var objectKeywords = func() [kwCount]bool {
	var b [kwCount]bool
	for _, k := range []kw{kwTable, kwDatabase, kwSchema, kwIndex, kwView, kwFunction, kwProcedure, kwTrigger,
		kwSequence, kwColumn, kwConstraint, kwExtension, kwCollection, kwType, kwUser, kwRole, kwLogin,
		kwGroup, kwPolicy} {
		b[k] = true
	}
	return b
}()

// objectOf names what the verb at i acts on when a keyword among the next
// few words names it ("DROP TABLE"); a name of the caller's is never
// shown.
func objectOf(t []sqlTok, i int) string {
	for j := i + 1; j < len(t) && j < i+4; j++ {
		k := kwAt(t, j)
		if objectKeywords[k] {
			return " " + kwNames[k]
		}
		if k == kwNone && t[j].kind != tWord {
			return ""
		}
	}
	return ""
}

// segmentEnd is where the statement whose verb is at i ends: at the
// parenthesis that closes around it, or where another statement starts
// (an ALTER's DROP is a clause of the ALTER, not a statement of its own).
func segmentEnd(t []sqlTok, i int) int {
	d := t[i].depth
	for j := i + 1; j < len(t); j++ {
		switch {
		case t[j].depth < d:
			return j
		case t[j].depth == d && t[j].kind == tWord && t[i].kw != kwAlter:
			if t[j].kw == kwSelect && (t[i].kw == kwDelete || t[i].kw == kwUpdate) {
				return j // T-SQL: DELETE FROM a SELECT … is two statements
			}
			if startsStatement(t, j) {
				return j
			}
		}
	}
	return len(t)
}

// conditioned reports whether the DELETE or UPDATE at i has a WHERE that
// can be false.
func (x *sqlScratch) conditioned(t []sqlTok, i, end int) bool {
	for j := i + 1; j < end; j++ {
		if t[j].kw == kwWhere && t[j].depth == t[i].depth {
			return !x.alwaysTrue(t, j+1, end)
		}
	}
	return false
}

// alwaysTrue reports a condition at j that holds for every row: TRUE, a
// non-zero number, or a literal equal to itself (1=1, 'a'='a'), alone or
// ORed with anything.
func (x *sqlScratch) alwaysTrue(t []sqlTok, j, end int) bool {
	literal := func(k int) bool { return k < end && (t[k].kind == tNumber || t[k].kind == tString) }
	n := 0
	switch {
	case j >= end:
		return false
	case t[j].kw == kwTrue:
		n = 1
	case literal(j) && j+2 < end && t[j+1].kind == tPunct && t[j+1].punct == '=' && literal(j+2) &&
		t[j+2].kind == t[j].kind && bytes.Equal(x.text(t[j]), x.text(t[j+2])):
		n = 3
	case t[j].kind == tNumber && !x.zero(t[j]):
		n = 1
	default:
		return false
	}
	if j+n == end {
		return true
	}
	after := t[j+n]
	return (after.kind == tPunct && after.punct == ')') || after.kw == kwOr || after.kw == kwLimit ||
		after.kw == kwReturning || after.kw == kwOrder || after.kw == kwOutput
}

func (x *sqlScratch) text(t sqlTok) []byte { return x.src[t.start:t.end] }

// literal returns the text a literal token holds, unescaped.
func (x *sqlScratch) literal(t sqlTok) []byte {
	raw := x.text(t)
	if t.dollar || len(raw) < 2 {
		return raw
	}
	q := raw[0]
	raw = raw[1:]
	if raw[len(raw)-1] == q {
		raw = raw[:len(raw)-1]
	}
	out := make([]byte, 0, len(raw))
	for k := 0; k < len(raw); k++ {
		c := raw[k]
		switch {
		case c == q && k+1 < len(raw) && raw[k+1] == q:
			k++
		case c == '\\' && t.escapes && k+1 < len(raw):
			k++
			c = raw[k]
		}
		out = append(out, c)
	}
	return out
}

// cypher judges a Cypher statement (MATCH … DELETE): a DELETE after a
// pattern with no WHERE and no property map removes every node the
// pattern matches; SET, REMOVE, CREATE and MERGE write.
func cypher(t []sqlTok, i, end int) verdict {
	var v verdict
	narrowed := false
	for j := i + 1; j < end; j++ {
		switch {
		case t[j].kind == tPunct && t[j].punct == '{', t[j].kw == kwWhere:
			narrowed = true
		case t[j].kw == kwDelete || t[j].kw == kwDetach:
			if !narrowed {
				return verdict{destructive, "DELETE without WHERE"}
			}
			v.raise(verdict{write, "DELETE with WHERE"})
		case t[j].kw == kwSet || t[j].kw == kwRemove || t[j].kw == kwCreate || t[j].kw == kwMerge:
			v.raise(verdict{write, kwNames[t[j].kw]})
		}
	}
	return v
}

// tokenize appends the tokens of src to dst, read as MySQL reads it or as
// standard SQL (and Postgres) does.
func tokenize(dst []sqlTok, src []byte, mysql bool) []sqlTok {
	depth := int32(0)
	emit := func(t sqlTok) {
		t.depth = depth
		dst = append(dst, t)
	}
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c <= ' ':
			i++
		case c == '-' && i+1 < n && src[i+1] == '-' && (i+2 == n || src[i+2] <= ' '):
			// MySQL needs a space after --; reading --x as code where
			// Postgres reads a comment can only find more, never less.
			if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = n
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			if mysql && i+2 < n && src[i+2] == '!' {
				// MySQL runs what /*!…*/ holds; read it as code.
				i += 3
				for i < n && isDigit(src[i]) {
					i++
				}
				continue
			}
			// Not nested: Postgres nests block comments, and ending at the
			// first */ reads more as code, never less.
			if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				i += j + 4
			} else {
				i = n
			}
		case c == '\'':
			escapes := mysql
			if k := len(dst) - 1; k >= 0 && dst[k].kind == tWord && dst[k].end == int32(i) &&
				dst[k].end-dst[k].start == 1 && (src[i-1] == 'E' || src[i-1] == 'e') {
				escapes = true // E'…': Postgres' escape string
				dst = dst[:k]
			}
			j := quoted(src, i, '\'', escapes)
			emit(sqlTok{kind: tString, start: int32(i), end: int32(j), escapes: escapes})
			i = j
		case c == '"':
			j := quoted(src, i, '"', mysql)
			kind := tQuoted
			if mysql {
				kind = tString // MySQL's "…" is a string
			}
			emit(sqlTok{kind: kind, start: int32(i), end: int32(j), escapes: mysql})
			i = j
		case c == '`':
			j := quoted(src, i, '`', false)
			emit(sqlTok{kind: tQuoted, start: int32(i), end: int32(j)})
			i = j
		case c == '$' && !mysql && dollarTag(src, i) > 0:
			tag := src[i : i+dollarTag(src, i)]
			body := i + len(tag)
			end, next := n, n
			if j := bytes.Index(src[body:], tag); j >= 0 {
				end, next = body+j, body+j+len(tag)
			}
			emit(sqlTok{kind: tString, start: int32(body), end: int32(end), dollar: true})
			i = next
		case isWordStart(c):
			j := i + 1
			for j < n && (isWordStart(src[j]) || isDigit(src[j]) || src[j] == '$') {
				j++
			}
			emit(sqlTok{kind: tWord, start: int32(i), end: int32(j), kw: keywordOf(src[i:j])})
			i = j
		case isDigit(c) || (c == '.' && i+1 < n && isDigit(src[i+1])) || c == '$':
			j := i + 1
			for j < n && (isDigit(src[j]) || isLower(src[j]) || isUpper(src[j]) || src[j] == '.' || src[j] == '_') {
				j++
			}
			emit(sqlTok{kind: tNumber, start: int32(i), end: int32(j)})
			i = j
		case c == '(':
			emit(sqlTok{kind: tPunct, punct: c, start: int32(i), end: int32(i + 1)})
			depth++
			i++
		case c == ')':
			if depth > 0 {
				depth--
			}
			emit(sqlTok{kind: tPunct, punct: c, start: int32(i), end: int32(i + 1)})
			i++
		case c == ';':
			depth = 0
			emit(sqlTok{kind: tPunct, punct: c, start: int32(i), end: int32(i + 1)})
			i++
		default:
			emit(sqlTok{kind: tPunct, punct: c, start: int32(i), end: int32(i + 1)})
			i++
		}
	}
	return dst
}

func isWordStart(c byte) bool {
	return isLower(c) || isUpper(c) || c == '_' || c == '@' || c == '#' || c >= 0x80
}

// quoted returns the end of the quoted run that starts at i: a doubled
// quote is one quote, and with escapes a backslash escapes what follows.
// An unterminated run ends the text.
func quoted(src []byte, i int, q byte, escapes bool) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			if j+1 < len(src) && src[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(src)
}

// dollarTag returns the length of the $tag$ that opens a Postgres
// dollar-quoted literal at i, or 0.
func dollarTag(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		switch {
		case c == '$':
			return j - i + 1
		case isLower(c) || isUpper(c) || c == '_' || c >= 0x80 || (isDigit(c) && j > i+1):
		default:
			return 0
		}
	}
	return 0
}

// keywordOf returns the keyword a word is, case-insensitively.
func keywordOf(w []byte) kw {
	if len(w) < 2 || len(w) > maxKeyword {
		return kwNone
	}
	first := w[0] | 0x20 // lower case, for letters
	if !isLower(first) {
		return kwNone
	}
next:
	for _, k := range keywords[len(w)][first-'a'] {
		name := kwNames[k]
		for i := 1; i < len(w); i++ {
			if w[i]&^0x20 != name[i] || !(isLower(w[i]) || isUpper(w[i])) {
				continue next
			}
		}
		return k
	}
	return kwNone
}
