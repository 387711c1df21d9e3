package risk

import (
	"fmt"
	"testing"
)

// corpusThreeDir is a third set of catalogues, kept in the repository: 24
// servers the rules had not been written from, captured from the npm
// registry and labelled by the rubric (testdata/corpus-3/README.md).
const corpusThreeDir = "../../testdata/corpus-3"

// corpusThreeFirstRun is what the engine made of corpus-3 the first time
// it was run against it, before any rule was written from its misses: the
// estimate of how the engine judges servers nobody here has read, in the
// order of corpusFigures.rows. It is kept as the record docs/risk-model.md
// §12 quotes; corpusThreeRatchets hold today's figures.
var corpusThreeFirstRun = []figure{
	{got: 70, of: 78}, {got: 201, of: 207}, {got: 477, of: 577}, {got: 369, of: 577}, {got: 423, of: 577},
}

// corpusThreeRatchets are the figures achieved since, as counts: a change
// that loses a tool on corpus-3 fails, so what was learnt from it stays
// learnt. They are below the development folders' targets; the reasons
// are in docs/risk-model.md §12.
var corpusThreeRatchets = []int{78, 204, 508, 381, 484}

// TestCorpusThreeFigures prints how the engine agrees with corpus-3's
// labels beside its first run, and holds it to the ratchets.
func TestCorpusThreeFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-3", corpusThreeDir, corpusThreeFirstRun, nil, "", corpusThreeRatchets)
}

// holdKeptCorpus measures a corpus kept in the repository against its
// labels, prints the figures beside its first run (and, where given, the
// counts of the engine before the rules it was captured to test), and
// fails where the labels no longer count what the first run counted or a
// figure falls below its ratchet.
func holdKeptCorpus(t *testing.T, name, dir string, firstRun, before []figure, beforeWhat string, ratchets []int) {
	t.Helper()
	results, labels := loadFolder(t, dir)
	var f corpusFigures
	for _, l := range labels {
		key := l.Server + "/" + l.Tool
		a, ok := results[key]
		if !ok {
			t.Fatalf("labelled tool %s is not in %s", key, name)
		}
		f.add(compareLabel(name+"/"+key, a, l))
	}
	printFigures(name, f)
	for i, r := range f.rows() {
		first := firstRun[i]
		if before != nil {
			fmt.Printf("corpus %s first run: %s: %d/%d (%.1f%%; %d %s)\n",
				name, r.name, first.got, first.of, pct(first.got, first.of), before[i].got, beforeWhat)
		} else {
			fmt.Printf("corpus %s first run: %s: %d/%d (%.1f%%)\n", name, r.name, first.got, first.of, pct(first.got, first.of))
		}
		if r.of != first.of {
			t.Errorf("%s counts %d tools, the first run counted %d: the labels changed", r.name, r.of, first.of)
		}
		if r.got < ratchets[i] {
			t.Errorf("%s: %s: %d/%d, below the ratchet of %d", name, r.name, r.got, r.of, ratchets[i])
		}
	}
	printClasses(name, f)
}

// corpusFourDir is a fourth set of catalogues: 22 servers captured after
// the rules learnt from corpus-3 were in, to measure whether they carry to
// servers they were not written from (testdata/corpus-4/README.md).
const corpusFourDir = "../../testdata/corpus-4"

// corpusFourFirstRun is the engine's first run against corpus-4, in the
// order of corpusFigures.rows; corpusFourBefore is the same corpus judged by
// the engine before the rules learnt from corpus-3, measured beside it.
// Together they say how far rules learnt from one set of servers carry to
// the next: a few tenths of a point.
var (
	corpusFourFirstRun = []figure{
		{got: 42, of: 51}, {got: 162, of: 169}, {got: 407, of: 456}, {got: 310, of: 456}, {got: 307, of: 456},
	}
	corpusFourBefore = []figure{
		{got: 42, of: 51}, {got: 162, of: 169}, {got: 406, of: 456}, {got: 308, of: 456}, {got: 305, of: 456},
	}
)

