package lint

import (
	"encoding/json"
	"sync"

	"github.com/skillkit/skillkit/internal/stateschema"
	"github.com/skillkit/skillkit/parse"
	"github.com/skillkit/skillkit/plan"
)

// Cache keeps what one lint of a skill learnt for the next lint of the
// same skill, so that an editor's lint after a change redoes only the
// work of what changed: the markdown parse of every file whose bytes are
// as they were, the parse of every code block whose text is as it was,
// and the state schema while it is unchanged. The parses are
// found through the skill LintSkill returned (plan.Blocks holds them
// weakly): keep it until the next lint, as the language server does.
// Each lint forgets what the skill no longer holds. Use one Cache per
// skill, from one goroutine at a time.
type Cache struct {
	docs   *parse.Docs
	parses *plan.Blocks
	run    *runCache
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{docs: parse.NewDocs(), parses: plan.NewBlocks(), run: newRunCache()}
}

func (c *Cache) documents() *parse.Docs {
	if c == nil {
		return nil
	}
	return c.docs
}

func (c *Cache) blocks() *plan.Blocks {
	if c == nil {
		return nil
	}
	return c.parses
}

// runCache returns the cache's run cache, a new one when there is none.
func (c *Cache) runCache() *runCache {
	if c == nil {
		return newRunCache()
	}
	return c.run
}

// sweep forgets what the last lint did not read.
func (c *Cache) sweep() {
	if c != nil {
		c.parses.Sweep()
		c.run.sweep()
	}
}

// runCache is what a lint run works out once for all its skills, by
// content, so that skills copied from one another (versions of a
// repository, a vendored copy) share the work; an editing session keeps
// it from one lint to the next while the content is unchanged. Safe for
// concurrent use.
type runCache struct {
	// schemas holds each state schema compiled, by its file and content:
	// compiling checks a schema against its draft's meta-schema, which
	// costs more than the rest of most skills' state rules.
	schemas onceCache[compiled]
	// filledBash holds whether a shell block that does not parse as
	// written parses with its template slots filled, by the block's
	// text: filling scans the text with a regexp, and every copy of such
	// a block asked again. (JavaScript blocks so filled are kept by
	// plan.Blocks, which holds their programs only while a skill does.)
	filledBash onceCache[bool]
}

func newRunCache() *runCache { return &runCache{} }

// compile returns the compiled schema of ss.
func (rc *runCache) compile(ss *plan.StateSchema) compiled {
	key, err := json.Marshal(ss.Schema)
	if err != nil {
		sch, err := stateschema.Compile(ss.File, ss.Schema)
		return compiled{sch, err}
	}
	return rc.schemas.get(ss.File+"\x00"+string(key), func() compiled {
		sch, err := stateschema.Compile(ss.File, ss.Schema)
		return compiled{sch, err}
	})
}

// sweep forgets what no lint read since the last sweep.
func (rc *runCache) sweep() {
	rc.schemas.sweep()
	rc.filledBash.sweep()
}

// onceCache works a value out once per key, whichever goroutine asks
// first; the others wait for it. The zero value is ready to use.
type onceCache[T any] struct {
	mu  sync.Mutex
	m   map[string]*onceEntry[T]
	gen int
}

type onceEntry[T any] struct {
	once sync.Once
	v    T
	gen  int
}

// get returns the value of key, working it out with f the first time.
func (c *onceCache[T]) get(key string, f func() T) T {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*onceEntry[T]{}
	}
	e := c.m[key]
	if e == nil {
		e = &onceEntry[T]{}
		c.m[key] = e
	}
	e.gen = c.gen
	c.mu.Unlock()
	e.once.Do(func() { e.v = f() })
	return e.v
}

// sweep forgets the keys no get asked for since the last sweep.
func (c *onceCache[T]) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if e.gen < c.gen {
			delete(c.m, k)
		}
	}
	c.gen++
}
