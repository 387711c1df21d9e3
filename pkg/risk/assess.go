package risk

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

// Assess judges one tool. The judgement is a sequence of named stages,
// each a function of its own with a test of its own:
//
//  1. readSignals: what the name, title, description and schema say.
//  2. inferAction: what the tool does — its action and category;
//     applyDomain: what the catalogue as a whole says of it.
//  3. blastRadius: how far one call reaches.
//  4. effectsOf: whether the effect can be undone, and its side effects.
//  5. levelOfAction: the ladder from what the tool does, with the floors
//     of execution, broad destruction and irreversible verbs.
//  6. applyDeclarations: the server's declared hints and SEP-2793 fields,
//     which raise and never lower.
//  7. Reach.widen: how far the server's own identity reaches.
//  8. raiseForDoubt: missing or vague metadata, and the server's word
//     that the tool is harmless, raise.
//  9. raiseForBroadChange: a change whose reach is wider than a namespace.
//  10. applyFindings: the poisoning scan's findings floor or raise.
//  11. applyPosture: the server's posture floors or raises; a read of a
//     trusted catalogue comes down to L1.
//  12. approvalAndTrust: the approval recommendation and trust level of
//     the level so far, with the declarations of both.
//  13. gradeRisk: SEP-2793's riskLevel, graded on what the tool does; the
//     level rises to its band when it is high or critical.
//
// The order is part of the judgement: raises of one band count from the
// level the stages before left, and the reasons are listed in the order
// they were found. A tool whose description offers to read or to change
// ("Get or set …") runs the stages twice, once each way, and the graver
// judgement is kept.
func Assess(in Input) Assessment {
	s := readSignals(in.Tool)
	if !s.readOrChange {
		return assessSignals(in, s)
	}
	// A description that offers to read or to change ("Get or set …")
	// is judged both ways and the graver kept, the change on a tie; its
	// riskLevel and blast radius are the graver of the two as well: the
	// change must not hide what the read would reveal ("List or add SSH
	// keys" reads keys as well as adding one).
	change := assessSignals(in, s)
	read := assessSignals(in, readSignalsOf(in.Tool, true))
	kept, other := change, read
	if read.Level > change.Level {
		kept, other = read, change
	}
	if severityRank[other.SEP.RiskLevel] > severityRank[kept.SEP.RiskLevel] {
		kept.SEP.RiskLevel = other.SEP.RiskLevel
		kept.Reasons = append(kept.Reasons, "riskLevel "+other.SEP.RiskLevel+": as graded the other way")
	}
	if blastOrder[other.SEP.BlastRadius] > blastOrder[kept.SEP.BlastRadius] {
		kept.SEP.BlastRadius = other.SEP.BlastRadius
		kept.Reasons = append(kept.Reasons, "blast radius "+other.SEP.BlastRadius+": as far as it reaches the other way")
	}
	return kept
}

