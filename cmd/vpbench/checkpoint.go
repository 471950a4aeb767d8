package main

import (
	"flag"

	"github.com/vpbench/vpbench/engine"
)

// checkpointFlags are the checkpoint flags of `vpbench run` and the default mode
// (docs/checkpoints.md).
type checkpointFlags struct {
	path   string  // --checkpoint
	every  float64 // --checkpoint-every, simulated s
	resume string  // --resume
}

func (f *checkpointFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "checkpoint", "", "write checkpoints of the scenario to this file (each replaces the last, atomically); a final one when the run stops (Ctrl-C, q, --until)")
	fs.Float64Var(&f.every, "checkpoint-every", 0, "simulated seconds between checkpoints (needs --checkpoint; 0: only the final one)")
	fs.StringVar(&f.resume, "resume", "", "resume the scenario from this checkpoint (written by --checkpoint or sim:save for the same script and --param values)")
}

func (f *checkpointFlags) validate() error {
	if f.every != 0 && f.path == "" {
		return usagef("--checkpoint-every needs --checkpoint FILE: the file the checkpoints are written to")
	}
	if err := f.config().Validate(); err != nil {
		return usagef("--checkpoint-every is %v: it must be a number of simulated seconds > 0 (or 0: only a final checkpoint)", f.every)
	}
	return nil
}

// config is the run loop's checkpoint configuration.
func (f *checkpointFlags) config() engine.Checkpoints {
	return engine.Checkpoints{Path: f.path, Every: f.every, Resume: f.resume}
}