// corpusFourRatchets hold today's counts on corpus-4. After its first run,
// its dangerous tools below L4 were read (only those) and the general
// classes among them fixed: a membership is an access change, write
// statements named in a description are statements, a service's
// environment variables are graded high.
var corpusFourRatchets = []int{49, 162, 408, 317, 350}

// TestCorpusFourFigures prints how the engine agrees with corpus-4's
// labels beside its first run and the engine before corpus-3's rules, and
// holds it to the ratchets.
func TestCorpusFourFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-4", corpusFourDir, corpusFourFirstRun, corpusFourBefore, "before the rules learnt from corpus-3", corpusFourRatchets)
}

// corpusFiveDir is a fifth set of catalogues: 21 servers captured after
// the catalogue's domain was read (docs/risk-model.md §4.4), labelled by
// two reviewers who had neither read nor run the engine, each taking
// servers of its own domains (testdata/corpus-5/README.md).
const corpusFiveDir = "../../testdata/corpus-5"

// corpusFiveFirstRun is the engine's first run against corpus-5, in the
// order of corpusFigures.rows; corpusFiveBefore is the same corpus judged by
// the engine before the catalogue's domain and a calendar's events were
// read, measured beside it. After the first run only its gate-affecting
// misses were read — dangerous tools below L4 and harmless reads withheld
// — and the general classes among them closed (a variable its schema marks
// encrypted or secret, a standing forward of mail, a delegate, a trash,
// SSH keys installed on a machine); corpusFiveRatchets hold the figures
// since. A rule that read a send-as alias as a noun was tried and not
// kept: a review found its guards leak.
var (
	corpusFiveFirstRun = []figure{
		{got: 49, of: 58}, {got: 187, of: 191}, {got: 408, of: 501}, {got: 317, of: 501}, {got: 355, of: 501},
	}
	corpusFiveBefore = []figure{
		{got: 49, of: 58}, {got: 187, of: 191}, {got: 404, of: 501}, {got: 317, of: 501}, {got: 355, of: 501},
	}
	corpusFiveRatchets = []int{56, 187, 409, 322, 388}
)

// TestCorpusFiveFigures prints how the engine agrees with corpus-5's
// labels beside its first run and the engine before the catalogue's
// domain, and holds it to the ratchets.
func TestCorpusFiveFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-5", corpusFiveDir, corpusFiveFirstRun, corpusFiveBefore, "before the catalogue's domain was read", corpusFiveRatchets)
}

// corpusSixDir is a sixth set of catalogues: 22 servers captured after the
// rules learnt from corpus-5 were in, by two reviewers who had neither read
// nor run the engine (testdata/corpus-6/README.md).
const corpusSixDir = "../../testdata/corpus-6"

// corpusSixFirstRun is the engine's first run against corpus-6, in the
// order of corpusFigures.rows; corpusSixBefore is the same corpus judged by
// the engine before the rules learnt from corpus-3, measured beside it.
// The engine before the catalogue's domain and corpus-5's rules gave the
// first run exactly: those rules moved nothing here, while the rules
// learnt from corpus-3 and corpus-4 withheld three more dangerous tools.
// After the first run only its gate-affecting misses were read, and its
// three dangerous tools below L4 closed by general classes (a mild verb
// whose description removes everything, environment variables set by a
// parameter, a call routed to any operation of an API); corpusSixRatchets
// hold the figures since.
var (
	corpusSixFirstRun = []figure{
		{got: 50, of: 53}, {got: 159, of: 166}, {got: 454, of: 524}, {got: 368, of: 524}, {got: 356, of: 524},
	}
	corpusSixBefore = []figure{
		{got: 47, of: 53}, {got: 159, of: 166}, {got: 455, of: 524}, {got: 369, of: 524}, {got: 353, of: 524},
	}
	corpusSixRatchets = []int{53, 159, 459, 375, 393}
)

// TestCorpusSixFigures prints how the engine agrees with corpus-6's labels
// beside its first run and the engine before corpus-3's rules, and holds it
// to the ratchets.
func TestCorpusSixFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-6", corpusSixDir, corpusSixFirstRun, corpusSixBefore, "before the rules learnt from corpus-3", corpusSixRatchets)
}