// assessSignals runs the stages after readSignals.
func assessSignals(in Input, s signals) Assessment {
	t := in.Tool
	// Nearly every judgement gives three or four reasons (the blast radius
	// and riskLevel always among them): made once, the slice is not grown
	// three times.
	j := judgement{reasons: make([]string, 0, 4)}

	v := inferAction(&s, &j)
	var alone signals
	if in.Domain != 0 {
		alone = s // the domain only raises: the blast radius is held to the tool's alone
	}
	applyDomain(in.Domain, &s, &v, &j)
	blast, blastWhy := blastRadius(s, v.judged)
	if in.Domain != 0 {
		if b, why := blastRadius(alone, v.judged); blastOrder[b] > blastOrder[blast] {
			blast, blastWhy = b, why
		}
	}
	if s.quotedOptions && v.ownAct >= actMutate && v.ownAct != v.judged {
		// An option read from the description's quotes, worse than the
		// tool's own words, decides its category and riskLevel; the
		// reach of what the tool does on its own ("db_admin" changing an
		// admin: every namespace) still holds, so that reading the quotes
		// never narrows what the engine found without them.
		if b, why := blastRadius(s, v.ownAct); blastOrder[b] > blastOrder[blast] {
			blast, blastWhy = b, why
		}
	}
	if s.slashOptions && v.ownAct != v.judged {
		// The same for operations the description lists: the reach of the
		// verb it gave the tool, a listing's included, still holds.
		if b, why := blastRadius(s, v.ownAct); blastOrder[b] > blastOrder[blast] {
			blast, blastWhy = b, why
		}
	}
	j.note("blast radius " + blast + ": " + blastWhy)
	// The side effects are a set of their own, not a field of vocab: every
	// stage only adds to it, and so it stays on this function's stack.
	sideEffects := map[string]bool{}
	vocab := vocabulary{category: v.category, blast: blast}
	vocab.reversibility = effectsOf(&s, v.act, sideEffects)
	levelOfAction(&s, v, &j)

	declared := declaredSEP(t)
	applyDeclarations(t, declared, v.act, &vocab, sideEffects, &j)

	// A tool reaches as far as its server's identity may.
	var reachWhy []string
	vocab.blast, reachWhy = in.Server.Reach.widen(v.act, vocab.blast, sideEffects)
	j.reasons = append(j.reasons, reachWhy...)

	raiseForDoubt(t, &s, v, &j)
	raiseForBroadChange(v.act, vocab.blast, &j)
	applyFindings(in.Findings, &j)
	applyPosture(in.Server, v.act, &j)
	approval := approvalAndTrust(declared, &j)

	sev, sevWhy := gradeRisk(&s, v, vocab.blast, declared)
	j.note("riskLevel " + sev + ": " + sevWhy)
	if r, _ := levelOfRisk(sev); r >= L4 && r > j.level {
		j.raise(r, "riskLevel "+sev+": "+sevWhy)
	}

	a := Assessment{
		Level:          j.level,
		EffectiveLevel: j.level,
		Floors:         j.floors,
		Reasons:        j.reasons,
		Disagreements:  j.disagreements,
	}
	if len(in.Findings) > 0 {
		a.Findings = in.Findings
	}
	// The approval gate earns one band, unless the definition carries a
	// finding: a poisoned tool keeps its whole level however it is gated.
	if in.ApprovalGated && len(in.Findings) == 0 && j.level > L0 {
		a.EffectiveLevel = j.level - 1
	}
	a.SEP = SEP{
		RiskLevel:              sev,
		Category:               vocab.category,
		BlastRadius:            vocab.blast,
		Reversibility:          vocab.reversibility,
		SideEffects:            tooldef.SortedKeys(sideEffects),
		ApprovalRecommendation: approval,
		MinTrustLevel:          min(max(trustFor(j.level), declared.MinTrustLevel), 5),
	}
	return a
}

// judgement is the ladder as the stages climb it: the level, the reasons
// and floors in the order they were found, and the declarations that claim
// less than was inferred.
type judgement struct {
	level         Level
	reasons       []string
	floors        []string
	disagreements []string
}

// raise lifts the level to l, and records why even when the level is
// already higher: every signal found is a reason a reviewer reads.
func (j *judgement) raise(l Level, why string) {
	if l > j.level {
		j.level = l
	}
	j.reasons = append(j.reasons, l.String()+": "+why)
}

// raiseOne lifts the level one band above where it stands, to L5 at most:
// a signal that makes any tool worse, whatever it does.
func (j *judgement) raiseOne(why string) {
	j.raise(min(j.level+1, L5), why)
}

// floor short-circuits to L5 on a known-dangerous signal.
func (j *judgement) floor(why string) {
	j.floors = append(j.floors, why)
	j.level = L5
}

// note records a reason that moves no level by itself.
func (j *judgement) note(why string) {
	j.reasons = append(j.reasons, why)
}

