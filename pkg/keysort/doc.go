// Package keysort sorts the keys of a decoded JSON object in byte order,
// as slices.Sort would, faster for the small objects that tool schemas are
// made of. The decoder sorts the members of every object of every tool
// once, in this order, and the poisoning scan's schema walk and the
// inference's parameter list read them in it: it must agree with
// slices.Sort exactly, as findings and reasons follow the order.
package keysort
