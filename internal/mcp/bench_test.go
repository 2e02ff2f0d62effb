package mcp_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillkit/skillkit/internal/mcp"
	"github.com/skillkit/skillkit/internal/realtool"
)

// BenchmarkEcho measures stdio calls to server-everything's echo tool
// once the server runs, through the pool and through a bare SDK client,
// and reports the median (the goal: 2 ms or less per call).
func BenchmarkEcho(b *testing.B) {
	everything := realtool.Find(b, "mcp-server-everything")
	args := map[string]any{"message": "hi"}
	b.Run("pool", func(b *testing.B) {
		pool := mcp.NewPool(mcp.Options{Config: config(&mcp.Server{Name: "everything", Command: everything})})
		defer pool.Close()
		ctx := context.Background()
		if _, err := pool.Call(ctx, "everything", "echo", args); err != nil {
			b.Fatal(err)
		}
		median(b, func() error { _, err := pool.Call(ctx, "everything", "echo", args); return err })
	})
	b.Run("sdk", func(b *testing.B) {
		ctx := context.Background()
		client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(everything)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		median(b, func() error {
			_, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args})
			return err
		})
	})
}

// median runs call b.N times and reports the median call in ms.
func median(b *testing.B, call func() error) {
	b.Helper()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms/call")
}
