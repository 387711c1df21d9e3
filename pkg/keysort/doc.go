// Package keysort sorts the keys of a decoded JSON object in byte order,
// as slices.Sort would, faster for the small objects that tool schemas are
// made of. The decoder's canonical form, the poisoning scan's schema walk
// and the inference's parameter list all sort keys on every object of
// every tool, and must agree with slices.Sort exactly: findings, reasons
// and fingerprints follow the order.
package keysort
