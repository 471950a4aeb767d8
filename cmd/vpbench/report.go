package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/vpbench/vpbench/engine"
	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/timing"
)

// phaseReport is one row of the paper's Table 1: ms per frame.
type phaseReport struct {
	Frames int     `json:"frames"`
	AvgMs  float64 `json:"avg_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// regionReport is the 3D region's cost in a scene that places one (sim:region): Table 1's
// region row, its share of the simulation row (the scene steps the region inside its
// step), its time a step of its own, and the region in place at the end.
type regionReport struct {
	phaseReport
	// StepMs is its mean time a step over Steps, its own steps (a region placed or
	// removed during the run took fewer than the run).
	StepMs float64 `json:"step_ms"`
	Steps  int64   `json:"steps"`
	// NX, NY, NZ are its cells, CellMm their edge, Particles its particles at the end
	// (absent when it was removed before the end).
	NX        int     `json:"nx,omitempty"`
	NY        int     `json:"ny,omitempty"`
	NZ        int     `json:"nz,omitempty"`
	CellMm    float64 `json:"cell_mm,omitempty"`
	Particles int     `json:"particles,omitempty"`
}

// runReport is what a run prints at its end and writes with --json.
type runReport struct {
	Scenario   string  `json:"scenario"`
	Nx         int     `json:"nx"`
	Ny         int     `json:"ny"`
	Layers     int     `json:"layers"`
	Columns    int     `json:"columns"`
	Dx         float64 `json:"dx_m"`
	DtMs       float64 `json:"dt_ms"`
	Backend    string  `json:"backend"`
	Workers    int     `json:"workers"`
	Steps      int64   `json:"steps"`
	SimulatedS float64 `json:"simulated_s"`
	// FromS is the simulated time a resumed run started from (its checkpoint's; absent
	// otherwise): the real-time factors count the SimulatedS - FromS it ran.
	FromS          float64     `json:"from_s,omitempty"`
	WallS          float64     `json:"wall_s"`
	RealTimeFactor float64     `json:"real_time_factor"`
	SteadyFactor   float64     `json:"steady_real_time_factor"` // simulated time over the frames' wall time: no set-up
	Simulation     phaseReport `json:"simulation"`
	// SimulationStepMs is the solver's mean time per step; StepsPerFrame the mean steps a
	// frame took (frames are paced by FPS, or fixed at FrameSteps).
	SimulationStepMs float64 `json:"simulation_step_ms"`
	StepsPerFrame    float64 `json:"steps_per_frame"`
	FPS              float64 `json:"fps,omitempty"`
	FrameSteps       int     `json:"frame_steps,omitempty"`
	// MColumnStepsPerS is the solver's rate, columns x steps over the simulation time, in
	// millions; OfBound (bench --roofline) that rate over the memory bound measured in the
	// same run (STREAM triad / gpusim.BytesPerColumnStep).
	MColumnStepsPerS float64     `json:"mcolumn_steps_per_s,omitempty"`
	OfBound          float64     `json:"of_bound,omitempty"`
	Surface          phaseReport `json:"surface"`
	// OverlappedFrames is the frames whose surface was built beside the next frame's
	// steps (--overlap; absent when none was).
	OverlappedFrames int         `json:"overlapped_frames,omitempty"`
	Render           phaseReport `json:"render"`
	// Waves is the wave particles' time per frame (absent with waves off).
	Waves     *phaseReport `json:"waves,omitempty"`
	WaveCount int          `json:"waves_count,omitempty"`
	// Region is the 3D region's cost (absent without one).
	Region     *regionReport `json:"region,omitempty"`
	Total      phaseReport   `json:"total"`
	VolumeMl   float64       `json:"volume_ml"`
	AddedMl    float64       `json:"added_ml"`
	RemovedMl  float64       `json:"removed_ml"`
	RejectedMl float64       `json:"rejected_ml"`
	// OutflowMl is what left through the domain's open sides (absent with walls).
	OutflowMl float64 `json:"outflow_ml,omitempty"`
	// ConservationError is (volume - (added - removed - outflow)) / added: float rounding only.
	ConservationError float64 `json:"conservation_error"`
	Wet               int     `json:"wet_columns"`
	Passages          int     `json:"passages"`
	Extended          int     `json:"extended_pipes"`
	// SubstepsPerStep is the shallow water equations' substeps a step (absent with the pipes).
	SubstepsPerStep float64 `json:"substeps_per_step,omitempty"`
	Particles       int     `json:"particles"`
	// AirborneMl is the liquid in the air and gathering at dripping edges; HangingMl the
	// part gathering at the edges (drops not yet released).
	AirborneMl float64  `json:"airborne_ml"`
	HangingMl  float64  `json:"hanging_ml"`
	Warnings   []string `json:"warnings,omitempty"`
	// WallPaced: the UI's run, whose frames the wall clock paces (not k/FPS of simulated
	// time, as a headless run's).
	WallPaced   bool   `json:"-"`
	Error       string `json:"error,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	// Reported is the latest value of every name the script reported with
	// sim:report{ name = value } (absent when it reported none).
	Reported map[string]float64 `json:"reported,omitempty"`
}