// disagree records a declaration that claims less than was inferred; the
// higher value stands.
func (j *judgement) disagree(field, declaredValue, inferred string) {
	j.disagreements = append(j.disagreements, fmt.Sprintf("declared %s %s, inferred %s: the higher stands", field, declaredValue, inferred))
}

// effectsOf is the reversibility and side-effects stage. A read undoes
// itself ("auto"), but one of secrets exfiltrates data and a leaked secret
// cannot be recalled ("none"); a change is undone by hand ("manual") and
// may take a service down, change who may do what or cost money, unless it
// moves money or overwrites what was there ("none") or commits nothing at
// all ("auto"); a send, an execution and any removal cannot be undone
// ("none"), save session state that signing in again rebuilds. A flag that widens what one call does, or a description that
// calls the effect permanent, makes any change irreversible. Declarations
// and the server's reach add to this later; nothing here is declared.
//
// It adds the side effects to sideEffects and returns the reversibility.
func effectsOf(s *signals, act action, sideEffects map[string]bool) string {
	reversibility := "auto"
	switch act {
	case actRead, actObserve:
		if s.sensitive != "" || s.revealFlag != "" || s.saysSecrets() {
			// A leaked secret cannot be recalled: the rubric's "none".
			sideEffects["data_exfiltration"] = true
			reversibility = "none"
		}
	case actMutate, actSend:
		reversibility = "manual"
		if act == actSend {
			reversibility = "none"
			sideEffects["external_notification"] = true
		}
		if takesServiceDown(s.verb) || entersMaintenance(s) {
			sideEffects["downtime"] = true
		}
		if s.privilege != "" || s.optionPrivilege != "" {
			sideEffects["privilege_change"] = true
		}
		if s.money != "" {
			sideEffects["cost"] = true
		}
		switch {
		case act == actSend:
		case s.money != "" && movesMoneyAs(s.money) && s.money != paymentProvider:
			// A charged card or a refund paid out is not taken back by
			// another call of the tool: the rubric's "none". (A provider's
			// keys set are set back by another call; the payments taken
			// meanwhile are what the level is for.)
			reversibility = "none"
		case overwrites(*s) || s.overwriteText || ((selector(*s) != "" || s.filterParam != "") && !additiveVerbs[s.verb]):
			// What was there before, in one item or in every record a
			// condition matches, is gone: no call brings it back. (What a
			// filter adds to, it changes nothing of.)
			reversibility = "none"
			sideEffects["state_loss"] = true
		case (containsAnyMap(s.tokens, pointerOnly) || lightVerbs[s.verb] || (refreshVerbs[s.verb] && containsAnyMap(s.objects, metadataWords))) &&
			s.privilege == "" && s.optionPrivilege == "" && s.money == "" && !takesServiceDown(s.verb):
			// A pointer moved, a view changed or cached metadata read
			// again commits nothing to undo.
			reversibility = "auto"
		}
	case actExec, actDelete, actDestroy:
		reversibility = "none"
		sideEffects["state_loss"] = true
		if h := singular(headNoun(s.objects)); act != actExec && ephemeralNouns[h] && h != "untracked" && h != "stash" && h != "storage" {
			// Session state is rebuilt by signing in again or redoing the
			// work: undone by hand, not lost. Untracked files, a stash and
			// stored objects are work that is gone.
			reversibility = "manual"
		}
	}
	if act >= actMutate {
		for _, f := range s.flags {
			if widensCall(f) {
				reversibility = "none"
				sideEffects["state_loss"] = true
			}
		}
		if s.irreversibleText {
			reversibility = "none"
		}
	}
	return reversibility
}