// corpusSevenDir is a seventh set of catalogues: 22 servers captured after
// the rules learnt from corpus-6 were in, by two more reviewers who had
// neither read nor run the engine (testdata/corpus-7/README.md).
const corpusSevenDir = "../../testdata/corpus-7"

// corpusSevenFirstRun is the engine's first run against corpus-7, in the
// order of corpusFigures.rows; corpusSevenBefore is the same corpus judged
// by the engine before the rules learnt from corpus-3. The engine before
// the catalogue's domain, before corpus-5's rules and before corpus-6's
// gave the first run exactly. Nobody has read its misses. The rules learnt
// from the misses of corpus-3 to corpus-6 at once (externally visible
// changes, a business's books, the reach of pipelines, balancers and page
// elements) and from corpus-8's gate-affecting misses were measured against
// it as a whole: riskLevel 261 to 262 and blast radius 245 to 246, nothing
// else moved; the rules learnt from the riskLevel misses of the kept
// corpora (private reads, invitations, any kind of resource) moved its
// riskLevel to 263; the ratchets hold that.
var (
	corpusSevenFirstRun = []figure{
		{got: 49, of: 50}, {got: 192, of: 198}, {got: 358, of: 410}, {got: 245, of: 410}, {got: 261, of: 410},
	}
	corpusSevenBefore = []figure{
		{got: 49, of: 50}, {got: 192, of: 198}, {got: 359, of: 410}, {got: 245, of: 410}, {got: 259, of: 410},
	}
	corpusSevenRatchets = []int{49, 192, 358, 246, 294}
)

// TestCorpusSevenFigures prints how the engine agrees with corpus-7's
// labels beside its first run and the engine before corpus-3's rules, and
// holds it to the ratchets.
func TestCorpusSevenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-7", corpusSevenDir, corpusSevenFirstRun, corpusSevenBefore, "before the rules learnt from corpus-3", corpusSevenRatchets)
}

// corpusEightDir is an eighth set of catalogues: 22 servers captured after
// the rules learnt from corpus-3 to corpus-6 at once were in, by two more
// reviewers who had neither read nor run the engine
// (testdata/corpus-8/README.md).
const corpusEightDir = "../../testdata/corpus-8"

// corpusEightFirstRun is the engine's first run against corpus-8, in the
// order of corpusFigures.rows; corpusEightBefore is the same corpus judged
// by the engine before the rules learnt from four corpora at once: those
// rules moved two tools, both the wrong way (a container stopped, graded
// high where both of its servers' reviewer said medium).
var (
	corpusEightFirstRun = []figure{
		{got: 50, of: 53}, {got: 177, of: 188}, {got: 387, of: 460}, {got: 301, of: 460}, {got: 323, of: 460},
	}
	corpusEightBefore = []figure{
		{got: 50, of: 53}, {got: 177, of: 188}, {got: 387, of: 460}, {got: 301, of: 460}, {got: 325, of: 460},
	}
	corpusEightRatchets = []int{53, 177, 387, 304, 342}
)

// TestCorpusEightFigures prints how the engine agrees with corpus-8's
// labels beside its first run and the engine before the rules learnt from
// four corpora, and holds it to the ratchets.
func TestCorpusEightFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-8", corpusEightDir, corpusEightFirstRun, corpusEightBefore, "before the rules learnt from four corpora at once", corpusEightRatchets)
}

// corpusNineDir is a ninth set of catalogues: 22 servers captured after
// the rules learnt from the riskLevel misses of the kept corpora, by two
// more reviewers who had neither read nor run the engine
// (testdata/corpus-9/README.md).
const corpusNineDir = "../../testdata/corpus-9"

// corpusNineFirstRun is the engine's first run against corpus-9, in the
// order of corpusFigures.rows; corpusNineBefore is the same corpus judged
// by the engine before those rules, which moved none of its 698 tools.
var (
	corpusNineFirstRun = []figure{
		{got: 81, of: 92}, {got: 216, of: 237}, {got: 585, of: 698}, {got: 448, of: 698}, {got: 461, of: 698},
	}
	corpusNineBefore = []figure{
		{got: 81, of: 92}, {got: 216, of: 237}, {got: 585, of: 698}, {got: 448, of: 698}, {got: 461, of: 698},
	}
	corpusNineRatchets = []int{87, 216, 588, 453, 493}
)

