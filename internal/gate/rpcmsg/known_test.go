package rpcmsg

import (
	"bytes"
	"testing"
)

// TestKnownGivesWhatParsingGives lists the same catalogue with and without
// a Known, and again once it is filled: every entry is the same, and the
// charges too, so the memory budget refuses the same lists. A definition
// changed by one byte is not taken for the one remembered.
func TestKnownGivesWhatParsingGives(t *testing.T) {
	msg := list100()
	listed := func(m []byte, k *Known) ([]Listed, int64) {
		t.Helper()
		var charged int64
		_, res, err := FilterList(nil, m, ListOptions{Known: k, Charge: func(n int64) error { charged += n; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return res.Tools, charged
	}
	want, wantCharged := listed(msg, nil)
	k := NewKnown(1 << 20)
	for pass := range 2 { // the first fills k, the second is answered from it
		got, charged := listed(msg, k)
		if charged != wantCharged {
			t.Errorf("pass %d: charged %d, want %d", pass, charged, wantCharged)
		}
		for i := range want {
			if got[i].Name != want[i].Name || got[i].Fingerprint != want[i].Fingerprint || !bytes.Equal(got[i].Raw, want[i].Raw) {
				t.Fatalf("pass %d, tool %d: %s %s, want %s %s", pass, i, got[i].Name, got[i].Fingerprint, want[i].Name, want[i].Fingerprint)
			}
		}
	}
	if len(k.tools) != len(want) {
		t.Fatalf("%d definitions remembered, want %d", len(k.tools), len(want))
	}

	// The same tool with a description one byte longer: fingerprinted anew.
	changed := bytes.Replace(msg, []byte("Tool 7 of the benchmark"), []byte("Tool 7 of the benchmark!"), 1)
	got, _ := listed(changed, k)
	fresh, _ := listed(changed, nil)
	if got[7].Fingerprint != fresh[7].Fingerprint || got[7].Fingerprint == want[7].Fingerprint {
		t.Fatalf("changed tool: fingerprint %s, fresh %s, before %s", got[7].Fingerprint, fresh[7].Fingerprint, want[7].Fingerprint)
	}
}

// TestKnownIsBounded fills a small Known: it keeps what fits and no more.
func TestKnownIsBounded(t *testing.T) {
	msg := list100()
	k := NewKnown(1 << 10)
	if _, _, err := FilterList(nil, msg, ListOptions{Known: k}); err != nil {
		t.Fatal(err)
	}
	if k.size > 1<<10 || len(k.tools) == 0 || len(k.tools) >= 100 {
		t.Fatalf("%d definitions of %d bytes remembered within 1 KiB", len(k.tools), k.size)
	}
}
