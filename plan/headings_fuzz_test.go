package plan

import (
	"regexp"
	"testing"
)

// FuzzStepHeading holds StepHeading, which reads a heading by hand, to
// the expression it stands for.
func FuzzStepHeading(f *testing.F) {
	for _, s := range []string{
		"Step 1", "Step 2.1: Title", "Step 3 - Title", "step 4 — Done", "STEP 5．x", "步骤 2", "步骤3：标题",
		"Steps 2", "Step", "Step x", "Step 1..2", "Step 1.a", "Step 1.2.", "Step\t7 :  spaced ", "ſtep 1", "Step 1\nmore",
		"Step 1 –", "Step 12: a: b", "Stepper 1", "Step 1\r", "Step \xff1", "Step 1 \xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		number, title, ok := StepHeading(text)
		m := stepHeading.FindStringSubmatch(text)
		if ok != (m != nil) || ok && (number != m[1] || title != m[2]) {
			t.Fatalf("StepHeading(%q) = %q, %q, %v; the expression: %q", text, number, title, ok, m)
		}
	})
}

// FuzzNormalizeHeading holds normalizeHeading's shortcut for plain
// headings to the full normalization.
func FuzzNormalizeHeading(f *testing.F) {
	for _, s := range []string{"Execution", "State Updates", "1. Execution", "**Bold**", "Ends:", "两 个", "Two  spaces", " lead", "trail ", "tab\there", "Ünïcode Wörds", "nbsp\u00a0x", "执行流程（Execution）", "Output：", "bad \xff byte"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if got, want := normalizeHeading(h), normalizeFull(h); got != want {
			t.Fatalf("normalizeHeading(%q) = %q, want %q", h, got, want)
		}
	})
}

// gloss is what trimGloss drops, as an expression.
var gloss = regexp.MustCompile(`\s*[(（][^()（）]*[)）]$`)

// FuzzTrimGloss holds trimGloss, which reads a heading by hand, to the
// expression it stands for.
func FuzzTrimGloss(f *testing.F) {
	for _, s := range []string{
		"Execution Flow (执行流程)", "执行流程（Execution）", "a ()", ")", "(x))", "x (a (b))", "x (a) (b)", "a\t\n(b)",
		"（）", "a (b）", "a （b)", "no gloss", "x \xff(y)", "\xe4（y）", " (x)", "a)(b)", "a (b\nc)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if got, want := trimGloss(h), gloss.ReplaceAllString(h, ""); got != want {
			t.Fatalf("trimGloss(%q) = %q, want %q", h, got, want)
		}
	})
}

// FuzzSectionKey holds SectionKey's shortcut for plain ASCII headings to
// the full reading.
func FuzzSectionKey(f *testing.F) {
	for _, s := range []string{"Execution", "State Updates", "Initial State Template", "initial statement", "EXECUTION", "Execution Flow (x)", "Step 1", "1. Execution", "Execution:", "执行流程", "Schema", "a  b", "State updates ", "Ünïcode"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if got, ok := sectionKeyASCII(h); ok {
			if want := sectionKeyFull(h); got != want {
				t.Fatalf("sectionKeyASCII(%q) = %q, want %q", h, got, want)
			}
		}
	})
}
