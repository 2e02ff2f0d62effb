package runstore

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// AppendJSON appends e as one line of a log writes it (without the
// newline): what json.Marshal(e) writes, field for field, but by hand.
// A loop writes two events an iteration, and their reflective encoding,
// with the second pass encoding/json makes over what each Change and
// Mark encodes itself, was most of what recording one cost after the
// write. The fields a loop's lines seldom carry (a start, inputs, an
// error, the loop's record, a scope) are left to json.Marshal.
// A reader decodes the line as it decodes json.Marshal's: a string may
// keep the characters encoding/json escapes for HTML.
func (e *Event) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"time":"`...)
	if b, err = e.Time.AppendText(b); err != nil {
		return b, fmt.Errorf("encoding the event's time: %w", err)
	}
	b = append(b, '"')
	b = appendField(b, "run", e.Run)
	b = appendField(b, "phase", e.Phase)
	b = appendField(b, "action", e.Action)
	b = appendField(b, "step", e.Step)
	b = appendField(b, "from", string(e.From))
	b = append(b, `,"to":`...)
	b = appendString(b, string(e.To))
	b = appendField(b, "detail", e.Detail)
	if e.Start != nil {
		b = append(b, `,"start":`...)
		if b, err = appendMarshal(b, e.Start); err != nil {
			return b, err
		}
	}
	if len(e.State) > 0 {
		b = append(b, `,"state":`...)
		if b, err = appendMarshal(b, e.State); err != nil {
			return b, err
		}
	}
	if len(e.Patch) > 0 {
		b = append(b, `,"patch":[`...)
		for i, c := range e.Patch {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = c.appendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if e.Record != nil {
		b = append(b, `,"record":`...)
		if b, err = appendMarshal(b, e.Record); err != nil {
			return b, err
		}
	}
	if e.Done {
		b = append(b, `,"done":true`...)
	}
	for _, f := range []struct {
		name string
		v    any
		set  bool
	}{
		{"inputs", e.Inputs, len(e.Inputs) > 0},
		{"error", e.Error, e.Error != nil},
		{"loop", e.Loop, e.Loop != nil},
		{"agent", e.Agent, e.Agent != nil},
	} {
		if f.set {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			if b, err = appendMarshal(b, f.v); err != nil {
				return b, err
			}
		}
	}
	if m := e.Checkpoint; m != nil {
		b = append(b, `,"checkpoint":`...)
		if m.implied && m.timed {
			b = append(b, `{}`...)
		} else if b, err = appendMarshal(b, m); err != nil {
			return b, err
		}
	}
	if e.Position != 0 {
		b = append(b, `,"position":`...)
		b = strconv.AppendInt(b, int64(e.Position), 10)
	}
	if len(e.Scope) > 0 {
		b = append(b, `,"scope":`...)
		if b, err = appendMarshal(b, e.Scope); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendField appends ,"name":"value" unless value is empty (omitempty).
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

// appendMarshal appends json.Marshal's encoding of v.
func appendMarshal(b []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// AppendJSON appends m as a line of metrics.jsonl (without the newline):
// what json.Marshal(m) writes, by hand, as Event.AppendJSON; an action
// writes one.
func (m *Metric) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"time":"`...)
	if b, err = m.Time.AppendText(b); err != nil {
		return b, fmt.Errorf("encoding the metric's time: %w", err)
	}
	b = append(b, '"')
	b = appendField(b, "run", m.Run)
	b = append(b, `,"kind":`...)
	b = appendString(b, string(m.Kind))
	b = appendField(b, "phase", m.Phase)
	b = appendField(b, "action", m.Action)
	b = appendField(b, "step", m.Step)
	b = append(b, `,"duration_ms":`...)
	if b, err = appendFloat(b, m.DurationMS); err != nil {
		return b, err
	}
	b = append(b, `,"attempts":`...)
	b = strconv.AppendInt(b, int64(m.Attempts), 10)
	b = append(b, `,"outcome":`...)
	b = appendString(b, m.Outcome)
	b = appendField(b, "request", m.Request)
	b = appendInt(b, "call", m.Call)
	b = appendField(b, "session", m.Session)
	b = appendInt(b, "turns", m.Turns)
	if m.CostUSD != 0 {
		b = append(b, `,"cost_usd":`...)
		if b, err = appendFloat(b, m.CostUSD); err != nil {
			return b, err
		}
	}
	b = appendInt(b, "input_tokens", m.InputTokens)
	b = appendInt(b, "output_tokens", m.OutputTokens)
	b = appendInt(b, "context_window", m.ContextWindow)
	return append(b, '}'), nil
}

// appendInt appends ,"name":n unless n is 0 (omitempty).
func appendInt(b []byte, name string, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(n), 10)
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, with an exponent only below 1e-6 and from
// 1e21 on, and none of NaN or the infinities, which JSON has not.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
