// Package membudget is an allowance of memory, in bytes, that concurrent
// work takes from and gives back: the operator's probes share one, the
// gate's tools/list decodes another.
//
// Taking never waits. Work that cannot get its share fails at once: if
// waiting holders each kept part of the allowance, they could starve one
// another until their deadlines. A nil *Budget is unlimited.
package membudget
