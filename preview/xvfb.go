package preview

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// xvfb is a private X server (Xvfb) started for offscreen rendering when there is no
// display.
type xvfb struct {
	cmd     *exec.Cmd
	display string // ":N"
}

// startXvfb starts Xvfb on a free display number (it picks one itself: -displayfd) and
// waits until it accepts connections, at most 10 s.
func startXvfb() (*xvfb, error) {
	path, err := exec.LookPath("Xvfb")
	if err != nil {
		return nil, errors.New("no Xvfb found: it is not installed")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command(path, "-displayfd", "3", "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "+extension", "GLX")
	cmd.ExtraFiles = []*os.File{w} // fd 3
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("cannot start Xvfb: %v", err)
	}
	w.Close()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, errors.New("the Xvfb server exited without a display number")
		}
		return &xvfb{cmd: cmd, display: ":" + n}, nil
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("the Xvfb server did not start within 10 s")
	}
}

// stop ends the server.
func (x *xvfb) stop() {
	if x.cmd.Process != nil {
		x.cmd.Process.Kill()
		x.cmd.Wait()
	}
}
