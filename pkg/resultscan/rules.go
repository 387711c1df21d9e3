package resultscan

// judge decides the sentence in c.toks, which ended at end. Most
// sentences bring together no two kinds of cue, and cost one mask.
func (c *pass) judge(end int) {
	var all, open role
	var fl tokFlag
	for _, t := range c.toks {
		all |= t.roles
		fl |= t.fl
		if t.fl&fQuoted == 0 {
			open |= t.roles
		}
	}
	if all&cueRoles == 0 && fl&(fAgentTool|fHidden) == 0 {
		return
	}
	start := c.toks[0].start
	inMarker := c.markerEnd > start
	hidden := fl&fHidden != 0
	directive := c.directive()
	addressed := c.addressed()
	mention := all&rMention != 0
	// Words in quotes are a mention (an advisory quoting an attack) unless
	// the sentence says the same outside them.
	quotedOnly := func(r role) bool { return all&r != 0 && open&r == 0 }

	var h hit
	h.start, h.end = start, end
	emit := func(sig signal, strong bool) {
		if mention && !hidden && c.depth == 0 {
			if !strong {
				return
			}
			strong = false
		}
		if hidden || c.depth > 0 {
			strong = true
		}
		h.sig, h.strong = sig, strong
		if hidden && sig == sigModel {
			h.sig = sigHidden
		}
		c.hits = append(c.hits, h)
	}
	has := func(r role) bool { return all&r != 0 }
	modelObject := has(rSecret|rConvo|rTool|rRules|rUser) || fl&fAgentTool != 0

	// An override of earlier instructions.
	if ov := c.first(rOverride); ov >= 0 && has(rRules) && has(rPrior|rYou|rAddr|rAuth) {
		t := c.toks[ov]
		if t.fl&fNegated == 0 {
			strong := t.fl&fPermit == 0 && !quotedOnly(rOverride)
			emit(sigModel, strong)
		}
	}
	// Concealment from the user.
	if c.negatedTell() && has(rUser) {
		emit(sigModel, addressed || inMarker || directive && modelObject && has(rAct))
	}
	// A directive to the assistant.
	if addressed && (directive || has(rUrgent|rModal) && has(rAct|rFollow)) {
		emit(sigModel, !quotedOnly(rAddr))
	}
	// A directive under a role marker (SYSTEM:, <|im_start|>, <IMPORTANT>).
	if inMarker && directive && !addressed {
		emit(sigModel, modelObject && !c.markerWeak)
	}
	// A directive naming one of the agent's tools.
	if fl&fAgentTool != 0 && (directive || has(rUrgent|rModal)) {
		emit(sigTool, addressed || inMarker || has(rUrgent) || hidden)
	} else if fl&fIdent != 0 && has(rTool) && directive && (addressed || inMarker) {
		emit(sigTool, false)
	}
	// A directive to read, show or send a credential.
	if has(rSecret) && directive && has(rRead|rSend|rAppend) {
		dest := fl&fDest != 0 && has(rSend|rAppend)
		emit(sigSensitive, addressed || inMarker || dest || has(rUrgent) && has(rYou))
	}
	// A directive to move the conversation or a secret to a destination.
	if has(rSend|rAppend) && has(rConvo|rSecret) && (fl&fDest != 0 || has(rURL)) && (directive || addressed) {
		emit(sigExfil, true)
	}
	// Persistence into memory.
	if has(rMemory) && (addressed || has(rYou) || inMarker) && (directive || has(rRules)) && has(rUrgent|rPrior|rRules|rAct) {
		emit(sigModel, false)
	}
	// Decode-and-follow.
	if has(rDecode) && (has(rFollow) || directive) && (addressed || has(rYou) || inMarker) {
		emit(sigModel, false)
	}
}

// cueRoles are the roles without which a sentence asks nothing of a
// model.
const cueRoles = rAddr | rOverride | rTell | rSecret | rConvo | rTool | rMemory | rDecode | rURL | rAuth

func (c *pass) first(r role) int {
	for i, t := range c.toks {
		if t.roles&r != 0 {
			return i
		}
	}
	return -1
}

