package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/mcp"
)

// TestHTTPServers calls a tool over streamable HTTP and over SSE, served
// by the official SDK's handlers, with the configured headers (expanded
// from .mcp.json) on every request.
func TestHTTPServers(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "whoami"}, func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil, nil
	})
	var mu sync.Mutex
	var auth []string
	withAuth := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auth = append(auth, r.Header.Get("Authorization"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	get := func(*http.Request) *sdk.Server { return server }
	streamable := httptest.NewServer(withAuth(sdk.NewStreamableHTTPHandler(get, nil)))
	defer streamable.Close()
	sse := httptest.NewServer(withAuth(sdk.NewSSEHandler(get, nil)))
	defer sse.Close()
	cfg, err := mcp.ParseProject(".mcp.json", []byte(`{"mcpServers": {
  "web": {"type": "http", "url": "`+streamable.URL+`", "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}},
  "old": {"type": "sse", "url": "`+sse.URL+`", "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}
}}`), func(k string) (string, bool) { return "t0k", k == "WEB_TOKEN" })
	if err != nil {
		t.Fatal(err)
	}
	pool := mcp.NewPool(mcp.Options{Config: cfg})
	defer pool.Close()
	for _, name := range []string{"web", "old"} {
		got, err := pool.Call(context.Background(), name, "whoami", nil)
		if err != nil || got != "hello" {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || strings.Join(auth, "") != strings.Repeat("Bearer t0k", len(auth)) {
		t.Errorf("Authorization headers: %q", auth)
	}
}