// TestCorpusNineFigures prints how the engine agrees with corpus-9's
// labels beside its first run and the engine before the rules learnt from
// the kept corpora's riskLevel misses, and holds it to the ratchets.
func TestCorpusNineFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-9", corpusNineDir, corpusNineFirstRun, corpusNineBefore, "before the rules learnt from the kept corpora's riskLevel misses", corpusNineRatchets)
}

// corpusTenDir is a tenth set of catalogues: 22 servers captured after the
// rules learnt from corpus-9 and the scan's narrowings were in, by two more
// reviewers who had neither read nor run the engine
// (testdata/corpus-10/README.md). Nobody has read its misses.
const corpusTenDir = "../../testdata/corpus-10"

// corpusTenFirstRun is the engine's first run against corpus-10, in the
// order of corpusFigures.rows; corpusTenBefore is the same corpus judged by
// the engine before the rules learnt from the kept corpora's riskLevel
// misses and from corpus-9, which moved one of its 624 tools.
var (
	corpusTenFirstRun = []figure{
		{got: 56, of: 56}, {got: 228, of: 237}, {got: 520, of: 624}, {got: 359, of: 624}, {got: 439, of: 624},
	}
	corpusTenBefore = []figure{
		{got: 56, of: 56}, {got: 228, of: 237}, {got: 520, of: 624}, {got: 359, of: 624}, {got: 438, of: 624},
	}
	corpusTenRatchets = []int{56, 228, 520, 359, 440}
)

// TestCorpusTenFigures prints how the engine agrees with corpus-10's
// labels beside its first run and the engine before the latest rules, and
// holds it to the ratchets.
func TestCorpusTenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-10", corpusTenDir, corpusTenFirstRun, corpusTenBefore, "before the rules learnt from the kept corpora's riskLevel misses and corpus-9", corpusTenRatchets)
}

// corpusElevenDir is an eleventh set of catalogues: 22 servers captured
// after the workload and local-file rules were in, by two more reviewers
// who had neither read nor run the engine (testdata/corpus-11/README.md).
const corpusElevenDir = "../../testdata/corpus-11"

// corpusElevenFirstRun is the engine's first run against corpus-11, in the
// order of corpusFigures.rows; corpusElevenBefore is the same corpus judged
// by the engine before the workload and local-file rules, which moved none
// of its 599 tools.
var (
	corpusElevenFirstRun = []figure{
		{got: 64, of: 72}, {got: 204, of: 216}, {got: 508, of: 599}, {got: 387, of: 599}, {got: 377, of: 599},
	}
	corpusElevenBefore = []figure{
		{got: 64, of: 72}, {got: 204, of: 216}, {got: 508, of: 599}, {got: 387, of: 599}, {got: 377, of: 599},
	}
	corpusElevenRatchets = []int{71, 205, 513, 384, 394}
)

// TestCorpusElevenFigures prints how the engine agrees with corpus-11's
// labels beside its first run and the engine before the latest rules, and
// holds it to the ratchets.
func TestCorpusElevenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-11", corpusElevenDir, corpusElevenFirstRun, corpusElevenBefore, "before the workload and local-file rules", corpusElevenRatchets)
}

// corpusTwelveDir is a twelfth set of catalogues: 21 servers captured
// after the rules learnt from corpus-11, by two more reviewers who had
// neither read nor run the engine (testdata/corpus-12/README.md). No rule
// of the engine has been written from it.
const corpusTwelveDir = "../../testdata/corpus-12"

// corpusTwelveFirstRun is the engine's first run against corpus-12, in the
// order of corpusFigures.rows; corpusTwelveBefore is the same corpus judged
// by the engine before the rules learnt from corpus-11 and the kept
// corpora's exposed high tools, which moved one of its 410 tools.
var (
	corpusTwelveFirstRun = []figure{
		{got: 26, of: 26}, {got: 172, of: 198}, {got: 316, of: 410}, {got: 292, of: 410}, {got: 279, of: 410},
	}
	corpusTwelveBefore = []figure{
		{got: 26, of: 26}, {got: 172, of: 198}, {got: 316, of: 410}, {got: 292, of: 410}, {got: 278, of: 410},
	}
	corpusTwelveRatchets = []int{26, 172, 316, 294, 283}
)