// levelOfAction is the ladder stage of what the tool does: a utility is L1,
// a read L2 (L4 when it may return secrets), a change L3 (L4 when it sends
// outside the system or can take a service down, L5 when it changes who may
// do what or moves money), a delete L4. Execution and broad destruction
// floor at L5, as does an irreversible verb anywhere in the name; options
// that delete or execute raise the level though they do not name the
// category; flags that widen a call and a description that calls the
// effect permanent raise a change one band each.
func levelOfAction(s *signals, v actionVerdict, j *judgement) {
	switch v.act {
	case actUtility:
		j.raise(L1, "local computation")
	case actRead, actObserve:
		// A read is L2 on its own word; only a trusted catalogue makes it
		// L1 (applyPosture). A declared readOnlyHint does not:
		// declarations never lower a judgement.
		j.raise(L2, v.category+" only")
		if s.sensitive != "" {
			j.raise(L4, fmt.Sprintf("reads %s, which may hold secrets", s.sensitive))
		}
		if s.revealFlag != "" {
			j.raise(L4, fmt.Sprintf("flag %q reveals secret values", s.revealFlag))
		}
	case actMutate, actSend:
		j.raise(L3, "changes state")
		if v.act == actSend {
			j.raise(L4, fmt.Sprintf("%q has effects outside the system that cannot be recalled", s.verb))
		}
		if entersMaintenance(s) {
			j.raise(L4, "maintenance mode turns a service's users away")
		}
		if takesServiceDown(s.verb) {
			j.raise(L4, fmt.Sprintf("%q can take a service down", s.verb))
		}
		if s.privilege != "" {
			j.raise(L5, fmt.Sprintf("changes %s: who may do what", s.privilege))
		}
		if s.optionPrivilege != "" {
			j.raise(L5, fmt.Sprintf("an option changes %s: who may do what", s.optionPrivilege))
		}
		if s.money != "" {
			if movesMoneyAs(s.money) {
				j.raise(L5, movingMoney(s.money))
			} else {
				j.raise(L4, fmt.Sprintf("touches billing (%s)", s.money))
			}
		}
	case actExec:
		j.floor("runs arbitrary code, commands or queries")
	case actDelete:
		j.raise(L4, "deletes "+strings.Join(s.objects, " "))
	case actDestroy:
		j.floor("removes a broad scope: " + strings.TrimSpace(s.verb+" "+strings.Join(s.objects, " ")))
	}
	switch {
	case v.optionAct >= actDestroy:
		j.raise(L5, "an option of the tool removes a broad scope")
	case v.optionAct >= actDelete:
		j.raise(L4, "an option of the tool deletes")
	case v.optionAct == actExec:
		j.raise(L5, "an option of the tool executes")
	}
	if s.actSource == "name" && irreversibleVerbs[s.verb] {
		j.floor(fmt.Sprintf("irreversible verb %q in the name", s.verb))
	}
	if v.act >= actMutate {
		for _, f := range s.flags {
			if widensCall(f) {
				j.raiseOne(fmt.Sprintf("flag %q widens what one call can do", f))
			}
		}
		if s.irreversibleText {
			j.raiseOne("the description says the effect is permanent")
		}
	}
}

// takesServiceDown says a verb changes a running service in a way that can
// take it down.
func takesServiceDown(verb string) bool {
	switch verb {
	case "deploy", "install", "upgrade", "promote", "scale", "restart", "rollout", "merge", "maintenance", "apply", "reset", "rollback":
		return true
	}
	return false
}

// widensCall says a flag makes one call do more than its name says, or
// skips a safeguard: a change with it cannot be undone.
func widensCall(flag string) bool {
	switch flag {
	case "force", "recursive", "cascade", "prune", "purge", "hard", "overwrite", "all", "wipe", "truncate", "dangerous", "unsafe", "auto-approve", "auto-confirm", "skip-verification", "insecure":
		return true
	}
	return false
}

// vocabulary is the SEP-2793 judgement while the stages settle it (the
// side effects are a set beside it).
type vocabulary struct {
	category      string
	blast         string
	reversibility string
}

