package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
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

// tmuxSession is a tmux server of the test's own (its own socket, in the test's
// temporary folder when the path is short enough for a socket) with one session.
type tmuxSession struct {
	t      *testing.T
	socket []string // -S path or -L name
	name   string
}

func (s *tmuxSession) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append(append(s.socket, "-f", "/dev/null"), args...)...).CombinedOutput()
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

// stepsOn reads the step count off the screen (-1: not there, as in a capture taken
// while the screen is being redrawn).
func stepsOn(screen string) int {
	m := stepsRe.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// e2eRun is the binary running in a tmux session, and the files its shell writes when
// it ends: the exit status, the terminal's modes (stty -a) and the binary's pid.
type e2eRun struct {
	*tmuxSession
	status, stty, pid string
}

// startTUI builds vpbench, and runs it in a detached 120 x 40 tmux session on the e2e
// scenario. It skips when tmux is missing, unless VPBENCH_REQUIRE_TMUX is set.
func startTUI(t *testing.T) *e2eRun {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("VPBENCH_REQUIRE_TMUX") != "" {
			t.Fatal("tmux is not installed and VPBENCH_REQUIRE_TMUX is set: `make test` installs it (mk/tui.mk)")
		}
		t.Skip("tmux is not installed: the terminal UI's end-to-end test needs it (`make test` installs it; apt-get install tmux)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vpbench")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the test builds the binary and needs the go command on PATH: %v", err)
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "e2e.lua"), []byte(e2eScript), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &e2eRun{status: filepath.Join(dir, "status"), stty: filepath.Join(dir, "stty"), pid: filepath.Join(dir, "pid")}
	socket := []string{"-S", filepath.Join(dir, "tmux.sock")}
	if len(socket[1]) > 100 { // sun_path holds 108 bytes
		socket = []string{"-L", fmt.Sprintf("vpbench-e2e-%d-%s", os.Getpid(), strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))}
	}
	r.tmuxSession = &tmuxSession{t: t, socket: socket, name: "e2e"}
	t.Cleanup(func() { _, _ = r.tmux("kill-server") })
	// The inner shell writes its pid and becomes vpbench (exec); the outer one writes the
	// exit status, then how the terminal is set up after the UI left.
	inner := fmt.Sprintf("echo $$ > %s; exec %s --workers 1 e2e.lua", shq(r.pid), shq(bin))
	cmd := fmt.Sprintf("cd %s && sh -c %s; echo $? > %s; stty -a > %s; sleep 60", shq(dir), shq(inner), shq(r.status), shq(r.stty))
	if out, err := r.tmux("new-session", "-d", "-s", r.name, "-x", "120", "-y", "40", "sh", "-c", cmd); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	r.waitScreen("the UI running the scenario", func(sc string) bool {
		return strings.Contains(sc, "e2e.lua") && strings.Contains(sc, "▶ running") && strings.Contains(sc, "hello from the script")
	})
	return r
}

