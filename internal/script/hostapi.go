package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/dop251/goja"

	"github.com/skillkit/skillkit/internal/agent"
	"github.com/skillkit/skillkit/internal/proc"
)

// install gives the runtime the host API of DESIGN §3.3, each function
// made when code first reads it (globals).
func (ev *evaluation) install() { ev.globals.host = ev }

// hostAPI makes each global of the host API for an evaluation, when its
// code first reads it (globals).
var hostAPI = map[string]func(ev *evaluation) goja.Value{
	"Read":            func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.read) },
	"Write":           func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.write) },
	"Edit":            func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.edit) },
	"Bash":            func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.bash) },
	"Glob":            func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.glob) },
	"Grep":            func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.grep) },
	"AskUserQuestion": func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.askUser) },
	"Task":            func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.task) },
	"Agent":           func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.task) },
	"ExecuteScript":   func(ev *evaluation) goja.Value { return ev.vm.ToValue(ev.executeScript) },
	"console": func(ev *evaluation) goja.Value {
		console := ev.vm.NewObject()
		for name, prefix := range map[string]string{"log": "", "info": "", "debug": "", "warn": "warning: ", "error": "error: "} {
			_ = console.Set(name, ev.console(prefix))
		}
		return console
	},
	"MCP": (*evaluation).mcpObject,
}

// throw ends the current host call with a JS Error that skill code can
// catch; its message names the host function.
func (ev *evaluation) throw(fn string, err error) {
	panic(ev.hostError(fn, err))
}

// hostError is the JS Error of a failed host call: thrown, or the reason
// of a rejected promise.
func (ev *evaluation) hostError(fn string, err error) *goja.Object {
	if ctxErr := ev.ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		// The call failed because the evaluation ended: its cause (a
		// timeout, the heap budget) says why, where the context's error
		// says only that it ended.
		err = context.Cause(ev.ctx)
	}
	return ev.vm.NewGoError(fmt.Errorf("%s: %w", fn, err))
}

// args reads a call's arguments: positional, or one object of named
// fields (Claude Code's tool form, Read({file_path})). names lists the
// positional order and, for each, the object keys it may come under.
func (ev *evaluation) args(call goja.FunctionCall, names ...[]string) []any {
	out := make([]any, len(names))
	if first := call.Argument(0); len(call.Arguments) == 1 && isPlainObject(first) {
		obj, _ := first.Export().(map[string]any)
		for i, keys := range names {
			for _, k := range keys {
				if v, ok := obj[k]; ok {
					out[i] = v
					break
				}
			}
		}
		return out
	}
	for i := range names {
		if v := call.Argument(i); !goja.IsUndefined(v) && !goja.IsNull(v) {
			out[i] = v.Export()
		}
	}
	return out
}

func isPlainObject(v goja.Value) bool {
	obj, ok := v.(*goja.Object)
	return ok && obj.ClassName() == "Object"
}

func (ev *evaluation) str(fn string, v any, what string) string {
	s, ok := v.(string)
	if !ok || s == "" {
		ev.throw(fn, fmt.Errorf("want %s as a non-empty string, got %v", what, v))
	}
	return s
}

func (ev *evaluation) path(fn, p string) string {
	abs, err := ev.h.roots.resolve(p)
	if err != nil {
		ev.throw(fn, err)
	}
	return abs
}

// read: Read(path) → the file's content, the path found by lookup.
func (ev *evaluation) read(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"file_path", "path"})
	data, err := ev.h.roots.readFile(ev.lookup("Read", ev.str("Read", a[0], "a path")))
	if err != nil {
		ev.throw("Read", err)
	}
	return ev.vm.ToValue(string(data))
}

// readBases are where a relative path to read is looked for, in order: the
// work dir, then the skill folder, then the project. Skills read their own
// specs ('specs/rules.json') and the project ('src/**/*.ts') by relative
// paths, and what Glob finds there must be readable by Read and Grep.
func (ev *evaluation) readBases() []string {
	bases := []string{ev.h.opts.WorkDir}
	for _, d := range []string{ev.h.opts.SkillDir, ev.h.opts.ProjectDir} {
		if d != "" {
			bases = append(bases, d)
		}
	}
	return bases
}

// lookup resolves a path to read: an absolute path as it is, a relative
// one in the first of readBases where it exists (else in the work dir, so
// the error names that). Every candidate is confined to the roots.
func (ev *evaluation) lookup(fn, p string) string {
	if filepath.IsAbs(p) {
		return ev.path(fn, p)
	}
	var first string
	for _, base := range ev.readBases() {
		abs := ev.path(fn, filepath.Join(base, p))
		if first == "" {
			first = abs
		}
		if _, err := os.Stat(abs); err == nil {
			return abs
		}
	}
	return first
}

