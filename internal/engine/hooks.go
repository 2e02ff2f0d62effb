package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/plan"
)

// Hook points a skill may attach commands to.
const (
	// HookPostPhase runs after a phase verified, before it counts as
	// completed; a failing command fails the phase.
	HookPostPhase = "post_phase"
	// HookPostAction is the same after an action.
	HookPostAction = "post_action"
	// HookOnError runs after a phase or action failed (each attempt).
	HookOnError = "on_error"
	// HookPostRun runs once the run reached a terminal state.
	HookPostRun = "post_run"
)

var hookPoints = []string{HookPostPhase, HookPostAction, HookOnError, HookPostRun}

// HookTimeout bounds one hook command.
const HookTimeout = 5 * time.Minute

// ConfigFile is the skill's own configuration beside SKILL.md; the engine
// reads its hooks key.
const ConfigFile = "skillkit.yaml"

// Hook is one command a skill attached to a hook point.
type Hook struct {
	Command string
	// Pos is where the command was declared.
	Pos plan.Pos
}

// Hooks are a skill's hook commands by hook point, in declaration order.
type Hooks map[string][]Hook

// LoadHooks reads a skill's hook commands: a hooks map in the entry
// document's front matter metadata, then the hooks key of skillkit.yaml in
// the skill folder. Each value is a command or a list of commands:
//
//	metadata:
//	  hooks:
//	    post_phase: ./scripts/check.sh
//	    on_error: [notify-send "skill failed"]
func LoadHooks(s *plan.Skill) (Hooks, error) {
	h := Hooks{}
	if f := s.FrontMatter.Get("metadata"); f != nil {
		if meta, ok := f.Value.(map[string]any); ok && meta["hooks"] != nil {
			m, ok := meta["hooks"].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: metadata.hooks: want a map of hook point to command", f.ValuePos)
			}
			for _, point := range slices.Sorted(maps.Keys(m)) {
				if err := h.add(point, m[point], f.ValuePos); err != nil {
					return nil, fmt.Errorf("%s: metadata.hooks.%s: %w", f.ValuePos, point, err)
				}
			}
		}
	}
	if err := h.loadConfig(s.Dir); err != nil {
		return nil, err
	}
	return h, nil
}

// add adds the commands of a hook point: a command or a list of them.
func (h Hooks) add(point string, v any, pos plan.Pos) error {
	if !slices.Contains(hookPoints, point) {
		return fmt.Errorf("unknown hook point %q (want one of %s)", point, strings.Join(hookPoints, ", "))
	}
	cmds, err := commands(v)
	if err != nil {
		return err
	}
	for _, c := range cmds {
		h[point] = append(h[point], Hook{Command: c, Pos: pos})
	}
	return nil
}

// loadConfig reads the hooks key of skillkit.yaml, with positions.
func (h Hooks) loadConfig(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading hooks: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", ConfigFile, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "hooks" {
			continue
		}
		m := root.Content[i+1]
		if m.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: hooks: want a map of hook point to command", pos(m))
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			var v any
			if err := m.Content[j+1].Decode(&v); err != nil {
				return fmt.Errorf("%s: %w", pos(m.Content[j+1]), err)
			}
			if err := h.add(m.Content[j].Value, v, pos(m.Content[j+1])); err != nil {
				return fmt.Errorf("%s: hooks.%s: %w", pos(m.Content[j]), m.Content[j].Value, err)
			}
		}
	}
	return nil
}

func pos(n *yaml.Node) plan.Pos { return plan.Pos{File: ConfigFile, Line: n.Line, Col: n.Column} }

// commands accepts a command or a list of commands.
func commands(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case []any:
		var out []string
		for _, c := range v {
			s, ok := c.(string)
			if !ok {
				return nil, fmt.Errorf("want a command string, got %v", c)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a command or a list of commands, got %v", v)
}

// RunHooks runs the skill's commands for a hook point, in the work dir,
// with the run's environment plus SKILL_HOOK and the given variables. It
// stops at the first command that fails.
func (r *Runner) RunHooks(ctx context.Context, point string, vars map[string]string) error {
	env := append(os.Environ(), r.Env...)
	env = append(env, "SKILL_HOOK="+point)
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	if len(r.Hooks[point]) > 0 {
		if err := r.Run.Flush(); err != nil {
			return err
		}
	}
	for _, h := range r.Hooks[point] {
		hctx, cancel := context.WithTimeout(ctx, HookTimeout)
		res, err := proc.Run(hctx, proc.Cmd{Name: "sh", Args: []string{"-c", h.Command}, Dir: r.Run.WorkDir(), Env: env})
		cancel()
		r.log("hooks", fmt.Sprintf("$ %s  # %s\n%s%s", h.Command, point, res.Stdout, res.Stderr))
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit status %d%s", res.ExitCode, tailNote(res.Stderr))
		}
		if err != nil {
			return fmt.Errorf("%s: %s hook %q: %w", h.Pos, point, h.Command, err)
		}
	}
	return nil
}

// runHooks runs the hooks of a unit with SKILL_UNIT, SKILL_UNIT_KIND and,
// after an error, SKILL_ERROR in their environment.
func (r *Runner) runHooks(ctx context.Context, point string, spec *UnitSpec, err error) error {
	vars := map[string]string{"SKILL_UNIT": spec.ID, "SKILL_UNIT_KIND": string(spec.Kind)}
	if err != nil {
		vars["SKILL_ERROR"] = err.Error()
	}
	return r.RunHooks(ctx, point, vars)
}
