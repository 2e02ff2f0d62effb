package scaffold

import (
	"errors"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillkit/skillkit/plan"
)

func TestBetween(t *testing.T) {
	num := func(major, minor int, letter string) plan.Number {
		return plan.Number{Major: major, Minor: minor, Letter: letter}
	}
	tests := []struct {
		prev, next plan.Number
		last       bool
		want       string
		wantErr    bool
	}{
		{prev: num(1, 0, ""), next: num(2, 0, ""), want: "1.5"},
		{prev: num(1, 0, ""), next: num(1, 5, ""), want: "1.2"},
		{prev: num(1, 5, ""), next: num(2, 0, ""), want: "1.7"},
		{prev: num(1, 7, ""), next: num(2, 0, ""), want: "1.8"},
		{prev: num(1, 8, ""), next: num(2, 0, ""), want: "1.9"},
		{prev: num(1, 9, ""), next: num(2, 0, ""), wantErr: true},
		{prev: num(1, 1, ""), next: num(1, 2, ""), wantErr: true},
		{prev: num(3, 0, ""), next: num(3, 0, "a"), wantErr: true},
		{prev: num(3, 0, "a"), next: num(4, 0, ""), want: "3.5"},
		{prev: num(2, 25, ""), next: num(3, 0, ""), want: "2.62"},
		{prev: num(3, 0, ""), last: true, want: "4"},
		{prev: num(9, 5, ""), last: true, want: "10"},
	}
	for _, tc := range tests {
		var next *plan.Phase
		if !tc.last {
			next = &plan.Phase{Number: tc.next}
		}
		got, err := between(tc.prev, next)
		if tc.wantErr {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("between(%v, %v) = %v, %v; want ErrInvalid", tc.prev, tc.next, got, err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("between(%v, %v) = %v, %v; want %s", tc.prev, tc.next, got, err, tc.want)
		}
		if !tc.prev.Less(got) || !tc.last && !got.Less(tc.next) {
			t.Errorf("between(%v, %v) = %v does not sort between them", tc.prev, tc.next, got)
		}
	}
}

// addCase grows a generated skill and checks the tree against a golden one.
type addCase struct {
	name        string
	opts        Options
	add         func(dir string) ([]string, error)
	wantChanged []string
	wantPhases  []string
	// addedAction must run when the loop is driven.
	addedAction string
}

func TestAdd(t *testing.T) {
	tests := []addCase{
		{
			name: "add-phase-after-01", opts: Options{Mode: plan.ModeSequential},
			add:         func(dir string) ([]string, error) { return AddPhase(dir, "x", "01") },
			wantChanged: []string{"phases/01.5-x.md", "phases/01-collect.md", "SKILL.md"},
			wantPhases:  []string{"01-collect.md", "01.5-x.md", "02-analyze.md", "03-report.md"},
		},
		{
			name: "add-phase-last", opts: Options{Mode: plan.ModeSequential},
			add:         func(dir string) ([]string, error) { return AddPhase(dir, "publish", "") },
			wantChanged: []string{"phases/04-publish.md", "phases/03-report.md", "SKILL.md"},
			wantPhases:  []string{"01-collect.md", "02-analyze.md", "03-report.md", "04-publish.md"},
		},
		{
			name: "add-phase-hybrid", opts: Options{Mode: plan.ModeHybrid},
			add:         func(dir string) ([]string, error) { return AddPhase(dir, "review", "2") },
			wantChanged: []string{"phases/02.5-review.md", "phases/02-orchestrator.md", "SKILL.md"},
			wantPhases:  []string{"01-init.md", "02-orchestrator.md", "02.5-review.md", "03-finalize.md"},
		},
		{
			name: "add-action", opts: Options{Mode: plan.ModeAutonomous},
			add:         func(dir string) ([]string, error) { return AddAction(dir, "notify") },
			wantChanged: []string{"phases/orchestrator.md", "specs/action-catalog.md", "phases/actions/action-notify.md"},
			addedAction: "action-notify",
		},
		{
			name: "add-action-hybrid", opts: Options{Mode: plan.ModeHybrid, Actions: []string{"load", "save"}},
			add:         func(dir string) ([]string, error) { return AddAction(dir, "action-check") },
			wantChanged: []string{"phases/02-orchestrator.md", "specs/action-catalog.md", "phases/actions/action-check.md"},
			addedAction: "action-check",
			wantPhases:  []string{"01-init.md", "02-orchestrator.md", "03-finalize.md"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), tc.name)
			tc.opts.Name, tc.opts.Dir = tc.name, filepath.Dir(root)
			if _, err := New(tc.opts); err != nil {
				t.Fatal(err)
			}
			changed, err := tc.add(root)
			if err != nil {
				t.Fatal(err)
			}
			var rel []string
			for _, c := range changed {
				r, _ := filepath.Rel(root, c)
				rel = append(rel, filepath.ToSlash(r))
			}
			if !slices.Equal(rel, tc.wantChanged) {
				t.Errorf("changed %v, want %v", rel, tc.wantChanged)
			}
			s := checkSkill(t, root, tc.opts.Mode)
			var phases []string
			for _, p := range s.Phases {
				phases = append(phases, path.Base(p.Doc.File))
			}
			if !slices.Equal(phases, tc.wantPhases) {
				t.Errorf("phases = %v, want %v", phases, tc.wantPhases)
			}
			if tc.addedAction != "" {
				if _, ran := drive(t, s, t.TempDir(), initialState(t, s), nil); !slices.Contains(ran, tc.addedAction) {
					t.Errorf("%s never ran: %v", tc.addedAction, ran)
				}
			}
			golden(t, tc.name, readTree(t, root))
		})
	}
}

