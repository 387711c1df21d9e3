package risk

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// lexiconLists are the word lists docs/risk-model.md must print exactly, so
// the reference never drifts from the code.
func lexiconLists() map[string][]string {
	byAction := map[action][]string{}
	for w, a := range verbs {
		byAction[a] = append(byAction[a], w)
	}
	lists := map[string][]string{
		"verbs-utility": byAction[actUtility], "verbs-read": byAction[actRead], "verbs-observe": byAction[actObserve],
		"verbs-mutate": byAction[actMutate], "verbs-send": byAction[actSend], "verbs-exec": byAction[actExec],
		"verbs-delete": byAction[actDelete], "verbs-destroy": byAction[actDestroy],
	}
	keys := func(name string, m map[string]bool) {
		for k, on := range m {
			if on {
				lists[name] = append(lists[name], k)
			}
		}
	}
	keys("irreversible-verbs", irreversibleVerbs)
	keys("broad-nouns", broadNouns)
	keys("exec-params", execParams)
	keys("sensitive-nouns", sensitiveNouns)
	keys("privilege-nouns", privilegeNouns)
	keys("money-nouns", moneyNouns)
	keys("telemetry-nouns", telemetryNouns)
	keys("recording-nouns", recordingNouns)
	keys("session-verbs", sessionVerbs)
	keys("service-verbs", serviceVerbs)
	keys("member-nouns", memberNouns)
	keys("strong-mutations", strongMutations)
	for k, v := range riskyFlags {
		if v != "" {
			lists["risky-flags"] = append(lists["risky-flags"], k+"="+v)
		}
	}
	keys("moves-money", movesMoney)
	for name, m := range map[string]map[string]bool{
		"api-methods": apiMethods, "path-params": pathParams, "body-params": bodyParams,
		"key-qualifiers": keyQualifiers, "client-nouns": clientNouns, "access-nouns": accessNouns,
		"wrapper-names": wrapperNames, "precedence-verbs": precedenceVerbs, "noun-modifiers": nounModifiers,
		"noun-heads": nounHeads, "domain-words": domainWords, "saved-reads": savedReads,
		"read-param-words": readParamWords, "described-exec-params": describedExecParams,
		"browser-words": browserWords, "run-nouns": runNouns, "generic-verbs": genericVerbs, "command-heads": commandHeads, "run-forms": runForms, "not-run": notRun, "run-by-someone": runBySomeone, "deposit-objects": depositObjects, "provider-verbs": providerVerbs,
		"automation-nouns": automationNouns, "certificate-nouns": certificateNouns, "refresh-verbs": refreshVerbs,
		"ephemeral-nouns": ephemeralNouns, "high-impact-verbs": highImpactVerbs, "session-actions": sessionActions,
		"pointer-only": pointerOnly, "light-verbs": lightVerbs, "private-content-nouns": privateContentNouns,
		"private-heads": privateHeads, "head-senses": headSenses, "people-containers": peopleContainers,
		"meeting-nouns": meetingNouns, "invitee-params": inviteeParams, "other-channels-and-rooms": otherChannels,
		"any-kind-heads": anyKindHeads, "program-params": programParams, "code-holders": codeHolders,
		"code-body-params": codeBodyParams, "code-qualifiers": codeQualifiers, "put-particles": putParticles,
		"file-content-nouns": fileContentNouns, "metadata-words": metadataWords, "content-nouns": contentNouns,
		"setting-nouns": settingNouns, "filter-params": filterParams, "infra-nouns": infraNouns,
		"work-nouns": workNouns, "detach-verbs": detachVerbs, "relation-nouns": relationNouns,
		"record-nouns": recordNouns, "whole-copy-verbs": wholeCopyVerbs,
		"outward-nouns": outwardNouns, "execution-nouns": executionNouns, "name-only-verbs": nameOnlyVerbs,
		"not-plural": notPlural, "state-heads": stateHeads, "id-words": idWords, "not-items": notItems,
		"registry-nouns": registryNouns, "public-network-nouns": publicNetworkNouns,
		"unattended-nouns": unattendedNouns, "change-verbs": changeVerbs,
		"security-controls": securityControls, "disabling-verbs": disablingVerbs, "physical-locks": physicalLocks,
		"credential-words": credentialWords, "minting-verbs": mintingVerbs, "not-credential-words": notCredentialWords,
		"noun-phrase-ends": nounPhraseEnds, "migration-verbs": migrationVerbs, "database-words": databaseWords,
		"definition-nouns": definitionNouns, "client-requests": clientRequests, "requesting-verbs": requestingVerbs,
		"hypothetical-verbs": hypotheticalVerbs, "access-objects": accessObjects, "principal-names": principalNames,
		"access-levels":     accessLevels,
		"wireless-networks": wirelessNetworks, "wireless-security-words": wirelessSecurityWords,

		"shape-options": shapeOptions, "metadata-of-telemetry": metadataOfTelemetry,
		"task-owners": taskOwners, "notify-params": notifyParams, "machine-address-words": machineAddressWords, "keeps-out": keepsOut, "aggregate-heads": aggregateHeads, "recipient-params": recipientParams,
		"generic-items": genericItems, "shared-places": sharedPlaces, "secret-flags": secretFlags, "login-key-params": loginKeyParams, "making-verbs": makingVerbs, "machine-id-params": machineIDParams, "env-params": envParams, "dispatch-ops": dispatchOps, "dispatch-targets": dispatchTargets, "dispatch-requests": dispatchRequests,
		"running-nouns": runningNouns, "halting-verbs": haltingVerbs, "starting-verbs": startingVerbs, "setting-verbs": settingVerbs,
		"determiners": determiners, "deletion-lists": deletionLists, "granting-verbs": grantingVerbs, "not-shipping": notShipping,
		"workload-params": workloadParams, "image-params": imageParams, "workload-heads": workloadHeads,
		"move-only-verbs": moveOnlyVerbs, "image-verbs": imageVerbs, "store-nouns": storeNouns, "store-hosts": storeHosts, "spec-nouns": specNouns, "container-says-words": containerSaysWords, "database-languages": databaseLanguages,
		"picture-sense-params": pictureSenseParams, "local-file-params": localFileParams,
		"named-local-file-params": namedLocalFileParams, "local-file-said": localFileSaid, "outward-file-verbs": outwardFileVerbs,
		"build-words": buildWords, "terminal-nouns": terminalNouns, "typing-verbs": typingVerbs,
		"typed-params": typedParams, "shell-words": shellWords, "schema-keywords": schemaKeywords,
		"run-words": runWords, "hiring-words": hiringWords, "address-params": addressParams,
		"forum-words": forumWords, "forum-heads": forumHeads, "forum-verbs": forumVerbs,
		"executable-paths": executablePaths, "routine-holders": routineHolders, "code-language-params": codeLanguageParams,
		"keyboard-inputs": keyboardInputs, "pointer-clicks": pointerClicks, "creating-verbs": creatingVerbs,
		"inspection-nouns": inspectionNouns, "dispute-nouns": disputeNouns, "conceding-verbs": concedingVerbs, "ending-verbs": endingVerbs, "launched-nouns": launchedNouns, "job-nouns": jobNouns, "app-launchers": appLaunchers, "data-paths": dataPaths, "not-program-path-words": notProgramPathWords, "work-verbs": workVerbs, "reply-text-params": replyTextParams, "reference-nouns": referenceNouns, "place-words": placeWords, "places-of-stores": placesOfStores, "store-enders": storeEnders, "program-words": programWords, "launched-browser-words": launchedBrowserWords, "worked-on-words": workedOnWords, "source-heads": sourceHeads, "container-qualifiers": containerQualifiers, "picture-qualifiers": pictureQualifiers, "registry-access": registryAccess, "machine-start-verbs": machineStartVerbs, "machine-words": machineWords, "vacation-setting-words": vacationSettingWords, "removal-words": removalWords, "removed-store-nouns": removedStoreNouns, "database-params": databaseParams, "from-phrase-ends": fromPhraseEnds, "running-places": runningPlaces, "signature-params": signatureParams, "routine-stores": routineStores, "control-verbs": controlVerbs, "desktop-action-params": desktopActionParams, "programming-languages": programmingLanguages,
	} {
		keys(name, m)
	}
	for k, d := range catalogueDomainWords {
		lists["catalogue-domain-words"] = append(lists["catalogue-domain-words"], k+"="+d.String())
	}
	for k, v := range scopeWords {
		lists["scope-words"] = append(lists["scope-words"], k+"="+v)
	}
	for k, v := range credentialValueParams {
		lists["credential-value-params"] = append(lists["credential-value-params"], k+"="+v)
	}
	for k, v := range systemScopes {
		lists["system-scopes"] = append(lists["system-scopes"], k+"="+v)
	}
	for k := range actionParamWords {
		lists["action-params"] = append(lists["action-params"], k)
	}
	lists["code-languages"] = slices.Clone(codeLanguages)
	lists["item-param-suffixes"] = slices.Clone(itemParamSuffixes)
	lists["access-param-words"] = slices.Clone(accessParamWords)
	lists["level-words"] = slices.Clone(levelWords)
	for _, l := range lists {
		sort.Strings(l)
	}
	return lists
}