func phase(p timing.PhaseTiming) phaseReport {
	return phaseReport{Frames: p.Frames, AvgMs: p.AvgMs, MaxMs: p.MaxMs}
}

// makeReport gathers how a headless run ended (engine.Result) into the report.
func makeReport(res engine.Result) runReport {
	info, st := res.Info, res.State
	tm := st.Total
	r := runReport{
		Scenario: info.Name, Nx: info.Nx, Ny: info.Ny, Layers: info.Layers, Columns: st.Columns,
		Dx: info.Dx, DtMs: st.Dt * 1e3, Backend: st.Backend, Workers: st.Workers,
		Steps: st.Steps, SimulatedS: st.Time, WallS: res.Wall.Seconds(),
		Simulation: phase(tm.Simulation), Surface: phase(tm.Surface), Render: phase(tm.Render),
		SimulationStepMs: tm.StepMs(), StepsPerFrame: tm.StepsPerFrame(), FPS: st.FPS, FrameSteps: st.FrameSteps,
		Total:    phase(res.Total.Timing()),
		VolumeMl: st.Volume * 1e6, AddedMl: st.Added * 1e6, RemovedMl: st.Removed * 1e6, RejectedMl: st.Rejected * 1e6,
		OutflowMl: st.Outflow * 1e6,
		Wet:       st.Wet, Passages: st.Passages, Extended: st.Extended,
		Particles: st.Particles, AirborneMl: st.Airborne * 1e6, HangingMl: st.Hanging * 1e6,
		Warnings: info.Warnings, OverlappedFrames: res.Overlapped,
	}
	if st.Substeps > 0 && st.Steps > 0 {
		r.SubstepsPerStep = float64(st.Substeps) / float64(st.Steps)
	}
	for _, v := range res.Reported {
		if r.Reported == nil {
			r.Reported = map[string]float64{}
		}
		r.Reported[v.Name] = v.Value
	}
	if tm.Waves.Frames > 0 {
		p := phase(tm.Waves)
		r.Waves, r.WaveCount = &p, st.WaveCount
	}
	if tm.Region.Frames > 0 {
		r.Region = &regionReport{phaseReport: phase(tm.Region), StepMs: tm.RegionStepMs(), Steps: tm.RegionSteps}
		if in := st.Region; st.HasRegion {
			r.Region.NX, r.Region.NY, r.Region.NZ, r.Region.CellMm, r.Region.Particles = in.NX, in.NY, in.NZ, in.H*1e3, in.Particles
		}
	}
	if res.Err != nil {
		r.Error = res.Err.Error()
		r.Interrupted = errors.Is(res.Err, context.Canceled)
	}
	// A resumed run's factors count the segment it ran, from the checkpoint's time.
	r.FromS = res.From
	ran := st.Time - res.From
	if res.Wall > 0 {
		r.RealTimeFactor = ran / res.Wall.Seconds()
	}
	// The steady factor leaves out the one-time set-up after the load (the terrain mesh,
	// the first frame's preparation), which weighs on short runs: the frames' own wall
	// time (Table 1's total) from the first frame on.
	if frames := res.Total.Sum(); frames > 0 {
		r.SteadyFactor = ran / frames.Seconds()
	}
	if st.Added > 0 {
		r.ConservationError = (st.Volume - (st.Added - st.Removed - st.Outflow)) / st.Added
	}
	return r
}

