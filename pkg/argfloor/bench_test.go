package argfloor

import "testing"

// The gate calls Evaluate on every tools/call: these measure the three
// kinds of call it meets — a tool with nothing to look at, an ordinary
// call of a tool with flags and selectors, and a statement.
func benchmarkEvaluate(b *testing.B, schema, args string, wantFloors int) {
	p := Analyze([]byte(schema))
	raw := []byte(args)
	if got := len(p.Evaluate(raw, "mutate")); got != wantFloors {
		b.Fatalf("%d floors, want %d", got, wantFloors)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		p.Evaluate(raw, "mutate")
	}
}

func BenchmarkEvaluateEmptyPlan(b *testing.B) {
	benchmarkEvaluate(b, `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`,
		`{"city":"Paris","days":3}`, 0)
}

func BenchmarkEvaluateOrdinary(b *testing.B) {
	benchmarkEvaluate(b, deleteSchema,
		`{"namespace":"payments","name":"api-7f9c","labelSelector":"app=api","force":false,"message":"rolling the api pods after the config change","ids":["a1","b2"],"filter":{"status":"failed"}}`, 0)
}

func BenchmarkEvaluateSQL(b *testing.B) {
	benchmarkEvaluate(b, sqlSchema,
		`{"sql":"SELECT o.id, o.total, c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created_at > now() - interval '7 days' ORDER BY o.total DESC LIMIT 50"}`, 0)
}

func BenchmarkEvaluateSQLWrite(b *testing.B) {
	benchmarkEvaluate(b, sqlSchema, `{"sql":"BEGIN; UPDATE accounts SET balance = balance - 10 WHERE id = 4; DELETE FROM sessions; COMMIT"}`, 1)
}

func BenchmarkAnalyze(b *testing.B) {
	raw := []byte(richSchema)
	b.ReportAllocs()
	for b.Loop() {
		Analyze(raw)
	}
}