// write: Write(path, content); parent directories are created. A
// non-string content is written as indented JSON.
func (ev *evaluation) write(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"file_path", "path"}, []string{"content"})
	abs := ev.path("Write", ev.str("Write", a[0], "a path"))
	content, ok := a[1].(string)
	if !ok && a[1] != nil {
		data, err := json.MarshalIndent(a[1], "", "  ")
		if err != nil {
			ev.throw("Write", err)
		}
		content = string(data)
	}
	ev.settle("Write")
	if err := ev.h.roots.writeFile(abs, []byte(content)); err != nil {
		ev.throw("Write", err)
	}
	return goja.Undefined()
}

// edit: Edit(path, old, new[, replaceAll]) replaces the one occurrence of
// old; like Claude Code's Edit it fails when old is missing or, without
// replaceAll, not unique.
func (ev *evaluation) edit(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"file_path", "path"}, []string{"old_string"}, []string{"new_string"}, []string{"replace_all"})
	abs := ev.path("Edit", ev.str("Edit", a[0], "a path"))
	old := ev.str("Edit", a[1], "the text to replace")
	repl, _ := a[2].(string)
	all, _ := a[3].(bool)
	data, err := ev.h.roots.readFile(abs)
	if err != nil {
		ev.throw("Edit", err)
	}
	n := strings.Count(string(data), old)
	switch {
	case n == 0:
		ev.throw("Edit", fmt.Errorf("%s does not contain %q", a[0], old))
	case n > 1 && !all:
		ev.throw("Edit", fmt.Errorf("%s contains %q %d times; pass replaceAll or more context", a[0], old, n))
	}
	count := 1
	if all {
		count = -1
	}
	out := strings.Replace(string(data), old, repl, count)
	ev.settle("Edit")
	if err := ev.h.roots.writeFile(abs, []byte(out)); err != nil {
		ev.throw("Edit", err)
	}
	return goja.Undefined()
}

// bash: Bash(command) → stdout; a non-zero exit throws with stderr.
func (ev *evaluation) bash(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"command"})
	cmd := ev.str("Bash", a[0], "a command")
	res, err := ev.h.Shell(ev.ctx, cmd, nil)
	if err != nil {
		ev.throw("Bash", err)
	}
	if res.StdoutCut > 0 {
		// Handing the code the end of its output as if it were all of
		// it would be worse than failing.
		ev.throw("Bash", fmt.Errorf("%q printed more than the %d bytes kept (--output-tail); write its output to a file and Read it", cmd, len(res.Stdout)))
	}
	if res.ExitCode != 0 {
		ev.throw("Bash", fmt.Errorf("%q exited with status %d: %s", cmd, res.ExitCode, strings.TrimSpace(res.Stderr)))
	}
	return ev.vm.ToValue(res.Stdout)
}

// glob: Glob(pattern[, {cwd}]) → matching files, sorted; relative to the
// work dir (or cwd) for a relative pattern, absolute for an absolute one.
// Like Read, a relative pattern with no match in the work dir is tried in
// the skill folder, then the project, and its matches are relative to the
// first that has some.
func (ev *evaluation) glob(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"pattern"}, []string{"cwd", "path"})
	pattern := filepath.ToSlash(ev.str("Glob", a[0], "a pattern"))
	if opts, ok := a[1].(map[string]any); ok {
		a[1] = opts["cwd"]
	}
	abs := strings.HasPrefix(pattern, "/") || filepath.IsAbs(filepath.FromSlash(pattern))
	bases := ev.readBases()
	switch cwd, _ := a[1].(string); {
	case abs:
		bases = []string{string(filepath.Separator)}
	case cwd != "":
		bases = []string{ev.path("Glob", cwd)}
	}
	segs := segments(pattern)
	lit := 0
	for lit < len(segs)-1 && !hasMagic(segs[lit]) && !strings.Contains(segs[lit], "{") && segs[lit] != "**" {
		lit++
	}
	prefix := strings.Join(segs[:lit], "/")
	for i, base := range bases {
		dir := ev.path("Glob", filepath.Join(base, filepath.FromSlash(prefix)))
		matches, err := glob(dir, strings.Join(segs[lit:], "/"))
		if err != nil {
			ev.throw("Glob", err)
		}
		if len(matches) == 0 && i < len(bases)-1 {
			continue
		}
		out := make([]any, len(matches))
		for j, m := range matches {
			if abs {
				out[j] = filepath.ToSlash(filepath.Join(dir, m))
			} else {
				out[j] = pathJoin(prefix, m)
			}
		}
		return ev.vm.ToValue(out)
	}
	return ev.vm.ToValue([]any{})
}

