package lint

import (
	"encoding/json"
	"sync"

	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/plan"
)

// Cache keeps what one lint of a skill learnt for the next lint of the
// same skill, so that an editor's lint after a change redoes only the
// work of what changed: the parse of every code block whose text is as
// it was, and the state schema while it is unchanged. The parses are
// found through the skill LintSkill returned (plan.Blocks holds them
// weakly): keep it until the next lint, as the language server does.
// Each lint forgets what the skill no longer holds. Use one Cache per
// skill, from one goroutine at a time.
type Cache struct {
	parses  *plan.Blocks
	schemas *schemaCache
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{parses: plan.NewBlocks(), schemas: newSchemaCache()} }

func (c *Cache) blocks() *plan.Blocks {
	if c == nil {
		return nil
	}
	return c.parses
}

// schemaCache returns the cache's compiled schemas, a new cache when
// there is none.
func (c *Cache) schemaCache() *schemaCache {
	if c == nil {
		return newSchemaCache()
	}
	return c.schemas
}

// sweep forgets what the last lint did not read.
func (c *Cache) sweep() {
	if c != nil {
		c.parses.Sweep()
		c.schemas.sweep()
	}
}

// schemaCache compiles each state schema once, by its file and content:
// once per lint run (skills copied from one another share theirs, and
// compiling checks a schema against its draft's meta-schema, which costs
// more than the rest of most skills' state rules), and once per editing
// session while the schema is unchanged. Safe for concurrent use.
type schemaCache struct {
	mu  sync.Mutex
	m   map[string]*schemaEntry
	gen int
}

type schemaEntry struct {
	once sync.Once
	c    compiled
	gen  int
}

func newSchemaCache() *schemaCache { return &schemaCache{m: map[string]*schemaEntry{}} }

// compile returns the compiled schema of ss.
func (sc *schemaCache) compile(ss *plan.StateSchema) compiled {
	key, err := json.Marshal(ss.Schema)
	if err != nil {
		sch, err := stateschema.Compile(ss.File, ss.Schema)
		return compiled{sch, err}
	}
	k := ss.File + "\x00" + string(key)
	sc.mu.Lock()
	e := sc.m[k]
	if e == nil {
		e = &schemaEntry{}
		sc.m[k] = e
	}
	e.gen = sc.gen
	sc.mu.Unlock()
	e.once.Do(func() {
		sch, err := stateschema.Compile(ss.File, ss.Schema)
		e.c = compiled{sch, err}
	})
	return e.c
}

// sweep forgets the schemas no lint compiled since the last sweep.
func (sc *schemaCache) sweep() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for k, e := range sc.m {
		if e.gen < sc.gen {
			delete(sc.m, k)
		}
	}
	sc.gen++
}
