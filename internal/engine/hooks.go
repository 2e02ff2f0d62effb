package engine

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/skillkit/skillkit/internal/proc"
	"github.com/skillkit/skillkit/plan"
)

// Hook points a skill may attach commands to; plan defines them, so that
// lint and the runtime read the same hooks.
const (
	HookPostPhase  = plan.HookPostPhase
	HookPostAction = plan.HookPostAction
	HookOnError    = plan.HookOnError
	HookPostRun    = plan.HookPostRun
)

// HookTimeout bounds one hook command.
const HookTimeout = 5 * time.Minute

// Hooks are a skill's hook commands by hook point, in declaration order.
type Hooks map[string][]plan.Hook

// LoadHooks reads a skill's hook commands (plan.Skill.Hooks), adds
// the commands of its worker.yaml w, and files them by hook point.
func LoadHooks(s *plan.Skill, w *plan.Worker) (Hooks, error) {
	list, err := s.Hooks()
	if err != nil {
		return nil, err
	}
	h := Hooks{}
	for _, hk := range append(list, w.Hooks...) {
		h[hk.Point] = append(h[hk.Point], hk)
	}
	return h, nil
}

// RunHooks runs the skill's commands for a hook point, in the work dir,
// with the run's environment plus SKILL_HOOK and the given variables. It
// stops at the first command that fails.
func (r *Runner) RunHooks(ctx context.Context, point string, vars map[string]string) error {
	if len(r.o.Hooks[point]) == 0 {
		return nil
	}
	if err := r.o.Run.Flush(); err != nil {
		return err
	}
	env := append(os.Environ(), r.o.Env...)
	env = append(env, "SKILL_HOOK="+point)
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	for _, h := range r.o.Hooks[point] {
		hctx, cancel := context.WithTimeout(ctx, HookTimeout)
		res, err := proc.Run(hctx, proc.Cmd{Name: "sh", Args: []string{"-c", h.Command}, Dir: r.o.Run.WorkDir(), Env: env})
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
