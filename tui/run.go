package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/vpbench/vpbench/engine"
)

// Options are what Run needs: the runner's configuration and the UI's hooks.
type Options struct {
	Runner engine.Config
	ModelOptions
	// Input and Output replace the terminal (tests); nil means the terminal.
	Input  io.Reader
	Output io.Writer
	// Width and Height fix the window size when Output is not a terminal (tests).
	Width, Height int
	// Attach, if set, is called before the UI starts with a function that adds a line to
	// its log from any goroutine: where other parts send their messages while the UI owns
	// the terminal (writing to stderr then would garble the screen).
	Attach func(log func(msg string))
	// Finished, if set, receives how the run ended (the runner's Result: the last state,
	// Table 1, the volumes) once the UI has ended and the terminal is restored: the
	// command prints its summary there.
	Finished func(res engine.Result)
}

// Run opens the terminal UI and runs the scenario until the user quits or ctx ends. The
// runner steps on its own goroutine and reaches the UI only through Program.Send; when
// the UI ends, Run stops the runner, waits for it (the scenario closed, no goroutine of
// its own left) and returns with the terminal restored. Quitting, Ctrl-C and ctx's end
// all return nil.
func Run(parent context.Context, opt Options) error {
	// SIGINT and SIGTERM end ctx, and the program with it. Bubble Tea's own signal handler
	// is off: in v2.0.10 it can block forever sending to a program that has already
	// stopped (when ctx ended first), and shutdown then waits for it.
	sigCtx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(sigCtx)
	defer cancel()
	var p *tea.Program
	r := engine.New(opt.Runner, func(msg any) { p.Send(msg) })
	if opt.Attach != nil {
		opt.Attach(func(msg string) { r.Log(engine.LogInfo, msg) })
	}
	m := NewModel(r.Commands(), opt.ModelOptions)
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if opt.Input != nil {
		popts = append(popts, tea.WithInput(opt.Input))
	}
	if opt.Output != nil {
		popts = append(popts, tea.WithOutput(opt.Output))
	}
	if opt.Width > 0 && opt.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opt.Width, opt.Height))
	}
	p = tea.NewProgram(m, popts...)
	go r.Run(ctx)
	_, err := p.Run()
	cancel()
	<-r.Done()
	if opt.Finished != nil {
		opt.Finished(r.Result())
	}
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		return nil // Ctrl-C reached the program as a signal
	case errors.Is(err, tea.ErrProgramKilled) && sigCtx.Err() != nil:
		return nil // ctx ended, or a signal came
	}
	return err
}
