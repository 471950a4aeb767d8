package engine

import (
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
)

// Scenario is the little the runner needs of a loaded scenario: the world it steps and
// draws (Scene), the stepping itself (Advance: the script's scheduler fires its callbacks
// between steps), what it says of itself, its checkpoint, and Close. script.Scenario is
// one (loadScript); the engine's tests also drive a scene with no Lua behind it.
type Scenario interface {
	Scene() *scene.Scene
	Name() string
	Info() script.Info
	// Advance runs up to maxSteps solver steps (fewer where a callback is due) and says
	// what it did; after an error every call returns it.
	Advance(maxSteps int) (script.Advanced, error)
	// Reported is what the scenario reported for the timeline (sim:report).
	Reported() []script.Reported
	// SaveCheckpoint writes the scenario's checkpoint to path, atomically.
	SaveCheckpoint(path string) error
	Close()
}

// Loader loads the scenario with the load options opt, which carry the runner's hooks
// (print, timings, screenshots, recordings) and, on the first load, the checkpoint to
// resume from (opt.Resume). Config.Load is one; nil loads Config's script (loadScript).
type Loader func(opt script.Options) (Scenario, error)

// loadScript is the Loader of Config's script: the file at Path, or Source.
func loadScript(cfg *Config) Loader {
	return func(opt script.Options) (Scenario, error) {
		if cfg.Path == "" {
			return script.LoadSource(cfg.SourceName, cfg.Source, opt)
		}
		return script.Load(cfg.Path, opt)
	}
}
