package argrule

import "sync"

// Cache keeps compiled programs by expression text, so that a gate that
// receives the same rules with every new configuration compiles each rule
// once rather than once per configuration. It is safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	limit    int
	programs map[string]compiled
}

// compiled is Compile's result, refusals included: a rule that does not
// compile does not compile the next time either.
type compiled struct {
	program *Program
	err     error
}

// NewCache returns a Cache of at most limit expressions (at least one).
// When it is full it starts afresh, so a limit above the number of rules
// one configuration holds keeps every rule in use compiled.
func NewCache(limit int) *Cache {
	return &Cache{limit: max(limit, 1), programs: map[string]compiled{}}
}

// Compile returns Compile(expression), compiling it only if the cache does
// not hold it.
func (c *Cache) Compile(expression string) (*Program, error) {
	c.mu.Lock()
	hit, ok := c.programs[expression]
	c.mu.Unlock()
	if ok {
		return hit.program, hit.err
	}
	p, err := Compile(expression)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.programs) >= c.limit {
		clear(c.programs)
	}
	c.programs[expression] = compiled{program: p, err: err}
	return p, err
}

// Len is the number of expressions the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.programs)
}
