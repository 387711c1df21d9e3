package argrule

import (
	"reflect"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
)

// The names of the variables an expression sees.
const (
	argsVar  = "args"
	toolVar  = "tool"
	agentVar = "agent"
)

// Tool is what a rule sees of the tool being called, as the variable tool.
// An empty string means the policy says nothing of that property.
type Tool struct {
	// Name is the tool's name as its server lists it.
	Name string `cel:"name"`
	// Server is the MCP server's "namespace/name".
	Server string `cel:"server"`
	// Level is the tool's risk level, "L0" to "L5": one digit after the
	// L, so that the strings compare in level order.
	Level string `cel:"level"`
	// Category is the tool's category.
	Category string `cel:"category"`
	// BlastRadius is the tool's blast radius.
	BlastRadius string `cel:"blastRadius"`
	// Reversibility says whether the tool's effect can be undone.
	Reversibility string `cel:"reversibility"`
}

// Agent is what a rule sees of the pod making the call, as the variable
// agent.
type Agent struct {
	// Namespace is the pod's namespace.
	Namespace string `cel:"namespace"`
	// Pod is the pod's name.
	Pod string `cel:"pod"`
	// ServiceAccount is the pod's service account.
	ServiceAccount string `cel:"serviceAccount"`
	// Labels are the pod's labels.
	Labels map[string]string `cel:"labels"`
}

// The CEL names of Tool and Agent, as ext.NativeTypes derives them from
// the package's and the struct's names.
const (
	toolTypeName  = "argrule.Tool"
	agentTypeName = "argrule.Agent"
)

// baseEnv is the environment every expression compiles in, with args
// dynamic. Building a cel.Env costs milliseconds, so it is built once, on
// first use rather than at init: programs that import the package without
// compiling rules do not pay for it. An Env is immutable once built.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(envOptions()...)
})

// envOptions declares the variables and the libraries. The libraries are
// those Kubernetes offers in its CEL rules that cannot make evaluation
// unbounded: string and list functions, sets, cel.bind, two-variable
// comprehensions and optional values. matches is the standard library's,
// on RE2, which runs in time linear in the string. Kubernetes' own
// libraries (quantities, URLs, IPs) would need k8s.io imports, which the
// gate does not link.
func envOptions() []cel.EnvOption {
	return []cel.EnvOption{
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
		ext.Bindings(),
		ext.TwoVarComprehensions(),
		cel.OptionalTypes(),
		// A JSON number is an int or a double depending on how it was
		// written, so 5 and 5.0 must compare alike.
		cel.CrossTypeNumericComparisons(true),
		cel.DefaultUTCTimeZone(true),
		// A malformed literal pattern or duration is a compile error, not a
		// rule that fails on every call.
		cel.ASTValidators(
			cel.ValidateRegexLiterals(),
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
		),
		// Last: the libraries above register types with CEL's own
		// registry, which NativeTypes wraps.
		ext.NativeTypes(reflect.TypeFor[Tool](), reflect.TypeFor[Agent](), ext.ParseStructTags(true)),
		cel.Variable(argsVar, cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable(toolVar, cel.ObjectType(toolTypeName)),
		cel.Variable(agentVar, cel.ObjectType(agentTypeName)),
	}
}
