package mcpserve

import (
	"context"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/run"
	"github.com/skillkit/skillkit/parse"
)

// skill is a skill the server serves.
type skill struct {
	// name is its prompt's name; rel its folder relative to Base, in
	// its resource's URI.
	name, rel   string
	dir         string
	description string
}

// loadSkill reads what the server lists of the skill in dir: its name
// and description. Its text is read again at each request, so that an
// edit shows without a restart.
func loadSkill(base, dir string) (*skill, error) {
	// A skill is served as its SKILL.md: one without (the Codex layout's
	// phases/ alone) has nothing to serve as a resource or a prompt.
	if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
		return nil, fmt.Errorf("%s: no SKILL.md", dir)
	}
	// The listing needs no content hash, which reads every data file.
	s, err := parse.DirWith(dir, parse.Options{NoHash: true})
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(base, dir)
	// A folder outside Base is named by its own path; one whose name
	// only starts with two dots ("..drafts") is inside.
	if err != nil || !filepath.IsLocal(rel) {
		rel = dir
	}
	desc := ""
	if f := s.FrontMatter.Get("description"); f != nil {
		desc = fmt.Sprint(f.Value)
	}
	return &skill{name: s.Name, rel: filepath.ToSlash(rel), dir: dir, description: desc}, nil
}

// uri is the skill's resource: its SKILL.md.
func (sk *skill) uri() string { return "skillkit://skill/" + sk.rel + "/SKILL.md" }

func (sk *skill) resource() *mcp.Resource {
	return &mcp.Resource{URI: sk.uri(), Name: sk.name, Title: sk.name, Description: sk.description, MIMEType: "text/markdown"}
}

// skillResource returns the skill's SKILL.md as it is now.
func (h *handlers) skillResource(sk *skill) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return sk.read(sk.uri(), "SKILL.md")
	}
}

// read is the file name of the skill as the resource uri. The file is
// opened through an os.Root of the skill's folder, so no "..", absolute
// path or symbolic link reaches outside it; what is not found there is
// the protocol's "resource not found".
func (sk *skill) read(uri, name string) (*mcp.ReadResourceResult, error) {
	root, err := os.OpenRoot(sk.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := root.ReadFile(name)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: mimeType(name)}
	if utf8.Valid(data) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// prompt is the skill as Claude Code invokes it: one optional argument,
// the skill's arguments as typed after its name.
func (sk *skill) prompt() *mcp.Prompt {
	return &mcp.Prompt{Name: sk.name, Title: sk.name, Description: sk.description,
		Arguments: []*mcp.PromptArgument{{Name: "arguments", Description: "the skill's arguments, separated by spaces ($ARGUMENTS)"}}}
}

// skillPrompt is the skill's instructions with its variables substituted,
// as run hands them to an agent.
func (h *handlers) skillPrompt(sk *skill) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		s, err := parse.DirWith(sk.dir, parse.Options{NoHash: true})
		if err != nil {
			return nil, err
		}
		args := strings.Fields(req.Params.Arguments["arguments"])
		text := run.VarsOf(s, args, "").Instructions(s.Instructions)
		return &mcp.GetPromptResult{Description: sk.description,
			Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	}
}

// fileTemplate is every file of a served skill: its phases, actions and
// specifications, for a client that read SKILL.md and follows its links.
const fileTemplate = "skillkit://skill/{+path}"

func fileResources() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{URITemplate: fileTemplate, Name: "skill-file", Title: "A file of a skill",
		Description: "skillkit://skill/<folder>/<file>: a file of a served skill, by its path in the skill folder (phases/01-collect.md)"}
}

// skillFile reads a file of a served skill (skill.read); a URI under
// no served skill is not found.
func (h *handlers) skillFile(skills []*skill) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		rest, _ := strings.CutPrefix(uri, "skillkit://skill/")
		var sk *skill
		for _, c := range skills {
			// The longest folder wins: a skill inside another's folder
			// is its own.
			if strings.HasPrefix(rest, c.rel+"/") && (sk == nil || len(c.rel) > len(sk.rel)) {
				sk = c
			}
		}
		if sk == nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return sk.read(uri, strings.TrimPrefix(rest, sk.rel+"/"))
	}
}

// mimeType is a skill file's type, by its extension: skills are markdown
// with some scripts and data beside.
func mimeType(name string) string {
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	if strings.HasSuffix(name, ".md") {
		return "text/markdown"
	}
	return "text/plain"
}
