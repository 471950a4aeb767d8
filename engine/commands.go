package engine

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/scene"
)

// The UI's requests (Command values), carried out on the runner's goroutine between two
// frames. A key that cannot act says why in the log; settings change through
// scene.Change, as sim:set does, so the checks and warnings are the same.

// drain handles every command already queued.
func (r *Runner) drain() {
	for {
		select {
		case c := <-r.cmds:
			r.handle(c)
			if r.quit {
				return
			}
		default:
			return
		}
	}
}

// handle carries out one command from the UI.
func (r *Runner) handle(c Command) {
	r.out.changed()
	switch c.Kind {
	case CmdQuit:
		r.quit = true
	case CmdMapSize:
		r.mapCols, r.mapRows = max(c.Cols, 0), max(c.Rows, 0)
	case CmdCycleLayer:
		r.cycleLayer()
	case CmdReload:
		r.load(true)
	case CmdTogglePause:
		r.togglePause()
	case CmdStep:
		r.stepOnce()
	case CmdCycleSpeed:
		r.cycleSpeed()
	case CmdViscosity:
		r.scaleViscosity(c.Factor)
	case CmdRecord:
		r.toggleRecording()
	case CmdToggleFalling:
		r.toggleFalling()
	case CmdContactAngle:
		r.turnContactAngle(c.Factor)
	case CmdToggleCapillarity:
		r.toggleCapillarity()
	case CmdToggleWaves:
		r.toggleWaves()
	case CmdLogBodies:
		r.logBodies()
	}
}

// togglePause pauses a running scenario or resumes a paused one; resuming at Until runs
// on past it.
func (r *Runner) togglePause() {
	switch r.status {
	case StatusRunning:
		r.setStatus(StatusPaused)
	case StatusPaused:
		if r.pace.atUntil(r.scene.Time(), r.scene.Dt()) {
			r.pace.until = 0
			r.out.logf(LogInfo, "running on past --until")
		}
		r.setStatus(StatusRunning)
	default:
		r.explainStopped("resume")
	}
}

// stepOnce pauses and advances one frame (the UI's s key): FrameSteps steps, or else
// the steps to the next frame time, as a headless run's frames end. A frame may go past
// Until.
func (r *Runner) stepOnce() {
	if r.status != StatusRunning && r.status != StatusPaused {
		r.explainStopped("step")
		return
	}
	r.setStatus(StatusPaused)
	r.step(r.frameSteps())
}

// frameSteps is the steps of one frame from now: FrameSteps when set; else the steps to
// the next frame time k/FPS after the simulated time (the first step boundary at or after
// it), at least one.
func (r *Runner) frameSteps() int {
	if r.cfg.FrameSteps > 0 {
		return r.cfg.FrameSteps
	}
	fps := r.pace.fps
	if !(fps > 0) {
		fps = DefaultFPS
	}
	t := r.scene.Time()
	k := math.Floor(t*fps+stepTolerance) + 1
	return max(1, stepsTo(t, k/fps, r.scene.Dt()))
}

// cycleSpeed moves to the next of Speeds (after the last, or from a pace not in the list,
// the first); real-time pacing starts over from now.
func (r *Runner) cycleSpeed() {
	i := 0
	for k, s := range Speeds {
		if s == r.pace.speed {
			i = k + 1
		}
	}
	r.pace.speed = Speeds[i%len(Speeds)]
	r.rebase()
	r.win.reset()
	r.out.logf(LogInfo, "speed: %s", r.pace.speed)
}

// explainStopped logs why a key that needs a running scenario did nothing.
func (r *Runner) explainStopped(what string) {
	switch r.status {
	case StatusFinished:
		r.out.logf(LogInfo, "cannot %s: the scenario is finished (main returned); r reloads it", what)
	case StatusFailed:
		r.out.logf(LogInfo, "cannot %s: the scenario stopped on an error; fix the script and reload (r)", what)
	default:
		r.out.logf(LogInfo, "cannot %s: no scenario is loaded; fix the script and reload (r)", what)
	}
}

// cycleLayer moves the depth map to the next layer: top, all (summed), 1, 2, ..., top.
func (r *Runner) cycleLayer() {
	layers := 1
	if r.scene != nil {
		layers = r.scene.Layers()
	}
	if layers <= 1 {
		r.layer = LayerTop
		r.out.logf(LogInfo, "the scene has one layer: the depth map shows it")
		return
	}
	switch {
	case r.layer == LayerTop:
		r.layer = LayerAll
	case r.layer == LayerAll:
		r.layer = 1
	case int(r.layer) >= layers:
		r.layer = LayerTop
	default:
		r.layer++
	}
	r.out.logf(LogInfo, "depth map: %s", r.layer)
}

// minViscosity is where the viscosity key starts from 0 (water's 1e-6 m^2/s).
const minViscosity = 1e-6

// toggleFalling turns falling particles off, or on (the d key). Particles in the air
// when it goes off still land.
func (r *Runner) toggleFalling() {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change falling")
		return
	}
	var old, now scene.Falling
	if !r.change("falling", func(st *scene.Settings) {
		old = st.Solver.Falling
		st.Solver.Falling = scene.FallingParticles
		if old == scene.FallingParticles {
			st.Solver.Falling = scene.FallingOff
		}
		now = st.Solver.Falling
	}) {
		return
	}
	r.out.logf(LogInfo, "falling: %s -> %s", old, now)
}

