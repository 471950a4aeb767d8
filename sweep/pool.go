package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Pool runs a study's tasks on this machine, Jobs at a time, each as a subprocess
// (Command): a task that crashes takes only itself down, and a study that is killed
// loses only the tasks in flight (each task writes its own result when it ends).
type Pool struct {
	Study *Study
	Out   Folder
	Jobs  int
	// RetryFailed runs the tasks that failed again (by default a failed task is finished:
	// its error is in its result).
	RetryFailed bool
	// Command is the subprocess of a task, which writes the task's result file; its
	// output goes to the task's log.
	Command func(t Task) *exec.Cmd
	// Event, if set, is told when a task starts and ends (called from one goroutine at
	// a time).
	Event func(Event)
}

// Event is a task starting (Result nil) or ending.
type Event struct {
	Task   Task
	Result *Result
	// Cut says the task was stopped with the study (no result: it runs again on resume).
	Cut bool
	// Done and Total count the study's finished tasks (skipped ones included).
	Done, Total int
}

// Run runs the tasks that have no result yet (and, with RetryFailed, those that failed),
// in index order; it returns how many it ran and how many were already finished. Ending
// ctx stops the tasks in flight, which leave no result.
func (p *Pool) Run(ctx context.Context) (ran, skipped int, err error) {
	if err := p.Out.Prepare(p.Study); err != nil {
		return 0, 0, err
	}
	p.Out.cleanTemp()
	pending, err := p.Out.Pending(p.Study, p.RetryFailed)
	if err != nil {
		return 0, 0, err
	}
	total := len(p.Study.Tasks)
	skipped = total - len(pending)
	jobs := max(p.Jobs, 1)
	var mu sync.Mutex
	done := skipped
	event := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Result != nil {
			done++
		}
		e.Done, e.Total = done, total
		if p.Event != nil {
			p.Event(e)
		}
	}
	queue := make(chan Task)
	var wg sync.WaitGroup
	var firstErr error
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range queue {
				event(Event{Task: t})
				r, err := p.runOne(ctx, t)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				if r == nil {
					event(Event{Task: t, Cut: true})
					continue
				}
				mu.Lock()
				ran++
				mu.Unlock()
				event(Event{Task: t, Result: r})
			}
		}()
	}
feed:
	for _, t := range pending {
		select {
		case queue <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return ran, skipped, firstErr
}

// runOne runs one task's subprocess and returns its result: the one it wrote, or a
// failure when it wrote none (it crashed, or ran past the study's task_timeout). Nil
// when the study was stopped meanwhile: the task is cut, to be run again.
func (p *Pool) runOne(ctx context.Context, t Task) (*Result, error) {
	// The subprocess dies with the thread that started it (Pdeathsig, Linux): this
	// goroutine keeps its thread until the wait is over, so that a study killed with -9
	// takes its tasks in flight with it instead of leaving them running unwatched.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	plan := p.Study.Plan()
	log, err := os.Create(p.Out.LogPath(t.Index))
	if err != nil {
		return nil, fmt.Errorf("task %d: %w", t.Index, err)
	}
	defer log.Close()
	cmd := p.Command(t)
	cmd.Stdout, cmd.Stderr = log, log
	setDeathSignal(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("task %d: %w", t.Index, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var timeout <-chan time.Time
	if p.Study.TaskTimeout > 0 {
		tm := time.NewTimer(time.Duration(p.Study.TaskTimeout * float64(time.Second)))
		defer tm.Stop()
		timeout = tm.C
	}
	var werr error
	timedOut := false
	select {
	case werr = <-waited:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-waited
		return nil, nil
	case <-timeout:
		timedOut = true
		_ = cmd.Process.Kill()
		werr = <-waited
	}
	if r, ok, err := p.Out.Result(t.Index, plan); err == nil && ok && !timedOut {
		return &r, nil
	}
	why := fmt.Sprintf("the task's process ended without a result (%v)", werr)
	if timedOut {
		why = fmt.Sprintf("the task ran past task_timeout = %g s and was stopped", p.Study.TaskTimeout)
	}
	if tail := logTail(p.Out.LogPath(t.Index), 5); tail != "" {
		why += ": " + tail
	}
	r := Result{Plan: plan, Index: t.Index, Repeat: t.Repeat, Params: t.Params, Status: StatusFailed,
		Error: p.Study.TaskError(t, "scenario", errors.New(why)).Error(), WallS: time.Since(start).Seconds()}
	r.Host, _ = os.Hostname()
	if err := p.Out.WriteResult(r); err != nil {
		return &r, err
	}
	return &r, nil
}

// logTail is the last n non-empty lines of a log, joined by " | ".
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var lines []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		if s := strings.TrimSpace(string(l)); s != "" {
			lines = append(lines, s)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
