package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNoStateUpdates is returned (wrapped) by ParseStateUpdates when the reply
// holds no JSON object with a stateUpdates field.
var ErrNoStateUpdates = errors.New("no JSON object with a \"stateUpdates\" field")

// ParseStateUpdates finds the state updates in an agent's reply: the last
// JSON object of the text that has a top-level "stateUpdates" field, in a
// ```json fence or bare among prose. The value must be an object; it is
// returned as is (dotted keys are applied later, by script.ApplyUpdates).
//
// A reply of `claude -p --output-format json` (an object whose "result"
// string is the model's text) is looked into as well.
func ParseStateUpdates(reply string) (map[string]any, error) {
	obj := lastWith(reply, "stateUpdates", 0)
	if obj == nil {
		return nil, fmt.Errorf("reading the agent's reply: %w; the reply ends with: %q", ErrNoStateUpdates, tail(reply, 200))
	}
	updates, ok := obj["stateUpdates"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("reading the agent's reply: \"stateUpdates\" is %s, want an object", jsonKind(obj["stateUpdates"]))
	}
	return updates, nil
}

// maxNesting bounds how deep lastWith looks into "result" strings that
// themselves hold JSON.
const maxNesting = 2

// lastWith returns the last top-level JSON object of text that has key,
// looking into the "result" string of an object that lacks it.
func lastWith(text, key string, depth int) map[string]any {
	var found map[string]any
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		obj, n := decodeObject(text[start:])
		if obj == nil {
			i = start + 1
			continue
		}
		i = start + n
		if _, ok := obj[key]; ok {
			found = obj
		} else if s, ok := obj["result"].(string); ok && depth < maxNesting {
			if inner := lastWith(s, key, depth+1); inner != nil {
				found = inner
			}
		}
	}
	return found
}

// decodeObject decodes the JSON object at the start of s and returns it with
// the number of bytes it took; nil when s does not start with one.
func decodeObject(s string) (map[string]any, int) {
	dec := json.NewDecoder(strings.NewReader(s))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, 0
	}
	return obj, int(dec.InputOffset())
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// tail returns at most n bytes from the end of s, cut at a rune boundary.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8Start(s[0]) {
		s = s[1:]
	}
	return "…" + s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// ErrNoSelection is wrapped by the error of a select reply that names no
// action: no {"action": …} object, or one whose value is neither a string
// nor null.
var ErrNoSelection = errors.New("the agent's reply selects no action")

// ParseSelect reads an agent's answer to a select prompt: the last JSON
// object of the reply with an "action" key, whose value is an action id or
// null (the loop ends). ok is false for null.
func ParseSelect(reply string) (id string, ok bool, err error) {
	obj := lastWith(reply, "action", 0)
	if obj == nil {
		return "", false, fmt.Errorf("%w: want {\"action\": \"<id>\"} or {\"action\": null}, got %q", ErrNoSelection, tail(strings.TrimSpace(reply), 120))
	}
	switch v := obj["action"].(type) {
	case nil:
		return "", false, nil
	case string:
		return v, true, nil
	default:
		return "", false, fmt.Errorf("%w: \"action\" is %s, want an id or null", ErrNoSelection, jsonKind(v))
	}
}

// ParseConfirm reads an agent's answer to a confirmation prompt: its last
// non-empty line, "yes" or "skip" (case and punctuation ignored), or the
// {"answer": …} object an adapter enforcing the JSON schema returns.
func ParseConfirm(reply string) (yes bool, err error) {
	if obj, _ := decodeObject(strings.TrimSpace(reply)); obj != nil {
		if a, ok := obj["answer"].(string); ok {
			reply = a
		}
	}
	lines := strings.Split(strings.TrimSpace(reply), "\n")
	last := strings.ToLower(strings.Trim(strings.TrimSpace(lines[len(lines)-1]), " .!*`\"'"))
	switch last {
	case "yes", "y":
		return true, nil
	case "skip", "no", "n":
		return false, nil
	}
	return false, fmt.Errorf("reading the agent's confirmation: want a last line \"yes\" or \"skip\", got %q", tail(last, 80))
}
