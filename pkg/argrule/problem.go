package argrule

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
)

// Kind says what is wrong with an expression.
type Kind string

const (
	// Syntax means the expression does not parse.
	Syntax Kind = "Syntax"
	// Type means the expression does not type-check: an unknown variable,
	// field or function, operands of the wrong types, a result that is
	// not a bool, an invalid literal pattern.
	Type Kind = "Type"
	// UnknownArgument means the expression names an argument the tool's input
	// schema does not declare.
	UnknownArgument Kind = "UnknownArgument"
	// Cost means the expression's estimated worst-case cost is over
	// CostBudget.
	Cost Kind = "Cost"
)

// Problem is one reason an expression cannot be used as a rule.
type Problem struct {
	// Kind says what is wrong.
	Kind Kind
	// Argument is the argument named, as the expression reaches it
	// (args.options.depth, args.items[*].name), for UnknownArgument.
	Argument string
	// Line and Column locate the problem in the expression, from 1; 0
	// when it concerns the whole expression.
	Line, Column int
	// Message is one line for a person: the position, if any, and what is
	// wrong.
	Message string
}

// Error implements error.
func (p Problem) Error() string { return p.Message }

// issueProblems turns CEL's issues into problems of one kind.
func issueProblems(kind Kind, iss *cel.Issues) []Problem {
	var problems []Problem
	for _, e := range iss.Errors() {
		line, column := 0, 0
		if e.Location != nil && e.Location.Line() > 0 {
			line, column = e.Location.Line(), e.Location.Column()+1
		}
		problems = append(problems, newProblem(kind, line, column, oneLine(e.Message)))
	}
	return problems
}

func newProblem(kind Kind, line, column int, message string) Problem {
	p := Problem{Kind: kind, Line: line, Column: column, Message: message}
	if line > 0 {
		p.Message = fmt.Sprintf("%d:%d: %s", line, column, message)
	}
	return p
}

// oneLine keeps a message on one line, as conditions and logs show it.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