func pathJoin(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// grep: Grep(pattern, path[, {glob, output_mode, "-i"}]) searches files
// with a Go regexp. path is a file, a directory (searched recursively) or
// an array of files; default the work dir. output_mode "content"
// (default) gives [{file, line, text}], "files_with_matches" the file
// names, "count" [{file, count}].
func (ev *evaluation) grep(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"pattern"}, []string{"path"}, []string{"glob"}, []string{"output_mode"}, []string{"-i"})
	if opts, ok := a[2].(map[string]any); ok {
		a[2], a[3], a[4] = opts["glob"], opts["output_mode"], opts["-i"]
	}
	expr := ev.str("Grep", a[0], "a pattern")
	if ci, _ := a[4].(bool); ci {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		ev.throw("Grep", err)
	}
	var targets []string
	switch p := a[1].(type) {
	case nil:
		targets = []string{"."}
	case string:
		targets = []string{p}
	case []any:
		for _, e := range p {
			targets = append(targets, ev.str("Grep", e, "a path"))
		}
	default:
		ev.throw("Grep", fmt.Errorf("want a path or an array of paths, got %v", p))
	}
	filter, _ := a[2].(string)
	mode, _ := a[3].(string)
	var files []grepFile
	for _, t := range targets {
		files = append(files, ev.grepFiles(t, filter)...)
	}
	var out []any
	for _, gf := range files {
		f := gf.show
		data, err := ev.h.roots.readFile(gf.abs)
		if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			continue // unreadable or binary
		}
		count := 0
		for i, line := range strings.Split(string(data), "\n") {
			if !re.MatchString(line) {
				continue
			}
			count++
			if mode == "" || mode == "content" {
				out = append(out, map[string]any{"file": f, "line": i + 1, "text": line})
			}
		}
		switch {
		case count == 0:
		case mode == "files_with_matches":
			out = append(out, f)
		case mode == "count":
			out = append(out, map[string]any{"file": f, "count": count})
		}
	}
	if out == nil {
		out = []any{}
	}
	return ev.vm.ToValue(out)
}

// grepFile is a file to search: its path as the caller wrote it (for the
// results) and where it is.
type grepFile struct{ show, abs string }

// grepFiles lists the files to search under target, found as Read finds
// a path.
func (ev *evaluation) grepFiles(target, filter string) []grepFile {
	abs := ev.lookup("Grep", target)
	info, err := os.Stat(abs)
	if err != nil {
		ev.throw("Grep", err)
	}
	if !info.IsDir() {
		return []grepFile{{target, abs}}
	}
	var files []grepFile
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		if filter != "" {
			name := rel
			if !strings.Contains(filter, "/") {
				name = d.Name()
			}
			if !globMatchAny(filter, name) {
				return nil
			}
		}
		// A link inside the folder may point out of the roots: skip it
		// rather than read outside them.
		if confined, err := ev.h.roots.resolve(p); err == nil {
			files = append(files, grepFile{filepath.ToSlash(filepath.Join(target, rel)), confined})
		}
		return nil
	})
	return files
}

func globMatchAny(pattern, name string) bool {
	for _, p := range expandBraces(pattern) {
		if globMatch(segments(p), strings.Split(name, "/")) {
			return true
		}
	}
	return false
}

// askUser: AskUserQuestion({questions}) → {[header]: label}, the same
// answers also under each question's text.
func (ev *evaluation) askUser(call goja.FunctionCall) goja.Value {
	qs, err := jsonQuestions(call.Argument(0).Export())
	if err != nil {
		ev.throw("AskUserQuestion", err)
	}
	ev.settle("AskUserQuestion")
	answers, err := ev.h.opts.Answers.Ask(ev.ctx, qs)
	if err != nil {
		ev.throw("AskUserQuestion", err)
	}
	out := map[string]any{}
	for _, q := range qs {
		if v, ok := answers[q.key()]; ok {
			out[q.key()] = v
			if q.Question != "" {
				out[q.Question] = v
			}
		}
	}
	return ev.vm.ToValue(out)
}