// TestCorpusTwelveFigures prints how the engine agrees with corpus-12's
// labels beside its first run and the engine before the latest rules, and
// holds it to the ratchets.
func TestCorpusTwelveFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-12", corpusTwelveDir, corpusTwelveFirstRun, corpusTwelveBefore, "before the rules learnt from corpus-11 and the exposed high tools", corpusTwelveRatchets)
}

// corpusThirteenDir is a thirteenth set of catalogues: 15 servers captured
// after the scan's narrowings for corpus-12, by two more reviewers who had
// neither read nor run the engine (testdata/corpus-13/README.md). Its
// two dangerous misses were read after the first run.
const corpusThirteenDir = "../../testdata/corpus-13"

// corpusThirteenFirstRun is the engine's first run against corpus-13, in
// the order of corpusFigures.rows; corpusThirteenBefore is the same corpus
// judged by the engine before this set's rules, which moved none of its
// 304 tools.
var (
	corpusThirteenFirstRun = []figure{
		{got: 20, of: 22}, {got: 175, of: 209}, {got: 209, of: 304}, {got: 209, of: 304}, {got: 197, of: 304},
	}
	corpusThirteenBefore = []figure{
		{got: 20, of: 22}, {got: 175, of: 209}, {got: 209, of: 304}, {got: 209, of: 304}, {got: 197, of: 304},
	}
	corpusThirteenRatchets = []int{21, 175, 209, 210, 198}
)

// TestCorpusThirteenFigures prints how the engine agrees with corpus-13's
// labels beside its first run and the engine before this set's rules, and
// holds it to the ratchets.
func TestCorpusThirteenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-13", corpusThirteenDir, corpusThirteenFirstRun, corpusThirteenBefore, "before this set's rules", corpusThirteenRatchets)
}

// corpusFourteenDir is a fourteenth set of catalogues: 21 servers captured
// after the rules read from corpus-13's dangerous misses, by two more
// reviewers who had neither read nor run the engine
// (testdata/corpus-14/README.md).
const corpusFourteenDir = "../../testdata/corpus-14"

// corpusFourteenFirstRun is the engine's first run against corpus-14, in
// the order of corpusFigures.rows; corpusFourteenBefore is the same corpus
// judged by the engine before the rules read from corpus-13, which moved
// none of its 578 tools. Its dangerous misses were read after the first
// run.
var (
	corpusFourteenFirstRun = []figure{
		{got: 70, of: 74}, {got: 245, of: 264}, {got: 489, of: 578}, {got: 382, of: 578}, {got: 378, of: 578},
	}
	corpusFourteenBefore = []figure{
		{got: 70, of: 74}, {got: 245, of: 264}, {got: 489, of: 578}, {got: 382, of: 578}, {got: 378, of: 578},
	}
	// A removal named "remove X from Y" became the detachment it names
	// rather than the removal of Y, and lost one blast radius here: a
	// tenant's servers taken out of it are no longer the tenant destroyed,
	// whose reach matched the reviewer's by accident.
	corpusFourteenRatchets = []int{73, 245, 490, 386, 387}
)

// TestCorpusFourteenFigures prints how the engine agrees with corpus-14's
// labels beside its first run and the engine before the rules read from
// corpus-13, and holds it to the ratchets.
func TestCorpusFourteenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-14", corpusFourteenDir, corpusFourteenFirstRun, corpusFourteenBefore, "before the rules read from corpus-13", corpusFourteenRatchets)
}

// corpusFifteenDir is a fifteenth set of catalogues: 26 servers captured
// after the rules read from corpus-14, by two more reviewers who had
// neither read nor run the engine (testdata/corpus-15/README.md).
const corpusFifteenDir = "../../testdata/corpus-15"

