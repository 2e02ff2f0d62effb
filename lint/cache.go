package lint

import "github.com/skillkit/skillkit/plan"

// Cache keeps what one lint of a skill learnt for the next lint of the
// same skill, so that an editor's lint after a change redoes only the
// work of what changed: the parse of every code block whose text is as
// it was. Each lint forgets what the skill no longer holds. Use one
// Cache per skill, from one goroutine at a time.
type Cache struct {
	parses *plan.Blocks
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{parses: plan.NewBlocks()} }

func (c *Cache) blocks() *plan.Blocks {
	if c == nil {
		return nil
	}
	return c.parses
}

// sweep forgets what the last lint did not read.
func (c *Cache) sweep() {
	if c != nil {
		c.parses.Sweep()
	}
}
