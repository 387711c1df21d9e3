// Package crdschema reads the schemas of toolgate's generated CRDs for
// tests: a field's schema by its path, and validation of a value against it
// with the API server's own schema validator. A test can so prove that what
// a writer produces is admitted (enums, bounds, types), and that a constant
// in Go matches the marker it mirrors, without starting a control plane.
//
// It does not evaluate CEL rules (x-kubernetes-validations); the tests
// against a real API server do.
package crdschema
