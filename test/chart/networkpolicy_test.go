package chart

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// networkPolicies are the NetworkPolicies rendered, by namespace.
func networkPolicies(objs []object) map[string]object {
	out := map[string]object{}
	for _, o := range objs {
		if o["kind"] == "NetworkPolicy" {
			out[get(o, "metadata", "namespace").(string)] = o
		}
	}
	return out
}

// ports are a rule's ports, as "TCP/443".
func ports(rule any) []string {
	var out []string
	list, _ := get(rule, "ports").([]any)
	for _, p := range list {
		out = append(out, fmt.Sprintf("%v/%v", get(p, "protocol"), get(p, "port")))
	}
	return out
}

// TestNetworkPolicyOffByDefault: no NetworkPolicy unless asked for; one
// needs a network plugin that enforces it and the upstreams spelled out.
func TestNetworkPolicyOffByDefault(t *testing.T) {
	for _, m := range modes {
		if has(objects(t, render(t, m.values)), "NetworkPolicy") {
			t.Errorf("%s: a NetworkPolicy is rendered by default", m.name)
		}
	}
}

// TestNetworkPolicy: with the values, each agent namespace gets one
// NetworkPolicy that confines the selected pods' egress to the operator's
// gate server, the cluster's DNS and the upstreams listed — nothing else:
// no rule without a destination, none without ports, no ingress touched.
func TestNetworkPolicy(t *testing.T) {
	values := "testdata/values-network-policy.yaml"
	helm(t, "lint", "--strict", filepath.Join(root(), "charts", "toolgate"), "--values", values)
	objs := objects(t, render(t, values))
	nps := networkPolicies(objs)
	if len(nps) != 2 || nps["agents"] == nil || nps["agents-batch"] == nil {
		t.Fatalf("want one NetworkPolicy in each of agents and agents-batch, got %d: %v", len(nps), nps)
	}
	deployment := find(t, objs, "Deployment", "toolgate-operator")
	operatorLabels := get(deployment, "spec", "selector", "matchLabels")
	// The rule names the gate server's container port: the one the
	// Service's gate port targets.
	gatePort := ""
	for _, p := range get(deployment, "spec", "template", "spec", "containers", 0, "ports").([]any) {
		if get(p, "name") == "gate" {
			gatePort = fmt.Sprintf("TCP/%v", get(p, "containerPort"))
		}
	}
	if gatePort != "TCP/9444" {
		t.Fatalf("the operator's gate container port is %q; the NetworkPolicy's rule must follow it", gatePort)
	}

	for ns, np := range nps {
		t.Run(ns, func(t *testing.T) {
			if got := get(np, "metadata", "name"); got != "toolgate-agent-egress" {
				t.Errorf("name %v", got)
			}
			if got := get(np, "spec", "policyTypes"); !reflect.DeepEqual(got, []any{"Egress"}) {
				t.Errorf("policyTypes %v, want [Egress] alone: ingress is not this policy's", got)
			}
			if got := get(np, "spec", "podSelector", "matchLabels"); !reflect.DeepEqual(got, map[string]any{"app.kubernetes.io/part-of": "agents"}) {
				t.Errorf("podSelector %v", got)
			}
			rules, _ := get(np, "spec", "egress").([]any)
			if len(rules) != 4 {
				t.Fatalf("want 4 egress rules (operator, DNS, two upstreams), got %d: %v", len(rules), rules)
			}
			for i, r := range rules {
				if to, _ := get(r, "to").([]any); len(to) == 0 {
					t.Errorf("rule %d has no destination: it would allow every address", i)
				}
				if len(ports(r)) == 0 {
					t.Errorf("rule %d has no ports: it would allow every port", i)
				}
			}

			operator := rules[0]
			if got := get(operator, "to", 0, "namespaceSelector", "matchLabels"); !reflect.DeepEqual(got, map[string]any{"kubernetes.io/metadata.name": "toolgate-system"}) {
				t.Errorf("operator rule's namespace %v", got)
			}
			if got := get(operator, "to", 0, "podSelector", "matchLabels"); !reflect.DeepEqual(got, operatorLabels) {
				t.Errorf("operator rule's pods %v, want the Deployment's selector %v", got, operatorLabels)
			}
			if got := ports(operator); !reflect.DeepEqual(got, []string{gatePort}) {
				t.Errorf("operator rule's ports %v, want %s", got, gatePort)
			}

			dns := rules[1]
			if got := get(dns, "to", 0, "namespaceSelector", "matchLabels"); !reflect.DeepEqual(got, map[string]any{"kubernetes.io/metadata.name": "kube-system"}) {
				t.Errorf("DNS rule's namespace %v", got)
			}
			if got := get(dns, "to", 0, "podSelector", "matchLabels"); !reflect.DeepEqual(got, map[string]any{"k8s-app": "kube-dns"}) {
				t.Errorf("DNS rule's pods %v", got)
			}
			if got := ports(dns); !reflect.DeepEqual(got, []string{"UDP/53", "TCP/53"}) {
				t.Errorf("DNS rule's ports %v", got)
			}

			outside := rules[2]
			if got := get(outside, "to", 0, "ipBlock"); !reflect.DeepEqual(got, map[string]any{"cidr": "203.0.113.0/24", "except": []any{"203.0.113.128/25"}}) {
				t.Errorf("upstream ipBlock %v", got)
			}
			if got := ports(outside); !reflect.DeepEqual(got, []string{"TCP/443"}) {
				t.Errorf("upstream ports %v", got)
			}

			inside := rules[3]
			if got := get(inside, "to", 0, "namespaceSelector", "matchLabels"); !reflect.DeepEqual(got, map[string]any{"kubernetes.io/metadata.name": "tools"}) {
				t.Errorf("in-cluster upstream's namespace %v", got)
			}
			if got := get(inside, "to", 0, "podSelector", "matchLabels"); !reflect.DeepEqual(got, map[string]any{"app.kubernetes.io/name": "toolbox"}) {
				t.Errorf("in-cluster upstream's pods %v", got)
			}
			if got := ports(inside); !reflect.DeepEqual(got, []string{"TCP/8080", "TCP/8443"}) {
				t.Errorf("in-cluster upstream's ports %v", got)
			}
		})
	}
}

