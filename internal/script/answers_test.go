package script

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/testfs"
	"github.com/skillkit/skillkit/plan"
)

var questions = []Question{
	{Question: "Which target?", Header: "Target", Options: []Option{{Label: "src/"}, {Label: "lib/"}}},
	{Question: "Which checks?", Header: "Checks", MultiSelect: true, Options: []Option{{Label: "lint"}, {Label: "test"}, {Label: "bench"}}},
}

func TestAnswerers(t *testing.T) {
	dir := t.TempDir()
	yamlFile := filepath.Join(dir, "answers.yaml")
	testfs.WriteFile(t, yamlFile, "Target: lib/\nChecks: [lint, bench]\n\"Overwrite report?\": skip\n")
	jsonFile := filepath.Join(dir, "answers.json")
	testfs.WriteFile(t, jsonFile, `{"Which target?": "src/", "Checks": "test", "Overwrite report?": true}`)
	fromYAML, err := LoadAnswers(yamlFile)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := LoadAnswers(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	confirm := &plan.Confirm{Question: "Overwrite report?", Default: plan.ConfirmAbort}
	other := &plan.Confirm{Question: "Something else?", Default: plan.ConfirmSkip}
	tests := []struct {
		name      string
		a         Answerer
		want      map[string]string
		confirm   plan.ConfirmAnswer
		otherWant plan.ConfirmAnswer
	}{
		{"yaml file", fromYAML, map[string]string{"Target": "lib/", "Checks": "lint, bench"}, plan.ConfirmSkip, plan.ConfirmSkip},
		{"json file", fromJSON, map[string]string{"Target": "src/", "Checks": "test"}, plan.ConfirmYes, plan.ConfirmSkip},
		{"yes", Yes{}, map[string]string{"Target": "src/", "Checks": "lint"}, plan.ConfirmYes, plan.ConfirmYes},
		{"terminal", &Terminal{In: strings.NewReader("9\n2\n1, 3\nabort\n\n"), Out: io.Discard}, map[string]string{"Target": "lib/", "Checks": "lint, bench"}, plan.ConfirmAbort, plan.ConfirmSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.a.Ask(context.Background(), questions)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Ask = %v, want %v", got, tt.want)
			}
			if c, err := tt.a.Confirm(context.Background(), confirm); err != nil || c != tt.confirm {
				t.Errorf("Confirm = %q, %v; want %q", c, err, tt.confirm)
			}
			if c, err := tt.a.Confirm(context.Background(), other); err != nil || c != tt.otherWant {
				t.Errorf("Confirm(other) = %q, %v; want %q", c, err, tt.otherWant)
			}
		})
	}
}

func TestNoAnswers(t *testing.T) {
	if _, err := (NoAnswers{}).Ask(context.Background(), questions); !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "--answers") {
		t.Errorf("err = %v", err)
	}
	c, err := NoAnswers{}.Confirm(context.Background(), &plan.Confirm{Question: "q", Default: plan.ConfirmAgent})
	if err != nil || c != plan.ConfirmAgent {
		t.Errorf("Confirm = %q, %v; want the default", c, err)
	}
	file := filepath.Join(t.TempDir(), "a.yaml")
	testfs.WriteFile(t, file, "Other: x\n")
	fa, err := LoadAnswers(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fa.Ask(context.Background(), questions); !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "a.yaml") {
		t.Errorf("missing answer: err = %v", err)
	}
	if _, err := LoadAnswers(filepath.Join(t.TempDir(), "none.yaml")); err == nil {
		t.Error("want an error for a missing file")
	}
}

func TestTerminalConfirmTimeout(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	term := &Terminal{In: r, Out: io.Discard}
	c, err := term.Confirm(context.Background(), &plan.Confirm{Question: "Go?", Default: plan.ConfirmSkip, Timeout: 50 * time.Millisecond})
	if err != nil || c != plan.ConfirmSkip {
		t.Errorf("Confirm = %q, %v; want the default on timeout", c, err)
	}
}

func TestAskUserQuestionFromJS(t *testing.T) {
	f := newFixture(t)
	h := f.host(t, func(o *Options) { o.Answers = Yes{} })
	st, err := f.step(t, h, `const a = await AskUserQuestion({questions: [{question: "Which target?", header: "Target", options: [{label: "src/"}, {label: "lib/"}]}]}); state.t = [a["Target"], a["Which target?"]]`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st["t"], []any{"src/", "src/"}) {
		t.Errorf("answers = %v", st["t"])
	}
	_, err = f.step(t, f.host(t, nil), `AskUserQuestion({questions: [{question: "q", header: "H", options: []}]})`)
	if !errors.Is(err, ErrNoAnswer) {
		t.Errorf("no answerer: err = %v", err)
	}
}