// applyDeclarations is the declarations stage: the server's MCP hints and
// SEP-2793 fields raise the judgement and never lower it, because a
// malicious server can declare anything. A declared destructive change is
// floored whatever else it declares (the seed lifts that floor for an
// idempotent tool; here no declaration lifts a floor); a declared
// destructive read is raised to L3; a declared riskLevel raises the level
// to its band; a declared category, blast radius or reversibility replaces
// a milder inferred one, and declared side effects are added to
// sideEffects. Every declaration milder than the inference is recorded as a
// disagreement.
func applyDeclarations(t *tooldef.Tool, d SEP, act action, vocab *vocabulary, sideEffects map[string]bool, j *judgement) {
	if t.Declared["destructiveHint"] && t.Hint("destructiveHint") {
		if act >= actMutate {
			j.floor("declared destructive")
		} else {
			j.raise(L3, "the server declares the tool destructive")
			j.disagreements = append(j.disagreements, fmt.Sprintf("declared destructiveHint true, but the tool reads as %s", vocab.category))
		}
	}
	if t.Hint("readOnlyHint") && act >= actMutate {
		j.disagreements = append(j.disagreements, fmt.Sprintf("declared readOnlyHint true, but the tool reads as %s: ignored", vocab.category))
	}
	if r, ok := levelOfRisk(d.RiskLevel); ok && r > j.level {
		j.raise(r, "the server declares riskLevel "+d.RiskLevel)
	}
	if rank, known := categoryRank[d.Category]; known {
		switch {
		case rank > categoryRank[vocab.category]:
			j.note("the server declares category " + d.Category)
			vocab.category = d.Category
		case rank < categoryRank[vocab.category]:
			j.disagree("category", d.Category, vocab.category)
		}
	}
	if rank, known := blastOrder[d.BlastRadius]; known {
		if rank < blastOrder[vocab.blast] {
			j.disagree("blastRadius", d.BlastRadius, vocab.blast)
		}
		vocab.blast = widerBlast(vocab.blast, d.BlastRadius)
	}
	if rank, known := reversibilityRank[d.Reversibility]; known {
		switch {
		case rank > reversibilityRank[vocab.reversibility]:
			vocab.reversibility = d.Reversibility
		case rank < reversibilityRank[vocab.reversibility]:
			j.disagree("reversibility", d.Reversibility, vocab.reversibility)
		}
	}
	for _, e := range d.SideEffects {
		sideEffects[e] = true
	}
}

// raiseForDoubt is the stage of what is not proven. A description missing
// or too short to review raises one band; a tool that names no verb
// anywhere is raised to L3 when its schema reads as a read and to L4
// otherwise. The server's word that a tool changes nothing, only simulates,
// or (for a tool named to execute) only reads a stored query keeps the
// level where the name's action puts it, however the category reads.
func raiseForDoubt(t *tooldef.Tool, s *signals, v actionVerdict, j *judgement) {
	if utf8.RuneCountInString(strings.TrimSpace(t.Description)) < 20 {
		j.raiseOne("the description is missing or too short to review")
	}
	switch {
	case s.act == actNone && v.readShaped:
		j.raise(L3, "only its schema says what the tool does")
	case s.act == actNone:
		j.raise(L4, "nothing says what the tool does")
	}
	if v.readOnlyClaim != "" {
		j.raise(L3, "only the description says it changes nothing")
	}
	if s.clientRequest {
		// The rule that reads it as the client's own request reads words
		// the server chose: the level stays where a change's is.
		j.raise(L3, "only its words say it merely asks the client")
	}
	switch v.simulatedFrom {
	case actMutate:
		j.raise(L3, "only the description says it is a simulation")
	case actRead, actObserve:
		j.raise(L2, "only the description says it is a simulation")
	}
	if v.savedRead && v.act == actRead {
		j.raise(L3, "the name says it executes; only its object says it reads")
	}
}

// raiseForBroadChange raises to L4 a change (short of a destruction, which
// is floored already) whose reach, as inferred, declared or widened by the
// server's identity, is a cluster, an organisation or the world.
func raiseForBroadChange(act action, blast string, j *judgement) {
	if blast == "cluster" || blast == "organization" || blast == "global" {
		if act >= actMutate && act < actDestroy {
			j.raise(L4, "a mutation whose reach is "+blast)
		}
	}
}

