package runstore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"time"

	"maps"
)

// EncodeProgress is the content of skill-state.yaml. It is written by hand, not by
// yaml.Marshal, because the file is rewritten after every step and
// yaml.v3's reflection made that write dominate a run of trivial steps
// (its completedSteps list grows with the run). Every string is emitted as
// a JSON string, which is a valid YAML double-quoted scalar, so no value
// can break the document. Times are RFC 3339 in double quotes: the
// specification's examples write them as strings (shared/seeds/002), and
// a plain scalar would reach a YAML loader as a timestamp instead.
func EncodeProgress(p *Progress) []byte {
	var out bytes.Buffer
	_ = WriteProgress(&out, p)
	return out.Bytes()
}

// WriteProgress writes EncodeProgress's content to w as it goes: a long
// loop's file is megabytes, which a buffer of it whole (and its growth)
// made the peak of the run's memory.
func WriteProgress(w io.Writer, p *Progress) error {
	b := bufio.NewWriterSize(w, 64<<10)
	str := func(key, v string) { b.WriteString(key + ": " + quote(v) + "\n") }
	num := func(key string, n int) { b.WriteString(key + ": " + strconv.Itoa(n) + "\n") }
	str("skillVersion", p.SkillVersion)
	b.WriteString("startedAt: " + stamp(p.StartedAt) + "\n")
	str("currentPhase", p.CurrentPhase)
	num("currentStep", p.CurrentStep)
	num("totalSteps", p.TotalSteps)
	if p.CompletedSteps.Len() == 0 {
		b.WriteString("completedSteps: []\n")
	} else {
		b.WriteString("completedSteps:\n")
		writeSteps(b, p.CompletedSteps)
	}
	b.WriteString("checklistStatus:\n")
	for _, k := range slices.Sorted(maps.Keys(p.ChecklistStatus)) {
		b.WriteString("  " + quote(k) + ": " + quote(p.ChecklistStatus[k]) + "\n")
	}
	str("lastAction", p.LastAction)
	if e := p.Error; e == nil {
		b.WriteString("error: null\n")
	} else {
		b.WriteString("error:\n")
		num("  step", e.Step)
		str("  message", e.Message)
		b.WriteString("  diagnostics:\n")
		list(b, "    console", e.Diagnostics.Console)
		str("    stderr", e.Diagnostics.Stderr)
		str("    stdout", e.Diagnostics.Stdout)
		list(b, "    files", e.Diagnostics.Files)
		if e.Diagnostics.Screenshot != "" {
			str("    screenshot", e.Diagnostics.Screenshot)
		}
		if e.ID != "" {
			str("  id", e.ID)
		}
	}
	if p.CompletedAt == nil {
		b.WriteString("completedAt: null\n")
	} else {
		b.WriteString("completedAt: " + stamp(*p.CompletedAt) + "\n")
	}
	str("runState", string(p.RunState))
	str("skillHash", p.SkillHash)
	str("runId", p.RunID)
	str("skill", p.Skill)
	if p.SkillRelease != "" {
		str("skillRelease", p.SkillRelease)
	}
	str("skillDir", p.SkillDir)
	str("mode", p.Mode)
	str("phase", p.Phase)
	if len(p.Inputs) > 0 {
		b.WriteString("inputs:\n")
		for _, k := range slices.Sorted(maps.Keys(p.Inputs)) {
			b.WriteString("  " + quote(k) + ": " + quote(p.Inputs[k]) + "\n")
		}
	}
	list(b, "completedPhases", p.CompletedPhases)
	if l := p.Loop; l != nil {
		b.WriteString("loop:\n")
		num("  iteration", l.Iteration)
		num("  maxIterations", l.MaxIterations)
		if l.CurrentAction != "" {
			str("  currentAction", l.CurrentAction)
		}
		if l.LastAction != "" {
			str("  lastAction", l.LastAction)
		}
		num("  completed", l.Completed)
		num("  errorCount", l.ErrorCount)
	}
	if len(p.Args) > 0 {
		list(b, "args", p.Args)
	}
	if p.SessionID != "" {
		str("sessionId", p.SessionID)
	}
	return b.Flush()
}

// writeSteps writes the records of completedSteps, a long loop's
// thousands of them at each snapshot: made in one buffer, what a
// record shares with its kind (Steps) encoded once per kind, as
// quote and stamp would.
func writeSteps(b *bufio.Writer, steps Steps) {
	type lines struct{ head, tail []byte }
	kinds := map[*stepKind]lines{}
	var line []byte
	for i, a := range steps.at {
		k, ok := kinds[a.kind]
		if !ok {
			r := a.kind.rec
			k.head = []byte("    status: " + r.Status + "\n    evidenceCaptured: " + strconv.FormatBool(r.EvidenceCaptured) + "\n")
			tail := "\n    id: " + quote(r.ID) + "\n"
			if r.Title != "" {
				tail += "    title: " + quote(r.Title) + "\n"
			}
			if r.Skipped {
				tail += "    skipped: true\n"
			}
			k.tail = []byte(tail + "    result: " + string(r.Result) + "\n")
			kinds[a.kind] = k
		}
		line = append(line[:0], "  - step: "...)
		line = strconv.AppendInt(line, int64(i+1), 10)
		line = append(line, '\n')
		line = append(line, k.head...)
		line = append(line, "    timestamp: "...)
		line = appendStamp(line, steps.time(i))
		line = append(line, k.tail...)
		b.Write(line)
	}
}

func list(b *bufio.Writer, key string, items []string) {
	if len(items) == 0 {
		b.WriteString(key + ": []\n")
		return
	}
	indent := len(key) - len(bytes.TrimLeft([]byte(key), " "))
	b.WriteString(key + ":\n")
	for _, s := range items {
		b.WriteString(string(bytes.Repeat([]byte(" "), indent+2)) + "- " + quote(s) + "\n")
	}
}

func quote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func stamp(t time.Time) string { return string(appendStamp(nil, t)) }

// appendStamp appends t as stamp writes it: RFC 3339 in double quotes,
// which it needs no escaping in.
func appendStamp(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
