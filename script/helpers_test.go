package script

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// printLog collects what a scenario prints.
type printLog struct {
	mu    sync.Mutex
	lines []string
}

func (p *printLog) print(msg string) {
	p.mu.Lock()
	p.lines = append(p.lines, msg)
	p.mu.Unlock()
}

func (p *printLog) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// opts are test options: the script's workers, printing to log.
func opts(log *printLog) Options {
	o := Options{Workers: -1}
	if log != nil {
		o.Print = log.print
	}
	return o
}

// small is a vp.sim line for a quick 10 x 10 grid.
const small = `local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }
`

func mustLoad(t *testing.T, name, src string, o Options) *Scenario {
	t.Helper()
	s, err := LoadSource(name, []byte(src), o)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// runToEnd advances until main returns, an error, or limit calls.
func runToEnd(t *testing.T, s *Scenario, limit int) error {
	t.Helper()
	for i := 0; i < limit; i++ {
		advDone, err := s.Advance(1000)
		done := advDone.Done
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	t.Fatalf("main did not return within %d Advance calls (t = %g s)", limit, s.Scene().Time())
	return nil
}

// wantError checks that err is an *Error at file:line whose message holds every part.
func wantError(t *testing.T, err error, file string, line int, parts ...string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s:%d: %v", file, line, parts)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is a %T, want *script.Error", err, err)
	}
	if e.File != file || e.Line != line {
		t.Errorf("error at %s:%d, want %s:%d (%v)", e.File, e.Line, file, line, e)
	}
	for _, p := range parts {
		if !strings.Contains(e.Msg, p) {
			t.Errorf("error %q does not mention %q", e.Error(), p)
		}
	}
	return e
}