// applyFindings is the poisoning stage. A definition that names a
// sensitive path is raised one band, however many of its fields name one;
// any other finding floors the tool (the first is the floor's reason).
func applyFindings(findings []Finding, j *judgement) {
	raisedForPath := false
	for _, f := range findings {
		if f.Signal == "sensitive-path" {
			// One level however many fields name one: the signal says
			// the definition mentions such a file, not how often.
			if !raisedForPath {
				j.raiseOne("the definition names a sensitive path")
				raisedForPath = true
			}
			continue
		}
		j.floor(fmt.Sprintf("poisoning: %s in %s", f.Signal, f.Field))
		break
	}
}

// applyPosture is the server stage. A floored server floors every tool; a
// server whose posture is L4 or worse raises a state-changing tool one
// band. A read left at L2 by every stage before, from a server judged L1
// or better for a reason (a catalogue trusted as Vendor or Internal), comes
// down to L1: the only judgement that lowers, and only for a reason the
// cluster's administrators gave, never one the server declared.
func applyPosture(server ServerAssessment, act action, j *judgement) {
	if server.Floor != "" {
		j.floor("server: " + server.Floor)
	} else if server.Level >= L4 && act >= actMutate {
		j.raiseOne("a state-changing tool on a server whose posture is " + server.Level.String())
	}
	if j.level == L2 && (act == actRead || act == actObserve) && server.Level <= L1 && len(server.Reasons) > 0 && len(j.floors) == 0 {
		j.level = L1
		j.note("L1: a read of a catalogue trusted as Vendor or Internal")
	}
}

// approvalAndTrust is the approval and trust stage: the approval
// recommendation of the level the rules and floors reached (none to L2,
// single to L4, multi at L5), raised by a stricter declaration, and the
// declarations of riskLevel, minTrustLevel and approval that claim less
// than that level, recorded as disagreements. A declared minimum trust
// above the level's is noted; Assess takes the higher of the two. It
// returns the approval recommendation.
//
// The recommendation is read before the riskLevel stage may raise the
// level to a severity band; the minimum trust level is read after it.
func approvalAndTrust(d SEP, j *judgement) string {
	if d.MinTrustLevel > 0 && d.MinTrustLevel > trustFor(j.level) {
		j.note(fmt.Sprintf("the server declares minTrustLevel %d", d.MinTrustLevel))
	}
	// Declarations below the final judgement are reported, never applied.
	if r, ok := levelOfRisk(d.RiskLevel); ok && r < j.level && RiskLevelOf(j.level) != d.RiskLevel {
		j.disagree("riskLevel", d.RiskLevel, RiskLevelOf(j.level))
	}
	if d.MinTrustLevel > 0 && d.MinTrustLevel < trustFor(j.level) {
		j.disagree("minTrustLevel", fmt.Sprint(d.MinTrustLevel), fmt.Sprint(trustFor(j.level)))
	}
	approval := approvalFor(j.level)
	if rank, known := approvalRank[d.ApprovalRecommendation]; known {
		switch {
		case rank > approvalRank[approval]:
			approval = d.ApprovalRecommendation
		case rank < approvalRank[approval]:
			j.disagree("approvalRecommendation", d.ApprovalRecommendation, approval)
		}
	}
	return approval
}