// print writes the report as the paper's Table 1 plus the run's figures.
func (r runReport) print(w io.Writer) {
	fmt.Fprintf(w, "\n%s: %dx%d cells, %d layers, %d columns, dx %g mm, dt %.3g ms, %s backend with %d workers\n",
		r.Scenario, r.Nx, r.Ny, r.Layers, r.Columns, r.Dx*1e3, r.DtMs, r.Backend, r.Workers)
	fmt.Fprintf(w, "  %-12s %10s %10s   (ms per frame, %d frames)\n", "", "avg", "max", r.Total.Frames)
	row := func(name string, p phaseReport, note string) {
		if p.Frames == 0 {
			fmt.Fprintf(w, "  %-12s %10s %10s   %s\n", name, "-", "-", note)
			return
		}
		fmt.Fprintf(w, "  %-12s %10.3f %10.3f\n", name, p.AvgMs, p.MaxMs)
	}
	row("simulation", r.Simulation, "")
	if r.Simulation.Frames > 0 {
		pace := fmt.Sprintf("%g frames a simulated second", r.FPS)
		switch {
		case r.FrameSteps > 0:
			pace = fmt.Sprintf("--frame-steps %d", r.FrameSteps)
		case r.WallPaced:
			pace = fmt.Sprintf("frames paced by the wall clock: %g a second in real time, fewer and longer as fast as possible", r.FPS)
		}
		fmt.Fprintf(w, "  %-12s %10.3f %10s   (%.2f steps a frame: %s)\n", "  per step", r.SimulationStepMs, "", r.StepsPerFrame, pace)
	}
	row("surface", r.Surface, "(not built: --surface)")
	if r.OverlappedFrames > 0 {
		fmt.Fprintf(w, "  %-12s %d of %d surfaces built beside the next frame's steps (--overlap)\n", "  overlapped", r.OverlappedFrames, r.Surface.Frames)
	}
	row("render", r.Render, "(no preview window: --preview, or the UI's w key)")
	if r.Waves != nil {
		fmt.Fprintf(w, "  %-12s %10.3f %10.3f   (%d wave particles at the end)\n", "waves", r.Waves.AvgMs, r.Waves.MaxMs, r.WaveCount)
	}
	if g := r.Region; g != nil {
		fmt.Fprintf(w, "  %-12s %10.3f %10.3f   (part of simulation: %.3f ms a step over its %d steps%s)\n",
			"3D region", g.AvgMs, g.MaxMs, g.StepMs, g.Steps, g.atTheEnd())
	}
	row("total", r.Total, "")
	from := "" // a resumed run: the segment it ran
	if r.FromS > 0 {
		from = fmt.Sprintf(" (%.3f s since the checkpoint at %.3f s)", r.SimulatedS-r.FromS, r.FromS)
	}
	fmt.Fprintf(w, "  steps %d, simulated %.3f s%s in %.3f s wall: %.2fx real time (%.2fx steady, without the set-up)\n",
		r.Steps, r.SimulatedS, from, r.WallS, r.RealTimeFactor, r.SteadyFactor)
	outflow := "" // what left through open sides: shown when there is some
	if r.OutflowMl != 0 {
		outflow = fmt.Sprintf(", outflow %.4f", r.OutflowMl)
	}
	fmt.Fprintf(w, "  volume %.4f ml: added %.4f, removed %.4f%s, rejected %.4f (conservation error %.2g)\n",
		r.VolumeMl, r.AddedMl, r.RemovedMl, outflow, r.RejectedMl, r.ConservationError)
	fmt.Fprintf(w, "  wet columns %d, flooded passages %d, extended pipes %d, in the air %.4f ml in %d particles, gathering at edges %.4f ml\n",
		r.Wet, r.Passages, r.Extended, r.AirborneMl-r.HangingMl, r.Particles, r.HangingMl)
	if r.SubstepsPerStep > 0 {
		fmt.Fprintf(w, "  shallow water equations: %.2f substeps a step (the fastest wave's)\n", r.SubstepsPerStep)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
}

// atTheEnd is the region in place at the end, for the report's region row: its cells
// and particles, or that it was removed.
func (g *regionReport) atTheEnd() string {
	if g.NX == 0 {
		return "; removed before the end"
	}
	return fmt.Sprintf("; %d×%d×%d cells of %.3g mm, %d particles at the end", g.NX, g.NY, g.NZ, g.CellMm, g.Particles)
}

// writeJSON writes v to path, naming the file in any error.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := fileout.Write(path, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return fmt.Errorf("--json: %w", err)
	}
	return nil
}