// scaleViscosity multiplies the viscosity by f (the UI's ×2 and ÷2 keys); from 0, a
// factor above 1 starts at minViscosity.
func (r *Runner) scaleViscosity(f float64) {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change the viscosity")
		return
	}
	if !(f > 0) {
		r.out.logf(LogError, "viscosity factor %v: it must be > 0", f)
		return
	}
	var old, now float64
	if !r.change("viscosity", func(st *scene.Settings) {
		old = st.Solver.Viscosity
		st.Solver.Viscosity = old * f
		if old == 0 && f > 1 {
			st.Solver.Viscosity = minViscosity
		}
		now = st.Solver.Viscosity
	}) {
		return
	}
	r.out.logf(LogInfo, "viscosity %g -> %g m^2/s", old, now)
}

// change changes a setting through the scene's one entry point (scene.Change), as
// sim:set does: the same checks, the same warnings (logged). It reports whether the
// change was made; an error is logged, naming what.
func (r *Runner) change(what string, edit func(*scene.Settings)) bool {
	warnings, err := r.scene.Change(edit)
	if err != nil {
		r.out.logf(LogError, "%s: %v", what, err)
		return false
	}
	for _, w := range warnings {
		r.out.logf(LogWarn, "%s", w)
	}
	return true
}

// turnContactAngle adds delta radians to the contact angle, within [0, pi] (the a and A
// keys): the meniscus shading's, and the physics' when capillarity is on.
func (r *Runner) turnContactAngle(delta float64) {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change the contact angle")
		return
	}
	var old, now float64
	if !r.change("contact angle", func(st *scene.Settings) {
		old = st.Surface.ContactAngle
		st.Surface.ContactAngle = min(max(old+delta, 0), math.Pi)
		now = st.Surface.ContactAngle
		// The receding angle turns with it, down to 0.
		st.ContactHysteresis = min(st.ContactHysteresis, now)
	}) {
		return
	}
	st := r.scene.Settings().Solver
	what := "the meniscus shading's (capillarity off: t turns it on)"
	if st.SurfaceTension > 0 {
		what = fmt.Sprintf("wetting head %.2f mm", st.WettingHead()*1e3)
		if st.ContactHysteresis > 0 {
			what = fmt.Sprintf("receding %.0f degrees; puddles rest %.2f-%.2f mm thick", st.RecedingAngle()*180/math.Pi,
				st.RecedingHead()*1e3, st.WettingHead()*1e3)
		}
	}
	r.out.logf(LogInfo, "contact angle %.0f -> %.0f degrees: %s", old*180/math.Pi, now*180/math.Pi, what)
}

// logBodies writes each floating body's place, draft (how deep its lowest point lies
// under the liquid beside it) and speed into the log (the b key).
func (r *Runner) logBodies() {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("list the bodies")
		return
	}
	bs := r.scene.Bodies()
	if len(bs) == 0 {
		r.out.logf(LogInfo, "no floating bodies (sim:body makes one)")
		return
	}
	for _, b := range bs {
		x, y, z := b.Position()
		vx, vy, vz := b.Velocity()
		r.out.logf(LogInfo, "body %d at (%.1f, %.1f, %.1f) mm: %.0f%% under (%.3g of %.3g ml), lowest point %.2f mm up, speed %.1f mm/s",
			b.ID(), x*1e3, y*1e3, z*1e3, 100*b.Submerged()/b.Volume(), b.Submerged()*1e6, b.Volume()*1e6, b.Lowest()*1e3,
			math.Sqrt(vx*vx+vy*vy+vz*vz)*1e3)
	}
}

// toggleCapillarity turns the liquid's surface tension on or off in the solver (the t
// key).
// toggleWaves turns the wave particles on or off (sim:set{ waves = ... } from the
// keyboard).
func (r *Runner) toggleWaves() {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change the waves")
		return
	}
	if !r.change("waves", func(st *scene.Settings) { st.Waves = !st.Waves }) {
		return
	}
	if r.scene.Settings().Waves {
		r.out.logf(LogInfo, "waves on: drops landing make rings that ride the flow")
		return
	}
	r.out.logf(LogInfo, "waves off")
}

func (r *Runner) toggleCapillarity() {
	if r.sc == nil || r.status == StatusNoScene || r.status == StatusLoading {
		r.explainStopped("change capillarity")
		return
	}
	if !r.change("capillarity", func(st *scene.Settings) { st.Capillarity = !st.Capillarity }) {
		return
	}
	st := r.scene.Settings()
	if !st.Capillarity {
		r.out.logf(LogInfo, "capillarity off: the paper's method")
		return
	}
	r.out.logf(LogInfo, "capillarity on: surface tension %g N/m, capillary length %.2f mm, wetting head %.2f mm",
		st.Solver.SurfaceTension, st.Solver.CapillaryLength()*1e3, st.Solver.WettingHead()*1e3)
}