// gradeRisk is the riskLevel stage: SEP-2793's riskLevel says what the
// tool does (severity), graded on the judged action. A tool whose worst
// operation deletes what the call names is graded high, not critical,
// unless that operation removes a whole container or changes who may do
// what; the worst operation never hides what the tool does on its own,
// and a declared riskLevel above the grade stands. Assess raises the level
// to the grade's band when it is high or critical, so a tool judged grave
// is never shown as if it were not; the level's floors are never lowered
// by a milder grade.
func gradeRisk(s *signals, v actionVerdict, blast string, d SEP) (string, string) {
	sev, why := severity(*s, v.judged, blast)
	if v.judged != v.act && (v.judged == actDelete || v.judged == actDestroy) && sev == "critical" && s.optionPrivilege == "" && s.optionContainer == "" && managedContainer(s) == "" {
		// An operation that deletes what the call names is the delete of
		// items; one that removes a whole container (a table, a database)
		// is broad destruction and stays critical.
		sev, why = "high", "one of its operations removes what it names"
	}
	if v.judged == actDelete && sev == "high" && len(s.optionMutations) > 0 && s.privilege == "" && managedContainer(s) != "" {
		// "application" with an action "delete": the operation names no
		// object of its own, so it removes what the tool manages, a whole
		// container with everything in it.
		sev, why = "critical", "an operation removes a whole "+managedContainer(s)+" with everything in it"
	}
	if v.optionAct >= actDestroy && v.judged < actDestroy && v.act >= actMutate {
		// riskLevel is the worst plausible outcome of a call: a mode that
		// removes a broad scope ("run_type": "destroy") is one call away
		// whatever the tool's name says it usually does. A read's options
		// only filter what it returns ("action": "destroy" of an audit
		// log's events).
		if opt, optWhy := severity(*s, actDestroy, blast); severityRank[opt] > severityRank[sev] {
			sev, why = opt, "an option: "+optWhy
		}
	}
	if v.judged != v.act {
		// The worst operation never hides what the tool does on its own:
		// an execution stays critical whatever its options remove.
		if own, ownWhy := severity(*s, v.act, blast); severityRank[own] > severityRank[sev] {
			sev, why = own, ownWhy
		}
	}
	if _, ok := levelOfRisk(d.RiskLevel); ok && severityRank[d.RiskLevel] > severityRank[sev] {
		sev, why = d.RiskLevel, "the server declares riskLevel "+d.RiskLevel
	}
	return sev, why
}

var categoryRank = map[string]int{"read": 1, "observe": 1, "utility": 1, "mutate": 2, "delete": 3, "destroy": 4}
var reversibilityRank = map[string]int{"auto": 0, "manual": 1, "none": 2}
var approvalRank = map[string]int{"none": 0, "single": 1, "multi": 2}

// approvalFor is the approval recommendation of a level: none up to L2,
// one human from L3, distinct humans at L5.
func approvalFor(l Level) string {
	switch {
	case l >= L5:
		return "multi"
	case l >= L3:
		return "single"
	}
	return "none"
}

// trustFor is the minimum trust level of a level: 1 up to L1, else the
// level's number.
func trustFor(l Level) int {
	switch {
	case l <= L1:
		return 1
	case l == L2:
		return 2
	}
	return int(l)
}

// declaredSEP reads SEP-2793 fields a server put in its annotations.
func declaredSEP(t *tooldef.Tool) SEP {
	var d SEP
	str := t.Annotations.GetString
	d.RiskLevel, d.Category, d.BlastRadius, d.Reversibility, d.ApprovalRecommendation =
		str("riskLevel"), str("category"), str("blastRadius"), str("reversibility"), str("approvalRecommendation")
	if se, ok := t.Annotations.Get("sideEffects").([]any); ok {
		for _, e := range se {
			if s, ok := e.(string); ok && len(s) <= 64 {
				d.SideEffects = append(d.SideEffects, s)
			}
		}
	}
	if n, ok := t.Annotations.Get("minTrustLevel").(json.Number); ok {
		if i, err := n.Int64(); err == nil && i >= 1 && i <= 5 {
			d.MinTrustLevel = int(i)
		}
	}
	return d
}

// managedContainer is the container a multi-operation tool is named for
// ("application", "manage_projects"), "" when its name names none.
func managedContainer(s *signals) string {
	head := headNoun(s.objects)
	if head == "application" {
		head = "app"
	}
	if scopeWords[head] != "" && head != "table" && head != "schema" {
		return head
	}
	return ""
}
