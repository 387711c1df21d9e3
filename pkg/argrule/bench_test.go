package argrule

import (
	"fmt"
	"testing"
)

// benchArguments is a call of the size tools commonly receive: a few
// scalars, a short list and a nested object.
var benchArguments = []byte(`{
	"namespace": "shop",
	"name": "orders-7f9c",
	"to": ["ann@example.com", "bob@example.com", "carol@partner.test"],
	"subject": "Quarterly figures",
	"query": "SELECT id, total FROM orders WHERE created > now() - interval '1 day'",
	"force": false,
	"replicas": 3,
	"spec": {"containers": [{"image": "quay.io/shop/orders:1.4", "ports": [{"port": 8080}]}]}
}`)

// benchRules are ten rules of the kinds the operator's users write; a
// configuration of a hundred repeats them.
var benchRules = []string{
	`args.?all.orValue(false) || args.namespace == "production"`,
	`has(args.force) && args.force && args.?branch.orValue("") == "main"`,
	`args.query.matches("(?i)\\bdrop\\s+(table|database)\\b")`,
	`args.to.exists(a, !a.lowerAscii().endsWith("@example.com"))`,
	`args.replicas > 10`,
	`args.spec.containers.exists(c, c.image.startsWith("docker.io/"))`,
	`tool.level >= "L4" && agent.labels["team"] != "platform"`,
	`args.namespace in ["kube-system", "kube-public"]`,
	`args.name.startsWith("prod-") || args.name.contains("..")`,
	`size(args.to) > 50`,
}

// BenchmarkEval measures one call checked against a configuration of 0, 1,
// 10 and 100 rules: the arguments are decoded once (all that 0 measures)
// and every rule is evaluated against the same Call.
func BenchmarkEval(b *testing.B) {
	for _, n := range []int{0, 1, 10, 100} {
		programs := make([]*Program, n)
		for i := range programs {
			p, err := Compile(benchRules[i%len(benchRules)])
			if err != nil {
				b.Fatal(err)
			}
			programs[i] = p
		}
		tool := Tool{Name: "send", Server: "shop/mail", Level: "L3"}
		agent := Agent{Namespace: "shop", Pod: "agent-0", ServiceAccount: "agent", Labels: map[string]string{"team": "orders"}}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				args, err := DecodeArguments(benchArguments)
				if err != nil {
					b.Fatal(err)
				}
				call := &Call{Arguments: args, Tool: tool, Agent: agent}
				for _, p := range programs {
					if _, err := p.Eval(call); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkCompile measures compiling one rule, which a gate does for each
// rule of every new configuration unless it keeps a Cache.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Compile(benchRules[i%len(benchRules)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck measures the operator's check of one rule against a
// tool's schema.
func BenchmarkCheck(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if p := Check(`args.to.exists(a, !a.endsWith("@example.com")) && args.options.depth > 2`, []byte(preciseSchema)); len(p) != 0 {
			b.Fatal(describe(p))
		}
	}
}
