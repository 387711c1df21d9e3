package argrule

import (
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

func TestDecodeArguments(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		wantErr   bool
	}{
		{"absent", ``, false},
		{"white space", " \n", false},
		{"null", `null`, false},
		{"object", `{"a": [1, {"b": null}], "c": "d"}`, false},
		{"not an object", `[1]`, true},
		{"a string", `"a"`, true},
		{"not JSON", `{"a":`, true},
		{"repeated name", `{"a": 1, "a": 2}`, true},
		{"invalid UTF-8", "{\"a\": \"\xff\"}", true},
		{"data after the object", `{"a": 1} {}`, true},
		{"as deep as allowed", strings.Repeat(`{"a":`, MaxArgumentDepth) + `1` + strings.Repeat(`}`, MaxArgumentDepth), false},
		{"too deep", strings.Repeat(`{"a":`, MaxArgumentDepth+1) + `1` + strings.Repeat(`}`, MaxArgumentDepth+1), true},
		{"too deep in arrays", `{"a":` + strings.Repeat(`[`, MaxArgumentDepth) + strings.Repeat(`]`, MaxArgumentDepth) + `}`, true},
		{"too large", `{"a": "` + strings.Repeat("x", MaxArgumentBytes) + `"}`, true},
		{"a number out of range", `{"a": 1e400}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeArguments([]byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Errorf("DecodeArguments(%.40s) error = %v, want error %v", tc.raw, err, tc.wantErr)
			}
		})
	}
}

func TestDecodeNumbers(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want ref.Val
	}{
		{"5", types.Int(5)},
		{"-0", types.Int(0)},
		{"5.0", types.Int(5)},
		{"5.00e0", types.Int(5)},
		{"1e3", types.Int(1000)},
		{"-1E2", types.Int(-100)},
		{"5.5", types.Double(5.5)},
		{"1e-3", types.Double(0.001)},
		{"9223372036854775807", types.Int(9223372036854775807)},
		{"-9223372036854775808", types.Int(-9223372036854775808)},
		{"9223372036854775808", types.Double(9223372036854775808)},
		{"9007199254740993", types.Int(9007199254740993)}, // exact, though no double is
		{"9007199254740992.0", types.Int(9007199254740992)},
		{"9007199254740994.0", types.Double(9007199254740994)}, // beyond 2^53 a double may not be the number written
		{"1e20", types.Double(1e20)},
	} {
		a, err := DecodeArguments([]byte(`{"n": ` + tc.lit + `}`))
		if err != nil {
			t.Errorf("%s: %v", tc.lit, err)
			continue
		}
		got := a.value().(interface{ Get(ref.Val) ref.Val }).Get(types.String("n"))
		if got.Type() != tc.want.Type() || got.Equal(tc.want) != types.True {
			t.Errorf("%s decoded as %s %v, want %s %v", tc.lit, got.Type().TypeName(), got, tc.want.Type().TypeName(), tc.want)
		}
	}
}

func TestZeroArgumentsAreEmpty(t *testing.T) {
	p, err := Compile(`size(args) == 0 && !has(args.a)`)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := p.Eval(&Call{}); err != nil || !ok {
		t.Errorf("Eval on a zero Call = %v, %v; want true", ok, err)
	}
}