// directive reports whether the sentence gives an order: a verb that
// opens a clause (the imperative), after "please", or after "you must",
// "you should"; in languages written without spaces, an action word with
// a modal or the second person. A verb under a negation is a safety rule,
// not an order ("never run …"), except when what is negated is telling.
func (c *pass) directive() bool {
	const verbs = rAct | rOverride | rFollow | rAppend
	for k, t := range c.toks {
		if t.roles&verbs == 0 || t.fl&fNegated != 0 {
			continue
		}
		if t.fl&fSubstr != 0 {
			if c.any(rUrgent | rYou | rPlease | rModal) {
				return true
			}
			continue
		}
		if t.fl&fClause != 0 || k > 0 && c.toks[k-1].roles&rPlease != 0 {
			if t.fl&fPermit == 0 {
				return true
			}
		}
		// "you must now call", "you should send", "you are required to run"
		for j := max(0, k-4); j < k; j++ {
			if c.toks[j].roles&(rUrgent|rModal) != 0 && c.near(j, rYou, 3) {
				return true
			}
		}
	}
	return false
}

// near reports whether a word with role r is within d words before k.
func (c *pass) near(k int, r role, d int) bool {
	for j := max(0, k-d); j <= k; j++ {
		if c.toks[j].roles&r != 0 {
			return true
		}
	}
	return false
}

func (c *pass) any(r role) bool {
	for _, t := range c.toks {
		if t.roles&r != 0 {
			return true
		}
	}
	return false
}

// addressed reports whether the sentence speaks to the model: a word for
// it at the start of the sentence ("AI agents reading this: …", "Dear
// assistant,"), after the second person ("if you are an AI"), or after a
// word that opens an address ("attention", "note to", "for any LLM").
func (c *pass) addressed() bool {
	for k, t := range c.toks {
		if t.roles&rAddr == 0 {
			continue
		}
		if k <= 2 && t.fl&fSubstr == 0 {
			// A sentence that merely starts with "AI" or "The model" says
			// something about one; an address is followed by a comma or a
			// colon, or by the second person.
			if c.followedByAddressMark(t) || c.anyAfter(k, rYou, 6) {
				return true
			}
		}
		for j := max(0, k-3); j < k; j++ {
			if c.toks[j].roles&(rYou|rVoc) != 0 && c.toks[j].fl&fSubstr == 0 {
				return true
			}
		}
		if t.fl&fSubstr != 0 && c.any(rYou) && c.any(rAct|rOverride|rUrgent) {
			return true
		}
	}
	return false
}

func (c *pass) followedByAddressMark(t tok) bool {
	for i := t.end; i < len(c.text) && i < t.end+40; i++ {
		switch c.text[i] {
		case ',', ':', '!', ']', '>':
			return true
		case ' ', '\t':
			continue
		}
		// "AI assistant, …", "AI agents reading this: …"
		if isWordByte(c.text[i]) {
			for i < len(c.text) && isWordByte(c.text[i]) {
				i++
			}
			i--
			continue
		}
		return false
	}
	return false
}

func (c *pass) anyAfter(k int, r role, d int) bool {
	for j := k + 1; j < len(c.toks) && j <= k+d; j++ {
		if c.toks[j].roles&r != 0 {
			return true
		}
	}
	return false
}

// negatedTell reports a negated verb of telling: "do not tell", "without
// informing", or a language's phrase that holds both.
func (c *pass) negatedTell() bool {
	for _, t := range c.toks {
		if t.roles&rTell == 0 {
			continue
		}
		if t.roles&rNeg != 0 || t.fl&fNegated != 0 {
			return true
		}
	}
	return false
}

// markerAhead reports whether the word just read opens a line as a role
// marker: "SYSTEM:", "[ADMIN]", "Assistant:", "IMPORTANT:", "Note to AI:".
func (c *pass) markerAhead(i int, r role) bool {
	if r&(rAuth|rAddr|rRules|rUrgent|rVoc) == 0 {
		return false
	}
	n := len(c.text)
	words := 0
	for i < n && words < 3 {
		switch b := c.text[i]; {
		case b == ':' || b == ']' || b == '>' || b == '|':
			return true
		case b == ' ' || b == '\t':
			i++
		case isWordByte(b):
			for i < n && isWordByte(c.text[i]) {
				i++
			}
			words++
		default:
			return false
		}
	}
	return false
}

// marker opens the reach of a role marker at i.
func (c *pass) marker(i int, weak bool) {
	if c.markerEnd <= i {
		c.markerWeak = weak
	} else {
		c.markerWeak = c.markerWeak && weak
	}
	c.markerEnd = i + markerReach
}