// TestNetworkPolicyShapes: every pod of a namespace when no podSelector is
// given; no operator rule for an operator outside the cluster (its address
// is the user's to list as an upstream); and the values that would render
// a policy that confines nothing, or the wrong thing, are refused.
func TestNetworkPolicyShapes(t *testing.T) {
	chart := filepath.Join(root(), "charts", "toolgate")
	h := helmBinary(t)
	out := helm(t, "template", "toolgate", chart, "--namespace", "toolgate-system",
		"--set", "networkPolicy.enabled=true", "--set", "networkPolicy.namespaces={agents}")
	np := networkPolicies(objects(t, out))["agents"]
	if np == nil {
		t.Fatal("no NetworkPolicy in agents")
	}
	if got := get(np, "spec", "podSelector"); !reflect.DeepEqual(got, map[string]any{}) {
		t.Errorf("podSelector %v, want {} (every pod)", got)
	}
	if rules, _ := get(np, "spec", "egress").([]any); len(rules) != 2 {
		t.Errorf("want the operator and DNS rules alone, got %v", rules)
	}

	out = helm(t, "template", "toolgate", chart, "--namespace", "toolgate-system", "--values", "testdata/values-external-operator.yaml",
		"--set", "networkPolicy.enabled=true", "--set", "networkPolicy.namespaces={agents}")
	np = networkPolicies(objects(t, out))["agents"]
	rules, _ := get(np, "spec", "egress").([]any)
	if len(rules) != 1 || !reflect.DeepEqual(ports(rules[0]), []string{"UDP/53", "TCP/53"}) {
		t.Errorf("with an external operator, want the DNS rule alone, got %v", rules)
	}

	for _, c := range []struct {
		sets []string
		why  string
	}{
		{[]string{"networkPolicy.enabled=true"}, "networkPolicy.enabled needs networkPolicy.namespaces"},
		{[]string{"networkPolicy.enabled=true", "networkPolicy.namespaces={toolgate-system}"}, "the release namespace"},
		{[]string{"networkPolicy.namespaces={Agents}"}, "/networkPolicy/namespaces/0"},
		{[]string{"networkPolicy.upstreams[0].ports={443}"}, "missing property 'namespace'"},
		{[]string{"networkPolicy.upstreams[0].cidr=10.0.0.0/8"}, "/networkPolicy/upstreams/0"},
		{[]string{"networkPolicy.upstreams[0].cidr=10.0.0.0/8", "networkPolicy.upstreams[0].namespace=tools", "networkPolicy.upstreams[0].ports={443}"},
			"at '/networkPolicy/upstreams/0/namespace': value must be 'left out, as cidr is set"},
		{[]string{"networkPolicy.upstreams[0].namespace=tools", "networkPolicy.upstreams[0].except={10.0.0.0/8}", "networkPolicy.upstreams[0].ports={443}"},
			"at '/networkPolicy/upstreams/0/except': value must be 'left out, as namespace is set"},
		{[]string{"networkPolicy.upstreams[0].cidr=10.0.0.0/8", "networkPolicy.upstreams[0].ports={0}"}, "/networkPolicy/upstreams/0/ports/0"},
		{[]string{"networkPolicy.upstreams[0].cidr=example.com", "networkPolicy.upstreams[0].ports={443}"}, "/networkPolicy/upstreams/0/cidr"},
		{[]string{"networkPolicy.dns.podSelector=null"}, "/networkPolicy/dns"},
		{[]string{"networkPolicy.egress=all"}, "'egress' not allowed"},
	} {
		args := []string{"template", "toolgate", chart, "--namespace", "toolgate-system"}
		for _, s := range c.sets {
			args = append(args, "--set", s)
		}
		out, err := exec.Command(h, args...).CombinedOutput()
		if err == nil {
			t.Errorf("--set %v rendered:\n%.300s", c.sets, out)
		} else if !strings.Contains(string(out), c.why) {
			t.Errorf("--set %v was refused, but not for %q:\n%.600s", c.sets, c.why, out)
		}
	}
}