var listBlock = regexp.MustCompile("(?s)<!-- list:([a-z-]+) -->\\s*\n```\n(.*?)```")

// phraseLists are the phrase lists docs/risk-model.md must print exactly,
// one phrase per line: phrases hold spaces, so they cannot be read as a
// list of words.
func phraseLists() map[string][]string {
	lists := map[string][]string{
		"read-only-claims": readOnlyPhrases, "enforced-read-only": enforcedReadOnly,
		"desktop-phrases": desktopPhrases, "billed-phrases": billedPhrases, "payment-context-phrases": paymentContextPhrases, "browser-page-phrases": browserPagePhrases, "not-run-phrases": notRunPhrases,
		"param-read-only": paramReadOnlyPhrases, "secret-phrases": secretPhrases, "auth-phrases": authPhrases,
		"any-request": anyRequestPhrases, "executed-words": executedWords,
		"local-phrases": localPhrases, "pipeline-variable-phrases": pipelineVariablePhrases,
		"stored-credential-phrases": storedCredentialPhrases, "statement-phrases": statementPhrases,
		"statement-to-phrases": statementToPhrases, "states-change-phrases": statesChangePhrases,
		"access-said-phrases": accessSaidPhrases, "container-said": containerSaidPhrases, "checkout-said": checkoutSaidPhrases, "payment-provider-said": paymentProviderPhrases, "kept-as-text": keptAsTextPhrases, "code-context-said": codeContextPhrases, "unsigned-said": unsignedPhrases, "harmless-key-said": harmlessKeyPhrases, "in-a-topic": inATopicPhrases, "picture-said": pictureSaidPhrases, "typed-codes": typedCodes, "saves-or-sets-phrases": savesOrSetsPhrases,
		"output-claims":         slices.Collect(maps.Keys(describesOutput)),
		"standing-forward-said": standingForwardPhrases, "delegate-of-account": delegatePhrases, "trash-said": trashPhrases,
		"deletes-existing": deletesExistingPhrases, "store-kept": storeKeptPhrases, "store-goes-with-data": storeGoesWithDataPhrases, "out-of-office": outOfOfficePhrases, "kept-in-a-library": keptInALibraryPhrases, "made-from-an-image": madeFromAnImagePhrases, "auto-reply-said": autoReplySaidPhrases, "routine-in-a-service": routineInAServicePhrases,
	}
	out := map[string][]string{}
	for name, l := range lists {
		out[name] = slices.Sorted(slices.Values(l))
	}
	return out
}