// corpusFifteenFirstRun is the engine's first run against corpus-15, in
// the order of corpusFigures.rows; corpusFifteenBefore is the same corpus
// judged by the engine before the rules read from corpus-13 and corpus-14,
// which moved none of its 555 tools. Its dangerous misses were read after
// the first run.
var (
	corpusFifteenFirstRun = []figure{
		{got: 74, of: 78}, {got: 186, of: 194}, {got: 473, of: 555}, {got: 357, of: 555}, {got: 393, of: 555},
	}
	corpusFifteenBefore = []figure{
		{got: 74, of: 78}, {got: 186, of: 194}, {got: 473, of: 555}, {got: 357, of: 555}, {got: 393, of: 555},
	}
	corpusFifteenRatchets = []int{78, 186, 473, 358, 402}
)

// TestCorpusFifteenFigures prints how the engine agrees with corpus-15's
// labels beside its first run and the engine before the rules read from
// corpus-13 and corpus-14, and holds it to the ratchets.
func TestCorpusFifteenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-15", corpusFifteenDir, corpusFifteenFirstRun, corpusFifteenBefore, "before the rules read from corpus-13 and corpus-14", corpusFifteenRatchets)
}

// corpusSixteenDir is a sixteenth set of catalogues: 26 servers captured
// after the rules read from corpus-15, by two more reviewers who had
// neither read nor run the engine (testdata/corpus-16/README.md).
const corpusSixteenDir = "../../testdata/corpus-16"

// corpusSixteenFirstRun is the engine's first run against corpus-16, in
// the order of corpusFigures.rows; corpusSixteenBefore is the same corpus
// judged by the engine before the rules read from corpus-15, which moved
// none of its 570 tools. Its dangerous misses were read after the first
// run.
var (
	corpusSixteenFirstRun = []figure{
		{got: 56, of: 60}, {got: 159, of: 172}, {got: 484, of: 570}, {got: 378, of: 570}, {got: 350, of: 570},
	}
	corpusSixteenBefore = []figure{
		{got: 56, of: 60}, {got: 159, of: 172}, {got: 484, of: 570}, {got: 378, of: 570}, {got: 350, of: 570},
	}
	// A filter that stopped raising a read that names no data store lost
	// two riskLevels here (this set's reviewers graded four such reads
	// medium, an issue search among them, and two low); the reach of a
	// document's node and of an account made gained more.
	corpusSixteenRatchets = []int{58, 159, 487, 382, 358}
)

// TestCorpusSixteenFigures prints how the engine agrees with corpus-16's
// labels beside its first run and the engine before the rules read from
// corpus-15, and holds it to the ratchets.
func TestCorpusSixteenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-16", corpusSixteenDir, corpusSixteenFirstRun, corpusSixteenBefore, "before the rules read from corpus-15", corpusSixteenRatchets)
}

// corpusSeventeenDir is a seventeenth set of catalogues: 24 servers
// captured after the rules read from corpus-16, by two more reviewers who
// had neither read nor run the engine (testdata/corpus-17/README.md).
const corpusSeventeenDir = "../../testdata/corpus-17"

// corpusSeventeenFirstRun is the engine's first run against corpus-17, in
// the order of corpusFigures.rows; corpusSeventeenBefore is the same
// corpus judged by the engine before the rules read from corpus-16, which
// moved none of its 558 tools. Its dangerous misses were read after the
// first run.
var (
	corpusSeventeenFirstRun = []figure{
		{got: 68, of: 80}, {got: 170, of: 185}, {got: 455, of: 558}, {got: 350, of: 558}, {got: 350, of: 558},
	}
	corpusSeventeenBefore = []figure{
		{got: 68, of: 80}, {got: 170, of: 185}, {got: 455, of: 558}, {got: 350, of: 558}, {got: 350, of: 558},
	}
	// Blast radius and riskLevel one below what they were: a server's
	// runtime configuration that a description offers to "get or update"
	// is graded as the configuration change it is, where its reviewer
	// graded the one setting it supports today (the log level) low; the
	// same rule put two of this corpus's tools in their category.
	corpusSeventeenRatchets = []int{70, 170, 459, 348, 354}
)

