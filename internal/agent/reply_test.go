package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseStateUpdates(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  map[string]any
		err   string
	}{
		{name: "bare", reply: `{"stateUpdates": {"a": 1}}`, want: map[string]any{"a": 1.0}},
		{
			name:  "fenced among prose",
			reply: "Done.\n```json\n{\n  \"stateUpdates\": {\"status\": \"running\"}\n}\n```\nBye {not json}",
			want:  map[string]any{"status": "running"},
		},
		{
			name:  "last one wins",
			reply: `first {"stateUpdates": {"n": 1}} then {"stateUpdates": {"n": 2}} and {"other": true}`,
			want:  map[string]any{"n": 2.0},
		},
		{
			name:  "nested objects inside are not candidates",
			reply: `{"stateUpdates": {"ctx": {"stateUpdates": "inner"}}}`,
			want:  map[string]any{"ctx": map[string]any{"stateUpdates": "inner"}},
		},
		{
			name:  "claude json output",
			reply: `{"type":"result","result":"Done.\n` + "```json" + `\n{\"stateUpdates\": {\"x\": true}}\n` + "```" + `"}`,
			want:  map[string]any{"x": true},
		},
		{name: "dotted keys kept", reply: `{"stateUpdates": {"context.files": []}}`, want: map[string]any{"context.files": []any{}}},
		{name: "none", reply: "I could not do it.", err: "no JSON object"},
		{name: "empty", reply: "", err: "no JSON object"},
		{name: "broken json", reply: `{"stateUpdates": {"a": 1}`, err: "no JSON object"},
		{name: "not an object", reply: `{"stateUpdates": [1]}`, err: "is an array, want an object"},
		{name: "null", reply: `{"stateUpdates": null}`, err: "is null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStateUpdates(tt.reply)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseConfirm(t *testing.T) {
	tests := []struct {
		reply string
		yes   bool
		err   bool
	}{
		{reply: "The file exists.\nyes", yes: true},
		{reply: "**Skip.**", yes: false},
		{reply: "YES\n\n", yes: true},
		{reply: "maybe", err: true},
		{reply: "", err: true},
	}
	for _, tt := range tests {
		yes, err := ParseConfirm(tt.reply)
		if (err != nil) != tt.err || yes != tt.yes {
			t.Errorf("ParseConfirm(%q) = %v, %v; want %v, error %v", tt.reply, yes, err, tt.yes, tt.err)
		}
	}
}

func FuzzParseStateUpdates(f *testing.F) {
	for _, seed := range []string{
		`{"stateUpdates": {"a": 1}}`,
		"text\n```json\n{\"stateUpdates\": {\"b\": [1, 2]}}\n```\n",
		`{"type":"result","result":"{\"stateUpdates\": {}}"}`,
		`{{{"stateUpdates"`,
		`{"stateUpdates": "x"} {"stateUpdates": {"c": null}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		updates, err := ParseStateUpdates(reply)
		if err == nil && updates == nil {
			t.Fatal("no error and no updates")
		}
		if err != nil && updates != nil {
			t.Fatal("an error and updates")
		}
		if err == nil {
			// What was found must survive a round trip: it came from JSON.
			if _, merr := json.Marshal(updates); merr != nil {
				t.Fatalf("updates %v do not encode: %v", updates, merr)
			}
		}
	})
}

func BenchmarkParseStateUpdates(b *testing.B) {
	reply := strings.Repeat("I read the files and {found} a few things.\n", 50) +
		"```json\n{\"stateUpdates\": {\"status\": \"running\", \"context.files\": [\"a.go\", \"b.go\"]}}\n```\n"
	for b.Loop() {
		if _, err := ParseStateUpdates(reply); err != nil {
			b.Fatal(err)
		}
	}
}
