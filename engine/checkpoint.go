package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Checkpoints are a run's checkpoints (docs/checkpoints.md): where they are written and
// how often, and the checkpoint the run starts from.
type Checkpoints struct {
	// Path is the file the checkpoints are written to, each replacing the last
	// atomically (script.Scenario.SaveCheckpoint); "" writes none.
	Path string
	// Every is the simulated time between two checkpoints, s: one is written at the first
	// frame boundary at or after each multiple of Every past the start. 0: only the final
	// one, written when the run stops without a script error (Until reached, main
	// returned, Ctrl-C, the UI's quit).
	Every float64
	// Resume, if set, is a checkpoint the first load resumes from (a load option:
	// script.Options.Resume); a refused checkpoint is a load error. Reloads (Watch) start
	// afresh.
	Resume string
}

// Validate names the first field that cannot be used.
func (c Checkpoints) Validate() error {
	if math.IsNaN(c.Every) || math.IsInf(c.Every, 0) || c.Every < 0 {
		return fmt.Errorf("the checkpoint period is %v: it must be a number of simulated seconds > 0 (or 0: only a final checkpoint)", c.Every)
	}
	if c.Every > 0 && c.Path == "" {
		return errors.New("a checkpoint period needs a checkpoint file")
	}
	return nil
}

// CheckpointKind says what a Checkpoint message reports.
type CheckpointKind int

const (
	CheckpointWritten CheckpointKind = iota // a periodic checkpoint
	CheckpointFinal                         // the one written when the run stops
	CheckpointResumed                       // the run resumed from Path
)

// Checkpoint reports a checkpoint written (or failed: Err) or the run resumed from one.
// A headless run sends it through the send function; every run also logs it.
type Checkpoint struct {
	Kind CheckpointKind
	Path string
	Time float64 // simulated s
	Err  error
}

func (c Checkpoint) String() string {
	switch {
	case c.Err != nil:
		return fmt.Sprintf("checkpoint not written to %s (t = %.6g s): %v", c.Path, c.Time, c.Err)
	case c.Kind == CheckpointResumed:
		return fmt.Sprintf("resumed from %s at t = %.6g s", c.Path, c.Time)
	case c.Kind == CheckpointFinal:
		return fmt.Sprintf("final checkpoint written to %s (t = %.6g s)", c.Path, c.Time)
	}
	return fmt.Sprintf("checkpoint written to %s (t = %.6g s)", c.Path, c.Time)
}

// checkpointer is the runner's part that says when checkpoints are due: fed each
// frame's figures (due), it keeps the next periodic checkpoint's time; the runner writes
// them (the scenario's SaveCheckpoint).
type checkpointer struct {
	cfg    Checkpoints
	next   float64 // simulated time of the next periodic checkpoint
	loaded int     // successful loads so far: only the first resumes
}

// resumeFrom is the checkpoint a load resumes from: Resume until a load has succeeded,
// none on the reloads after it (they start afresh).
func (c *checkpointer) resumeFrom() string {
	if c.loaded > 0 {
		return ""
	}
	return c.cfg.Resume
}

// start plans the first periodic checkpoint of a scenario (re)loaded at simulated time t.
func (c *checkpointer) start(t float64) {
	c.loaded++
	c.next = math.Inf(1)
	if c.cfg.Every > 0 && c.cfg.Path != "" {
		c.next = t + c.cfg.Every
	}
}

// due says whether a periodic checkpoint is due at the end of frame f (and plans the
// next one).
func (c *checkpointer) due(f frameDone) bool {
	if f.Time < c.next-1e-9 {
		return false
	}
	for c.next <= f.Time+1e-9 {
		c.next += c.cfg.Every
	}
	return true
}

// finalCheckpoint writes the last checkpoint when a run with checkpoints stops, unless a
// script error stopped it (the last good checkpoint stays).
func (r *Runner) finalCheckpoint() {
	if r.cfg.Checkpoints.Path == "" || r.sc == nil {
		return
	}
	if r.err != nil && !errors.Is(r.err, context.Canceled) || r.status == StatusFailed {
		r.out.logf(LogWarn, "no final checkpoint: the run stopped on an error (%s keeps the last one)", r.cfg.Checkpoints.Path)
		return
	}
	r.writeCheckpoint(CheckpointFinal)
}

// writeCheckpoint writes the scenario's checkpoint to Config.Checkpoints.Path and says so.
// A failed write is reported and the run goes on (the file keeps the last checkpoint).
func (r *Runner) writeCheckpoint(kind CheckpointKind) {
	r.scene.Sync()
	c := Checkpoint{Kind: kind, Path: r.cfg.Checkpoints.Path, Time: r.scene.Time()}
	c.Err = r.sc.SaveCheckpoint(c.Path)
	r.reportCheckpoint(c)
}

// reportCheckpoint logs c and, headless, sends it.
func (r *Runner) reportCheckpoint(c Checkpoint) {
	lvl := LogInfo
	if c.Err != nil {
		lvl = LogError
	}
	r.out.logf(lvl, "%s", c)
	if r.cfg.Headless {
		r.send(c)
	}
}
