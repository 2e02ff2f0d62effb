package script

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillkit/skillkit/plan"
)

// Question is one question of an AskUserQuestion call.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one choice of a Question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// key is what answers are filed under: the header, else the question.
func (q Question) key() string {
	if q.Header != "" {
		return q.Header
	}
	return q.Question
}

// Answerer answers the questions of a run: AskUserQuestion calls of skill
// code and the Confirm questions of steps.
type Answerer interface {
	// Ask answers each question: header (else question text) → the chosen
	// label; several labels of a multiSelect question are joined by ", ".
	Ask(ctx context.Context, qs []Question) (map[string]string, error)
	// Confirm answers a step's confirmation: plan.ConfirmYes, ConfirmSkip,
	// ConfirmAbort, or ConfirmAgent when the step's default leaves the
	// decision to the agent and nobody answered.
	Confirm(ctx context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error)
}

// ErrNoAnswer is wrapped by the error of a question nobody can answer.
var ErrNoAnswer = errors.New("no answer: run in a terminal, or pass --answers FILE or --yes")

// NoAnswers is the Answerer of a run with no terminal and no answers:
// questions fail, confirmations take their default.
type NoAnswers struct{}

// Ask fails: there is nobody to ask.
func (NoAnswers) Ask(_ context.Context, qs []Question) (map[string]string, error) {
	return nil, fmt.Errorf("AskUserQuestion %q: %w", questionNames(qs), ErrNoAnswer)
}

// Confirm returns the question's default.
func (NoAnswers) Confirm(_ context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error) {
	return confirmDefault(c), nil
}

func confirmDefault(c *plan.Confirm) plan.ConfirmAnswer {
	if c.Default == "" {
		return plan.ConfirmYes
	}
	return c.Default
}

func questionNames(qs []Question) string {
	var names []string
	for _, q := range qs {
		names = append(names, q.key())
	}
	return strings.Join(names, ", ")
}

// Yes is the Answerer of --yes: the first option of every question, yes to
// every confirmation.
type Yes struct{}

// Ask picks the first option of each question.
func (Yes) Ask(_ context.Context, qs []Question) (map[string]string, error) {
	out := map[string]string{}
	for _, q := range qs {
		if len(q.Options) == 0 {
			return nil, fmt.Errorf("AskUserQuestion %q has no options for --yes to pick: %w", q.key(), ErrNoAnswer)
		}
		out[q.key()] = q.Options[0].Label
	}
	return out, nil
}

// Confirm says yes.
func (Yes) Confirm(context.Context, *plan.Confirm) (plan.ConfirmAnswer, error) {
	return plan.ConfirmYes, nil
}

// FileAnswers are the answers of an --answers file: header (or question
// text) → label, or a list of labels for a multiSelect question.
// Confirmations are filed under their question text; a question the file
// does not answer gets its default.
type FileAnswers struct {
	Path    string
	answers map[string]any
}

// LoadAnswers reads an answers file, YAML or JSON (JSON is YAML).
func LoadAnswers(path string) (*FileAnswers, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the answers file: %w", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("reading the answers file %s: %w", path, err)
	}
	return &FileAnswers{Path: path, answers: m}, nil
}

// Ask looks each question up by header, then by question text.
func (f *FileAnswers) Ask(_ context.Context, qs []Question) (map[string]string, error) {
	out := map[string]string{}
	for _, q := range qs {
		v, ok := f.answers[q.Header]
		if !ok {
			v, ok = f.answers[q.Question]
		}
		if !ok {
			return nil, fmt.Errorf("AskUserQuestion %q: %s has no answer for it: %w", q.key(), f.Path, ErrNoAnswer)
		}
		label, err := labelOf(v)
		if err != nil {
			return nil, fmt.Errorf("%s: the answer to %q: %w", f.Path, q.key(), err)
		}
		out[q.key()] = label
	}
	return out, nil
}

func labelOf(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []any:
		var labels []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("want a label or a list of labels, got %v", v)
			}
			labels = append(labels, s)
		}
		return strings.Join(labels, ", "), nil
	case int, float64, bool:
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("want a label or a list of labels, got %v", v)
}

// Confirm looks the question up; without an entry the default applies.
func (f *FileAnswers) Confirm(_ context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error) {
	v, ok := f.answers[c.Question]
	if !ok {
		return confirmDefault(c), nil
	}
	if b, isBool := v.(bool); isBool {
		if b {
			return plan.ConfirmYes, nil
		}
		return plan.ConfirmSkip, nil
	}
	s, _ := v.(string)
	if a, ok := confirmAnswer(s); ok {
		return a, nil
	}
	return "", fmt.Errorf("%s: the answer to %q is %v, want yes, skip or abort", f.Path, c.Question, v)
}

