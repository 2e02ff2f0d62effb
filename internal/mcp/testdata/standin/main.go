// Command standin is an MCP server for skillkit's tests, built on the
// official Go SDK: the tools a test needs (ace-tool's search_context among
// them, which cannot be installed here), and the ways a server goes wrong.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mode := flag.String("mode", "", "how to misbehave: exit, silent, garbage")
	flag.Parse()
	if f := os.Getenv("STANDIN_PIDFILE"); f != "" {
		// For a test to find the server when its runner is gone.
		os.WriteFile(f, []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	switch *mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "standin: cannot open the index")
		os.Exit(3)
	case "silent":
		// Reads its input and never answers, not even initialize.
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		time.Sleep(time.Hour)
	case "garbage":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println(`{"jsonrpc": "2.0", "id": oops}`)
		}
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "standin", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes a message"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Message string `json:"message"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
	type searchIn struct {
		ProjectRootPath string `json:"project_root_path"`
		Query           string `json:"query"`
	}
	// search_context answers as ace-tool does, in text: the files of the
	// project whose content holds a word of the query (of five letters
	// or more).
	mcp.AddTool(s, &mcp.Tool{Name: "search_context", Description: "Searches the code base for context"},
		func(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
			var words []string
			for _, w := range strings.Fields(strings.ToLower(in.Query)) {
				if len(w) >= 5 {
					words = append(words, strings.Trim(w, ":,."))
				}
			}
			var hits []string
			filepath.WalkDir(in.ProjectRootPath, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || len(hits) >= 5 {
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return nil
				}
				for _, w := range words {
					if strings.Contains(strings.ToLower(string(data)), w) {
						hits = append(hits, p)
						break
					}
				}
				return nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Found %d files for %q:\n%s", len(hits), in.Query, strings.Join(hits, "\n"))}}}, nil, nil
		})
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two numbers, structured"},
		func(_ context.Context, _ *mcp.CallToolRequest, in point) (*mcp.CallToolResult, struct {
			Sum int `json:"sum"`
		}, error) {
			return nil, struct {
				Sum int `json:"sum"`
			}{in.X + in.Y}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the index is locked")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			time.Sleep(time.Hour)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Answers with n bytes of text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			N int `json:"n"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.N)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
