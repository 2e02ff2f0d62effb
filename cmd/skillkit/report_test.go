package main

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillkit/skillkit/internal/testfs"
)

// TestReportInChromium renders the report of a run that failed at a step,
// after two completed steps and an action, in headless Chromium: the
// timeline and the error panel with the step's file:line must be in the
// page as a browser builds it, and the screenshot must show something.
func TestReportInChromium(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	check(t, outcome{ExitFailed, `upload failed`}, "run", "testdata/report/publish", "--workdir", run, "--progress", "plain")
	page := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runLimited(t, limit, "report", run, "--html", page)
	if code != 0 || strings.TrimSpace(stdout) != page {
		t.Fatalf("skillkit report: exit %d, printed %q\n%s", code, stdout, stderr)
	}
	html := testfs.ReadFile(t, page)
	// Self-contained: nothing to fetch.
	if m := regexp.MustCompile(`(?i)<script|<link|\bsrc=|url\((?:["']?)http`).FindString(html); m != "" {
		t.Errorf("the report loads something: %q", m)
	}

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed: skipping the browser check (apt-get install chromium)")
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	browse := headless(t, chromium, page)
	dom := browse("--dump-dom")
	for _, want := range []string{`<svg id="timeline"`, `<section id="error">`,
		`<code id="error-where">phases/03-publish.md:8:1</code>`, "upload failed: no such host publish.invalid",
		`<svg id="graph"`, "action-tally"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	browse("--screenshot=" + shot)
	if n := inkedPixels(t, shot); n < 5000 {
		t.Errorf("the screenshot %s has %d pixels that are not white: a blank page?", shot, n)
	}
}

// headless returns a function that opens page in headless Chromium with
// the arguments it is given (--dump-dom, --screenshot=FILE), offline, in
// a profile of its own, and returns what Chromium printed.
func headless(t *testing.T, chromium, page string) func(args ...string) string {
	profile := t.TempDir()
	return func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + profile, "--window-size=1200,900"}, args...)
		out, err := exec.CommandContext(ctx, chromium, append(args, "file://"+page)...).Output()
		if err != nil {
			t.Fatalf("chromium %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
}

// TestInterruptedReportInChromium: examples/agent-driven run without an
// agent stops in its first action; resumed with its stand-in agent, it
// completes. Its report, as Chromium builds it, counts 3 steps of 3, draws
// the interrupted try as its own bar in the interrupted colour with its
// label, puts the interrupted status in the legend, and gives the wait
// for the resume apart from the working time.
func TestInterruptedReportInChromium(t *testing.T) {
	tmp := t.TempDir()
	skill := filepath.Join(tmp, "agent-driven")
	must(t, os.CopyFS(skill, os.DirFS(filepath.Join(repoRoot(t), "examples", "agent-driven"))))
	run := filepath.Join(tmp, "run")
	check(t, outcome{ExitFailed, `interrupted`}, "run", skill, "--workdir", run, "--progress", "plain")
	time.Sleep(1100 * time.Millisecond) // an idle second before the resume
	check(t, outcome{ExitOK, `completed`}, "run", skill, "--resume", run, "--agent", filepath.Join(skill, "fake-agent.sh"), "--progress", "plain")
	page := filepath.Join(tmp, "report.html")
	if code, _, stderr := runLimited(t, limit, "report", run, "--html", page); code != 0 {
		t.Fatalf("skillkit report: exit %d\n%s", code, stderr)
	}
	html := testfs.ReadFile(t, page)
	idle := regexp.MustCompile(`took ([0-9.]+m?s)</span><span id="idle">idle ([0-9.]+)s before resuming`).FindStringSubmatch(html)
	if idle == nil {
		t.Errorf("the report gives no idle time apart from took")
	}
	for _, want := range []string{"steps 3/3", "action-outline Outline (interrupted)", `background:#e1d5f0;border-color:#6a4c93"></i>interrupted`} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
	if strings.Contains(html, "×2") {
		t.Error("the interrupted try counts as a repeat")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed: skipping the browser check (apt-get install chromium)")
	}
	dom := headless(t, chromium, page)("--dump-dom")
	for _, want := range []string{"steps 3/3", `id="idle"`, "action-outline Outline (interrupted)", `fill="#e1d5f0"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page as Chromium builds it lacks %s", want)
		}
	}
}

// inkedPixels counts the pixels of a PNG that are not near white.
func inkedPixels(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !nearWhite(img, x, y) {
				n++
			}
		}
	}
	return n
}

func nearWhite(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	const white = 0xf000
	return r > white && g > white && b > white
}