func confirmAnswer(s string) (plan.ConfirmAnswer, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes":
		return plan.ConfirmYes, true
	case "s", "skip", "n", "no":
		return plan.ConfirmSkip, true
	case "a", "abort":
		return plan.ConfirmAbort, true
	}
	return "", false
}

// Terminal asks a person: questions and numbered options go to Out,
// answers are read from In line by line. The caller decides that In is a
// terminal.
type Terminal struct {
	In  io.Reader
	Out io.Writer

	once  sync.Once
	lines chan string
}

// readLines feeds t.lines from one reader goroutine, so that a question
// that timed out does not leave a read in flight that eats the next answer.
func (t *Terminal) readLines() {
	t.once.Do(func() {
		t.lines = make(chan string)
		go func() {
			sc := bufio.NewScanner(t.In)
			for sc.Scan() {
				t.lines <- sc.Text()
			}
			close(t.lines)
		}()
	})
}

// line waits for the next line; timeout zero waits until ctx ends.
func (t *Terminal) line(ctx context.Context, timeout time.Duration) (string, error) {
	t.readLines()
	var expire <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case l, ok := <-t.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(l), nil
	case <-expire:
		return "", errTimedOut
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

var errTimedOut = errors.New("no answer in time")

// Ask shows each question with numbered options and reads a number or a
// label; several numbers separated by commas for a multiSelect question.
func (t *Terminal) Ask(ctx context.Context, qs []Question) (map[string]string, error) {
	out := map[string]string{}
	for _, q := range qs {
		fmt.Fprintf(t.Out, "\n%s\n", q.Question)
		for i, o := range q.Options {
			fmt.Fprintf(t.Out, "  %d. %s", i+1, o.Label)
			if o.Description != "" {
				fmt.Fprintf(t.Out, " — %s", o.Description)
			}
			fmt.Fprintln(t.Out)
		}
		for {
			fmt.Fprint(t.Out, "> ")
			l, err := t.line(ctx, 0)
			if err != nil {
				return nil, fmt.Errorf("AskUserQuestion %q: %w", q.key(), err)
			}
			if label, ok := pick(q, l); ok {
				out[q.key()] = label
				break
			}
			fmt.Fprintf(t.Out, "Answer with an option number (1-%d) or a label.\n", len(q.Options))
		}
	}
	return out, nil
}

// pick reads an answer line: option numbers or a label; free text is
// accepted for a question with no options.
func pick(q Question, l string) (string, bool) {
	if l == "" {
		return "", false
	}
	if len(q.Options) == 0 {
		return l, true
	}
	var labels []string
	for _, part := range strings.Split(l, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		switch {
		case err == nil && n >= 1 && n <= len(q.Options):
			labels = append(labels, q.Options[n-1].Label)
		case err != nil && hasLabel(q, part):
			labels = append(labels, part)
		default:
			return "", false
		}
	}
	if len(labels) > 1 && !q.MultiSelect {
		return "", false
	}
	return strings.Join(labels, ", "), true
}

func hasLabel(q Question, label string) bool {
	for _, o := range q.Options {
		if strings.EqualFold(o.Label, label) {
			return true
		}
	}
	return false
}

// Confirm asks [y]es/[s]kip/[a]bort; with no answer before the question's
// timeout, or an empty line, the default applies.
func (t *Terminal) Confirm(ctx context.Context, c *plan.Confirm) (plan.ConfirmAnswer, error) {
	def := confirmDefault(c)
	for {
		fmt.Fprintf(t.Out, "%s [yes/skip/abort, default %s] ", c.Question, def)
		l, err := t.line(ctx, c.Timeout)
		if errors.Is(err, errTimedOut) || errors.Is(err, io.EOF) || (err == nil && l == "") {
			fmt.Fprintln(t.Out)
			return def, nil
		}
		if err != nil {
			return "", err
		}
		if a, ok := confirmAnswer(l); ok {
			return a, nil
		}
	}
}

// jsonQuestions reads the argument of AskUserQuestion.
func jsonQuestions(v any) ([]Question, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var arg struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal(data, &arg); err != nil || len(arg.Questions) == 0 {
		return nil, fmt.Errorf("AskUserQuestion wants {questions: [{question, header, options: [{label}]}]}")
	}
	return arg.Questions, nil
}