var phraseBlock = regexp.MustCompile("(?s)<!-- phrases:([a-z-]+) -->\\s*\n```\n(.*?)```")

func TestRiskModelDocListsThePhrases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "risk-model.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := phraseLists()
	found := map[string]bool{}
	for _, m := range phraseBlock.FindAllStringSubmatch(string(data), -1) {
		found[m[1]] = true
		var got []string
		for _, line := range strings.Split(strings.TrimRight(m[2], "\n"), "\n") {
			got = append(got, strings.TrimSuffix(line, "⏎")) // a phrase may end in a space, marked so it shows
		}
		sort.Strings(got)
		if !slices.Equal(got, want[m[1]]) {
			t.Errorf("docs/risk-model.md phrases %q differ from the code; they should read (one per line):\n%s", m[1], strings.Join(markSpaces(want[m[1]]), "\n"))
		}
	}
	for name := range want {
		if !found[name] {
			t.Errorf("docs/risk-model.md has no phrases %q; add:\n<!-- phrases:%s -->\n```\n%s\n```", name, name, strings.Join(markSpaces(want[name]), "\n"))
		}
	}
}

// markSpaces ends a phrase that ends in a space with a visible mark.
func markSpaces(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p
		if strings.HasSuffix(p, " ") {
			out[i] = p + "⏎"
		}
	}
	return out
}

func TestRiskModelDocListsTheLexicon(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "risk-model.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := lexiconLists()
	found := map[string]bool{}
	for _, m := range listBlock.FindAllStringSubmatch(string(data), -1) {
		name := m[1]
		found[name] = true
		got := strings.Fields(strings.ReplaceAll(m[2], ",", " "))
		sort.Strings(got)
		if !slices.Equal(got, want[name]) {
			t.Errorf("docs/risk-model.md list %q differs from the code; it should read:\n%s", name, strings.Join(want[name], ", "))
		}
	}
	for name := range want {
		if !found[name] {
			t.Errorf("docs/risk-model.md has no list %q; add:\n<!-- list:%s -->\n```\n%s\n```", name, name, wrap(want[name]))
		}
	}
}

func wrap(words []string) string {
	var b strings.Builder
	line := 0
	for i, w := range words {
		if i > 0 {
			b.WriteString(",")
			line++
			if line+len(w) > 100 {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}

// TestPrintLexicon prints every list as the reference expects it, for
// updating docs/risk-model.md: TOOLGATE_PRINT_LEXICON=1 go test -run TestPrintLexicon -v.
func TestPrintLexicon(t *testing.T) {
	if os.Getenv("TOOLGATE_PRINT_LEXICON") == "" {
		t.Skip("set TOOLGATE_PRINT_LEXICON=1 to print the lists")
	}
	lists := lexiconLists()
	names := make([]string, 0, len(lists))
	for n := range lists {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		os.Stdout.WriteString("<!-- list:" + n + " -->\n```\n" + wrap(lists[n]) + "\n```\n\n")
	}
}
