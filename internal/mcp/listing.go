package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListingDir is the folder, beside the file that configures a server,
// where `skillkit mcp tools --save` writes its listing.
const ListingDir = ".mcp-tools"

// Listing is a server's tools as `skillkit mcp tools --save` keeps them:
// a committed file that lint reads instead of starting the server.
type Listing struct {
	Server string `json:"server"`
	Tools  []Tool `json:"tools"`
}

// Tool is one tool of a listing.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's JSON Schema for its arguments.
	InputSchema any `json:"inputSchema,omitempty"`
}

// ListingOf makes the listing of a server's tools.
func ListingOf(server string, tools []*sdk.Tool) *Listing {
	l := &Listing{Server: server, Tools: []Tool{}}
	for _, t := range tools {
		l.Tools = append(l.Tools, Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return l
}

// ListingPath is where the listing of server is kept, for a server
// configured in a file of dir: by the name skills call it, so that
// `skillkit mcp tools` (the configured name) and lint (the name in the
// code) find one file.
func ListingPath(dir, server string) string {
	return filepath.Join(dir, ListingDir, NamePart(server)+".json")
}

// Save writes the listing under dir and returns its path.
func (l *Listing) Save(dir string) (string, error) {
	path := ListingPath(dir, l.Server)
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("saving the tools of %s: %w", l.Server, err)
	}
	return path, nil
}

// LoadListing reads the saved listing of server under dir; nil, nil when
// there is none.
func LoadListing(dir, server string) (*Listing, error) {
	path := ListingPath(dir, server)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var l Listing
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}