// task: Task({prompt, description, subagent_type}) / Agent(...) → a
// promise of the agent's reply. The call is numbered now, in the order
// the code makes calls; its command runs on a goroutine once one of the
// host's slots is free, so that calls made together (Promise.all) run side
// by side.
func (ev *evaluation) task(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"prompt"}, []string{"description"}, []string{"subagent_type"})
	if ev.h.agent == nil {
		ev.throw("Task", agent.ErrNoAgent)
	}
	t := agent.Task{Prompt: ev.str("Task", a[0], "a prompt")}
	t.Description, _ = a[1].(string)
	t.SubagentType, _ = a[2].(string)
	c, err := ev.h.agentContext(ev.ctx)
	if err != nil {
		ev.throw("Task", err)
	}
	prompt, err := agent.TaskPrompt(c, t)
	if err != nil {
		ev.throw("Task", err)
	}
	ev.settle("Task")
	pending, err := ev.h.agent.Begin(prompt)
	if err != nil {
		ev.throw("Task", err)
	}
	p, resolve, reject := ev.vm.NewPromise()
	if ev.ended == nil {
		ev.ended = make(chan func() error)
	}
	ev.calls++
	go func() {
		select {
		case ev.h.slots <- struct{}{}:
			pending.Run(ev.ctx)
			<-ev.h.slots
		case <-ev.ctx.Done():
			// The evaluation is over: the call fails at once.
			pending.Run(ev.ctx)
		}
		ev.ended <- func() error {
			reply, err := pending.End()
			switch {
			case ev.broken != nil:
				return nil
			case ev.ctx.Err() != nil:
				// The evaluation timed out or was stopped: that, not
				// the killed call, is its error.
				return context.Cause(ev.ctx)
			case err != nil:
				return reject(ev.hostError("Task", err))
			}
			return resolve(reply)
		}
	}()
	return ev.vm.ToValue(p)
}

// scriptRunners are the interpreters of skill scripts, by extension.
var scriptRunners = []struct{ ext, cmd string }{{".sh", "bash"}, {".py", "python3"}}

// executeScript: ExecuteScript(id, args) runs scripts/<id>.sh or .py of
// the skill with args as --key-name value flags (an array: positional
// arguments) → {success, exitCode, stdout, stderr, outputs}, outputs being
// the JSON object on the last line of stdout. A failing script does not
// throw; a missing one does.
func (ev *evaluation) executeScript(call goja.FunctionCall) goja.Value {
	a := ev.args(call, []string{"id", "script"}, []string{"args", "inputs"})
	id := ev.str("ExecuteScript", a[0], "a script id")
	if strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") {
		ev.throw("ExecuteScript", fmt.Errorf("%q is not a script id (a file name under scripts/, without extension)", id))
	}
	var path, runner string
	for _, r := range scriptRunners {
		p := filepath.Join(ev.h.opts.SkillDir, "scripts", id+r.ext)
		if _, err := os.Stat(p); err == nil {
			path, runner = ev.path("ExecuteScript", p), r.cmd
			break
		}
	}
	if path == "" {
		ev.throw("ExecuteScript", fmt.Errorf("no scripts/%s.sh or scripts/%s.py in the skill", id, id))
	}
	args := append([]string{path}, scriptArgs(a[1])...)
	ev.settle("ExecuteScript")
	res, err := proc.Run(ev.ctx, proc.Cmd{Name: runner, Args: args, Dir: ev.h.opts.WorkDir, Env: append(os.Environ(), ev.h.env...), Tail: ev.h.opts.OutputTail})
	if err != nil {
		ev.throw("ExecuteScript", err)
	}
	outputs := jsonObject(lastLine(res.Stdout))
	if outputs == nil {
		outputs = map[string]any{}
	}
	return ev.vm.ToValue(map[string]any{
		"success": res.ExitCode == 0, "exitCode": res.ExitCode,
		"stdout": res.Stdout, "stderr": res.Stderr, "outputs": outputs,
	})
}

// scriptArgs turns ExecuteScript's arguments into a command line: object
// keys become --key-name flags (_ → -) in sorted order, arrays are
// positional, non-strings are JSON.
func scriptArgs(v any) []string {
	str := func(x any) string {
		if s, ok := x.(string); ok {
			return s
		}
		data, _ := json.Marshal(x)
		return string(data)
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, "--"+strings.ReplaceAll(k, "_", "-"), str(x[k]))
		}
	case []any:
		for _, e := range x {
			out = append(out, str(e))
		}
	case nil:
	default:
		out = append(out, str(x))
	}
	return out
}

// console returns console.log and friends: arguments joined by spaces,
// objects as JSON, one line to the log.
func (ev *evaluation) console(prefix string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		parts := make([]string, len(call.Arguments))
		for i, v := range call.Arguments {
			parts[i] = v.String()
			if obj, ok := v.(*goja.Object); ok && obj.ClassName() != "Error" && obj.ClassName() != "Function" {
				if j, err := fromJS(ev.globals.g, v); err == nil {
					if data, err := json.Marshal(j); err == nil {
						parts[i] = string(data)
					}
				}
			}
		}
		fmt.Fprintln(ev.h.log, prefix+strings.Join(parts, " "))
		return goja.Undefined()
	}
}

// jsonObject decodes s as a JSON object, nil when it is not one.
func jsonObject(s string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &m); err != nil {
		if l := lastLine(s); l != strings.TrimSpace(s) {
			return jsonObject(l)
		}
		return nil
	}
	return m
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}