// shq quotes s for sh: nothing in it is expanded.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// waitFile waits for a file to have content, and returns it.
func (r *e2eRun) waitFile(path, what string) string {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return string(b)
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, r.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkExit checks that vpbench exited with status 0, the terminal back in its normal
// mode and the UI off the screen.
func (r *e2eRun) checkExit() {
	r.t.Helper()
	if got := strings.TrimSpace(r.waitFile(r.status, "vpbench to exit")); got != "0" {
		r.t.Errorf("exit status %s; want 0; the screen:\n%s", got, r.screen())
	}
	modes := r.waitFile(r.stty, "stty -a after the exit")
	for _, mode := range []string{"icanon", "echo"} {
		if !regexp.MustCompile(`(^|\s)` + mode + `(\s|$)`).MatchString(modes) {
			r.t.Errorf("after vpbench quit the terminal lacks %s (not restored); stty -a:\n%s", mode, modes)
		}
	}
	if sc := r.screen(); strings.Contains(sc, "▶ running") || strings.Contains(sc, "⏸ paused") {
		r.t.Errorf("the UI is still on the screen after quitting:\n%s", sc)
	}
}

// TestTUIEndToEnd runs the real binary in tmux on a scenario, reads the screen with
// capture-pane, presses pause, step, viscosity up and quit, and checks the screen, the
// exit status and that the terminal is back in its normal mode.
func TestTUIEndToEnd(t *testing.T) {
	s := startTUI(t)
	for _, want := range []string{"simulation", "volume", "depth map", "viscosity 4e-06 m²/s", "q quit"} {
		if sc := s.screen(); !strings.Contains(sc, want) {
			t.Errorf("the screen lacks %q:\n%s", want, sc)
		}
	}

	s.keys("Space")
	paused := s.waitScreen("paused", func(sc string) bool { return strings.Contains(sc, "⏸ paused") && stepsOn(sc) >= 0 })
	n := stepsOn(paused)
	time.Sleep(200 * time.Millisecond)
	if m := stepsOn(s.waitScreen("the steps", func(sc string) bool { return stepsOn(sc) >= 0 })); m != n {
		t.Errorf("steps went from %d to %d while paused", n, m)
	}

	s.keys("s")
	stepped := s.waitScreen("one frame", func(sc string) bool { return stepsOn(sc) >= 0 && stepsOn(sc) != n })
	if m := stepsOn(stepped); m <= n || !strings.Contains(stepped, "⏸ paused") {
		t.Errorf("the step key went from %d to %d steps (still paused: %v); want a frame (at least one step), paused", n, m, strings.Contains(stepped, "⏸ paused"))
	}

	s.keys("+")
	s.waitScreen("viscosity doubled", func(sc string) bool {
		return strings.Contains(sc, "viscosity 8e-06 m²/s") && strings.Contains(sc, "viscosity 4e-06 -> 8e-06")
	})

	s.keys("q")
	s.checkExit()
	// The summary `vpbench run` prints, on the restored screen (issue 26).
	sc := s.waitScreen("the final summary", func(sc string) bool { return strings.Contains(sc, "ms per frame") })
	for _, want := range []string{"e2e.lua: ", "simulation", "per step", "real time", "volume", "conservation error"} {
		if !strings.Contains(sc, want) {
			t.Errorf("the summary after q lacks %q:\n%s", want, sc)
		}
	}
}

// TestTUIEndToEndSignals stops the UI with SIGINT and SIGTERM (kill, Ctrl-C from outside):
// exit status 0 and the terminal restored, as with q.
func TestTUIEndToEndSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startTUI(t)
			pid, err := strconv.Atoi(strings.TrimSpace(s.waitFile(s.pid, "the pid")))
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, sig); err != nil {
				t.Fatal(err)
			}
			s.checkExit()
		})
	}
}

// simTimeRe reads the simulated time off the status line.
var simTimeRe = regexp.MustCompile(`t = ([0-9]+\.[0-9]+) s`)

// simTimeOn reads the simulated time off the screen (-1: not there).
func simTimeOn(screen string) float64 {
	m := simTimeRe.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestTUIEndToEndPacing: in real-time mode (the UI's default) the simulated clock
// follows the wall clock within 5% over 10 s on a small scene, and the UI does not say
// it cannot keep up.
func TestTUIEndToEndPacing(t *testing.T) {
	if testing.Short() {
		t.Skip("10 s of real time")
	}
	s := startTUI(t)
	read := func() (sim float64, wall time.Time) {
		sc := s.waitScreen("the simulated time", func(sc string) bool { return simTimeOn(sc) >= 0 })
		return simTimeOn(sc), time.Now()
	}
	time.Sleep(time.Second) // the first second may measure the machine
	sim0, wall0 := read()
	time.Sleep(10 * time.Second)
	sim1, wall1 := read()
	wall := wall1.Sub(wall0).Seconds()
	if got := sim1 - sim0; got < 0.95*wall || got > 1.05*wall {
		t.Errorf("the simulated clock went %.3f s (%.3f to %.3f) in %.3f s of wall time: want within 5%%; the screen:\n%s",
			got, sim0, sim1, wall, s.screen())
	}
	if sc := s.screen(); strings.Contains(sc, "cannot keep up") {
		t.Errorf("a small scene: the UI says it cannot keep up:\n%s", sc)
	}
	s.keys("q")
	s.checkExit()
}