func TestAddRefuses(t *testing.T) {
	tests := []struct {
		name string
		mode plan.Mode
		add  func(dir string) ([]string, error)
		want error
	}{
		{"phase exists", plan.ModeSequential, func(d string) ([]string, error) { return AddPhase(d, "analyze", "01") }, ErrExists},
		{"bad phase name", plan.ModeSequential, func(d string) ([]string, error) { return AddPhase(d, "Bad", "01") }, ErrInvalid},
		{"unknown --after", plan.ModeSequential, func(d string) ([]string, error) { return AddPhase(d, "x", "07") }, ErrInvalid},
		{"phase in autonomous", plan.ModeAutonomous, func(d string) ([]string, error) { return AddPhase(d, "x", "") }, ErrInvalid},
		{"reserved phase", plan.ModeSequential, func(d string) ([]string, error) { return AddPhase(d, "orchestrator", "") }, ErrInvalid},
		{"action exists", plan.ModeAutonomous, func(d string) ([]string, error) { return AddAction(d, "process") }, ErrExists},
		{"bad action name", plan.ModeAutonomous, func(d string) ([]string, error) { return AddAction(d, "a--b") }, ErrInvalid},
		{"action in sequential", plan.ModeSequential, func(d string) ([]string, error) { return AddAction(d, "x") }, ErrInvalid},
		{"no number left", plan.ModeSequential, func(d string) ([]string, error) {
			for _, n := range []string{"a", "b", "c"} {
				if _, err := AddPhase(d, n, "01"); err != nil {
					return nil, err
				}
			}
			// 01, 01.1, 01.2, 01.5: nothing fits between 01 and 01.1.
			return AddPhase(d, "d", "01")
		}, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "s")
			if _, err := New(Options{Name: "s", Mode: tc.mode, Dir: filepath.Dir(root)}); err != nil {
				t.Fatal(err)
			}
			before := readTree(t, root)
			files, err := tc.add(root)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if len(files) != 0 {
				t.Errorf("returned files %v on failure", files)
			}
			if tc.name == "no number left" {
				return
			}
			if after := readTree(t, root); !maps.Equal(before, after) {
				t.Error("a refused add changed the skill")
			}
		})
	}
}