// TestCorpusSeventeenFigures prints how the engine agrees with
// corpus-17's labels beside its first run and the engine before the rules
// read from corpus-16, and holds it to the ratchets.
func TestCorpusSeventeenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-17", corpusSeventeenDir, corpusSeventeenFirstRun, corpusSeventeenBefore, "before the rules read from corpus-16", corpusSeventeenRatchets)
}

// corpusEighteenDir is an eighteenth set of catalogues: 25 servers
// captured after the rules read from corpus-17, by two more reviewers who
// had neither read nor run the engine (testdata/corpus-18/README.md).
const corpusEighteenDir = "../../testdata/corpus-18"

// corpusEighteenFirstRun is the engine's first run against corpus-18, in
// the order of corpusFigures.rows; corpusEighteenBefore is the same corpus
// judged by the engine before the rules read from corpus-17, which moved
// none of its 550 tools. Its dangerous misses, and its riskLevel misses
// of changes graded medium, were read after the first run.
var (
	corpusEighteenFirstRun = []figure{
		{got: 101, of: 108}, {got: 158, of: 165}, {got: 502, of: 550}, {got: 314, of: 550}, {got: 361, of: 550},
	}
	corpusEighteenBefore = []figure{
		{got: 101, of: 108}, {got: 158, of: 165}, {got: 502, of: 550}, {got: 314, of: 550}, {got: 361, of: 550},
	}
	corpusEighteenRatchets = []int{105, 158, 504, 322, 378}
)

// TestCorpusEighteenFigures prints how the engine agrees with corpus-18's
// labels beside its first run and the engine before the rules read from
// corpus-17, and holds it to the ratchets.
func TestCorpusEighteenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-18", corpusEighteenDir, corpusEighteenFirstRun, corpusEighteenBefore, "before the rules read from corpus-17", corpusEighteenRatchets)
}

// corpusNineteenDir is a nineteenth set of catalogues: 29 servers
// captured after the rules read from corpus-18, by two more reviewers who
// had neither read nor run the engine (testdata/corpus-19/README.md).
const corpusNineteenDir = "../../testdata/corpus-19"

// corpusNineteenFirstRun is the engine's first run against corpus-19, in
// the order of corpusFigures.rows; corpusNineteenBefore is the same corpus
// judged by the engine before the rules read from corpus-18, which moved
// none of its 525 tools. Its three dangerous misses were read after the
// first run.
var (
	corpusNineteenFirstRun = []figure{
		{got: 30, of: 33}, {got: 261, of: 270}, {got: 398, of: 525}, {got: 343, of: 525}, {got: 341, of: 525},
	}
	corpusNineteenBefore = []figure{
		{got: 30, of: 33}, {got: 261, of: 270}, {got: 398, of: 525}, {got: 343, of: 525}, {got: 341, of: 525},
	}
	// Removing a project became the destruction of everything in it and
	// lost one riskLevel here: the rubric grades it critical, this set's
	// reviewer high.
	corpusNineteenRatchets = []int{33, 261, 400, 344, 353}
)

// TestCorpusNineteenFigures prints how the engine agrees with
// corpus-19's labels beside its first run and the engine before the rules
// read from corpus-18, and holds it to the ratchets.
func TestCorpusNineteenFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-19", corpusNineteenDir, corpusNineteenFirstRun, corpusNineteenBefore, "before the rules read from corpus-18", corpusNineteenRatchets)
}

// corpusTwentyDir is a twentieth set of catalogues: 27 servers captured
// after the rules read from corpus-19, by three more reviewers who had
// neither read nor run the engine (testdata/corpus-20/README.md).
const corpusTwentyDir = "../../testdata/corpus-20"

// corpusTwentyFirstRun is the engine's first run against corpus-20, in the
// order of corpusFigures.rows; corpusTwentyBefore is the same corpus judged
// by the engine before the rules read from corpus-19, which moved none of
// its 509 tools. Its dangerous misses were read after the first run.
var (
	corpusTwentyFirstRun = []figure{
		{got: 64, of: 68}, {got: 136, of: 141}, {got: 463, of: 509}, {got: 335, of: 509}, {got: 332, of: 509},
	}
	corpusTwentyBefore = []figure{
		{got: 64, of: 68}, {got: 136, of: 141}, {got: 463, of: 509}, {got: 335, of: 509}, {got: 332, of: 509},
	}
	// Creating an account stopped reaching the whole account and lost one
	// riskLevel here: a company's new bank account, which its reviewer
	// graded high, is now one item changed (medium).
	corpusTwentyRatchets = []int{67, 136, 464, 337, 343}
)

