package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// e2eScript is the scenario the end-to-end test runs: small, so that it steps fast
// everywhere, with a print the log must show.
const e2eScript = `local sim = vp.sim{ size = {0.05, 0.05}, height = 0.02, dx = 0.001, layers = 1, viscosity = 4e-6 }
sim:terrain(vp.plane{ point = {0, 0, 0.002}, normal = {0.1, 0, 1} })
sim:source{ at = {0.025, 0.025, 0.015}, radius = 0.004, rate = 2e-6, stop = 1 }
sim:at(0.05, function() print("hello from the script") end)
`

// tmuxSession is a tmux server of the test's own (its own socket) with one session.
type tmuxSession struct {
	t      *testing.T
	socket string
	name   string
}

func (s *tmuxSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

// screen is the pane's text now.
func (s *tmuxSession) screen() string {
	out, err := s.tmux("capture-pane", "-p", "-t", s.name)
	if err != nil {
		return "(capture-pane failed: " + strings.TrimSpace(out) + ")"
	}
	return out
}

// waitScreen polls the pane until ok holds for its text (a deadline, not sleeps), and
// returns the text.
func (s *tmuxSession) waitScreen(what string, ok func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		text := s.screen()
		if ok(text) {
			return text
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.tmux(append([]string{"send-keys", "-t", s.name}, keys...)...); err != nil {
		s.t.Fatalf("tmux send-keys %v: %v: %s", keys, err, out)
	}
}

var stepsRe = regexp.MustCompile(`steps (\d+)`)

func stepsOn(t *testing.T, screen string) int {
	t.Helper()
	m := stepsRe.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no step count on the screen:\n%s", screen)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestTUIEndToEnd runs the real binary in tmux on a scenario, reads the screen with
// capture-pane, presses pause, step, viscosity up and quit, and checks the screen, the
// exit status and that the terminal is back in its normal mode.
func TestTUIEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("VPBENCH_REQUIRE_TMUX") != "" {
			t.Fatal("tmux is not installed and VPBENCH_REQUIRE_TMUX is set: `make test` installs it (mk/tui.mk)")
		}
		t.Skip("tmux is not installed: the terminal UI's end-to-end test needs it (`make test` installs it; apt-get install tmux)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vpbench")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	scene := filepath.Join(dir, "e2e.lua")
	if err := os.WriteFile(scene, []byte(e2eScript), 0o644); err != nil {
		t.Fatal(err)
	}
	status, stty := filepath.Join(dir, "status"), filepath.Join(dir, "stty")

	s := &tmuxSession{t: t, socket: fmt.Sprintf("vpbench-e2e-%d", os.Getpid()), name: "e2e"}
	t.Cleanup(func() { _, _ = s.tmux("kill-server") })
	// The shell writes the exit status, then how the terminal is set up after the UI left.
	cmd := fmt.Sprintf("cd %q && %q --workers 1 e2e.lua; echo $? > %q; stty -a > %q; sleep 60", dir, bin, status, stty)
	if out, err := s.tmux("new-session", "-d", "-s", s.name, "-x", "120", "-y", "40", "sh", "-c", cmd); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}

	s.waitScreen("the UI running the scenario", func(sc string) bool {
		return strings.Contains(sc, "e2e.lua") && strings.Contains(sc, "▶ running") && strings.Contains(sc, "hello from the script")
	})
	for _, want := range []string{"simulation", "volume", "depth map", "viscosity 4e-06 m²/s", "q quit"} {
		if sc := s.screen(); !strings.Contains(sc, want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}

	s.keys("Space")
	paused := s.waitScreen("paused", func(sc string) bool { return strings.Contains(sc, "⏸ paused") })
	n := stepsOn(t, paused)
	time.Sleep(200 * time.Millisecond)
	if m := stepsOn(t, s.screen()); m != n {
		t.Errorf("steps went from %d to %d while paused", n, m)
	}

	s.keys("s")
	stepped := s.waitScreen("one step", func(sc string) bool { return stepsOn(t, sc) != n })
	if m := stepsOn(t, stepped); m != n+1 || !strings.Contains(stepped, "⏸ paused") {
		t.Errorf("the step key went from %d to %d steps (still paused: %v); want one step, paused", n, m, strings.Contains(stepped, "⏸ paused"))
	}

	s.keys("+")
	s.waitScreen("viscosity doubled", func(sc string) bool {
		return strings.Contains(sc, "viscosity 8e-06 m²/s") && strings.Contains(sc, "viscosity 4e-06 -> 8e-06")
	})

	s.keys("q")
	deadline := time.Now().Add(30 * time.Second)
	var code []byte
	for {
		b, err := os.ReadFile(status)
		if err == nil && len(b) > 0 {
			code = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vpbench did not exit within 30 s of q; the screen:\n%s", s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := strings.TrimSpace(string(code)); got != "0" {
		t.Errorf("exit status %s after q; want 0; the screen:\n%s", got, s.screen())
	}
	var modes string
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(stty); err == nil && len(b) > 0 {
			modes = string(b)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, mode := range []string{"icanon", "echo"} {
		if !regexp.MustCompile(`(^|\s)` + mode + `(\s|$)`).MatchString(modes) {
			t.Errorf("after vpbench quit the terminal lacks %s (not restored); stty -a:\n%s", mode, modes)
		}
	}
	if sc := s.screen(); strings.Contains(sc, "▶ running") || strings.Contains(sc, "⏸ paused") {
		t.Errorf("the UI is still on the screen after quitting:\n%s", sc)
	}
}