// TestCorpusTwentyFigures prints how the engine agrees with corpus-20's
// labels beside its first run and the engine before the rules read from
// corpus-19, and holds it to the ratchets.
func TestCorpusTwentyFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-20", corpusTwentyDir, corpusTwentyFirstRun, corpusTwentyBefore, "before the rules read from corpus-19", corpusTwentyRatchets)
}

// corpusTwentyOneDir is a twenty-first set of catalogues: 4 servers
// captured alongside corpus-20 by a fourth reviewer who had neither read
// nor run the engine, and run only after the rules read from corpus-20
// were in (testdata/corpus-21/README.md).
const corpusTwentyOneDir = "../../testdata/corpus-21"

// corpusTwentyOneFirstRun is the engine's first run against corpus-21, in
// the order of corpusFigures.rows; corpusTwentyOneBefore is the same
// corpus judged by the engine before the rules read from corpus-20, which
// moved none of its 127 tools. Nothing of it has been read.
var (
	corpusTwentyOneFirstRun = []figure{
		{got: 19, of: 19}, {got: 44, of: 50}, {got: 108, of: 127}, {got: 56, of: 127}, {got: 91, of: 127},
	}
	corpusTwentyOneBefore = []figure{
		{got: 19, of: 19}, {got: 44, of: 50}, {got: 108, of: 127}, {got: 56, of: 127}, {got: 91, of: 127},
	}
	// The riskLevel ratchet fell by one when a filter stopped raising a read
	// that names no data store: a CRM's search across every object, which
	// its reviewer graded medium.
	corpusTwentyOneRatchets = []int{19, 44, 108, 56, 90}
)

// TestCorpusTwentyOneFigures prints how the engine agrees with
// corpus-21's labels beside its first run and the engine before the rules
// read from corpus-20, and holds it to the ratchets.
func TestCorpusTwentyOneFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-21", corpusTwentyOneDir, corpusTwentyOneFirstRun, corpusTwentyOneBefore, "before the rules read from corpus-20", corpusTwentyOneRatchets)
}

// corpusTwentyTwoDir is a twenty-second set of catalogues: 23 servers
// captured by two more reviewers who had neither read nor run the engine,
// after the rules read from every kept corpus at once were in
// (testdata/corpus-22/README.md).
const corpusTwentyTwoDir = "../../testdata/corpus-22"

// corpusTwentyTwoFirstRun is the engine's first run against corpus-22, in
// the order of corpusFigures.rows; corpusTwentyTwoBefore is the same
// corpus judged by the engine before the rules read from every kept
// corpus at once (a project or a team removed, a filter over a data
// store, the reach of a node and of an account): they moved its riskLevel
// from 395 to 406 and its blast radius from 356 to 357, and nothing else.
var (
	corpusTwentyTwoFirstRun = []figure{
		{got: 70, of: 80}, {got: 189, of: 202}, {got: 509, of: 588}, {got: 357, of: 588}, {got: 406, of: 588},
	}
	corpusTwentyTwoBefore = []figure{
		{got: 70, of: 80}, {got: 189, of: 202}, {got: 509, of: 588}, {got: 356, of: 588}, {got: 395, of: 588},
	}
	corpusTwentyTwoRatchets = []int{70, 189, 509, 357, 406}
)

// TestCorpusTwentyTwoFigures prints how the engine agrees with
// corpus-22's labels beside its first run and the engine before the rules
// read from every kept corpus at once, and holds it to the ratchets.
func TestCorpusTwentyTwoFigures(t *testing.T) {
	holdKeptCorpus(t, "corpus-22", corpusTwentyTwoDir, corpusTwentyTwoFirstRun, corpusTwentyTwoBefore, "before the rules read from every kept corpus", corpusTwentyTwoRatchets)
}
