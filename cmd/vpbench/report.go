package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/vpbench/vpbench/internal/fileout"
	"github.com/vpbench/vpbench/script"
)

// phaseReport is one row of the paper's Table 1: ms per frame.
type phaseReport struct {
	Frames int     `json:"frames"`
	AvgMs  float64 `json:"avg_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// runReport is what a run prints at its end and writes with --json.
type runReport struct {
	Scenario       string      `json:"scenario"`
	Nx             int         `json:"nx"`
	Ny             int         `json:"ny"`
	Layers         int         `json:"layers"`
	Columns        int         `json:"columns"`
	Dx             float64     `json:"dx_m"`
	DtMs           float64     `json:"dt_ms"`
	Backend        string      `json:"backend"`
	Workers        int         `json:"workers"`
	Steps          int64       `json:"steps"`
	SimulatedS     float64     `json:"simulated_s"`
	WallS          float64     `json:"wall_s"`
	RealTimeFactor float64     `json:"real_time_factor"`
	Simulation     phaseReport `json:"simulation"`
	Surface        phaseReport `json:"surface"`
	Render         phaseReport `json:"render"`
	Total          phaseReport `json:"total"`
	VolumeMl       float64     `json:"volume_ml"`
	AddedMl        float64     `json:"added_ml"`
	RemovedMl      float64     `json:"removed_ml"`
	RejectedMl     float64     `json:"rejected_ml"`
	// ConservationError is (volume - (added - removed)) / added: float rounding only.
	ConservationError float64  `json:"conservation_error"`
	Wet               int      `json:"wet_columns"`
	Passages          int      `json:"passages"`
	Extended          int      `json:"extended_pipes"`
	Warnings          []string `json:"warnings,omitempty"`
	Error             string   `json:"error,omitempty"`
	Interrupted       bool     `json:"interrupted,omitempty"`
}

func phase(p script.PhaseTiming) phaseReport {
	return phaseReport{Frames: p.Frames, AvgMs: p.AvgMs, MaxMs: p.MaxMs}
}

// makeReport gathers the scenario's state after a run that took wall; total holds the
// command's own whole-frame times (Advance, plus surface and render once they exist).
func makeReport(sc *script.Scenario, wall time.Duration, total *script.PhaseClock) runReport {
	info := sc.Info()
	st := sc.Sim().Stats()
	tm := sc.Timings()
	r := runReport{
		Scenario: info.Name, Nx: info.Nx, Ny: info.Ny, Layers: info.Layers, Columns: st.Columns,
		Dx: info.Dx, DtMs: st.Dt * 1e3, Backend: st.Backend, Workers: st.Workers,
		Steps: st.Steps, SimulatedS: st.Time, WallS: wall.Seconds(),
		Simulation: phase(tm.Simulation), Surface: phase(tm.Surface), Render: phase(tm.Render),
		Total:    phase(total.Timing()),
		VolumeMl: st.Volume * 1e6, AddedMl: st.Added * 1e6, RemovedMl: st.Removed * 1e6, RejectedMl: st.Rejected * 1e6,
		Wet: st.Wet, Passages: st.Passages, Extended: st.Extended,
		Warnings: info.Warnings,
	}
	if wall > 0 {
		r.RealTimeFactor = st.Time / wall.Seconds()
	}
	if st.Added > 0 {
		r.ConservationError = (st.Volume - (st.Added - st.Removed)) / st.Added
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
	row("surface", r.Surface, "(not built: --surface)")
	row("render", r.Render, "(no preview window: --preview, or the UI's w key)")
	row("total", r.Total, "")
	fmt.Fprintf(w, "  steps %d, simulated %.3f s in %.3f s wall: %.2fx real time\n", r.Steps, r.SimulatedS, r.WallS, r.RealTimeFactor)
	fmt.Fprintf(w, "  volume %.4f ml: added %.4f, removed %.4f, rejected %.4f (conservation error %.2g)\n",
		r.VolumeMl, r.AddedMl, r.RemovedMl, r.RejectedMl, r.ConservationError)
	fmt.Fprintf(w, "  wet columns %d, flooded passages %d, extended pipes %d\n", r.Wet, r.Passages, r.Extended)
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
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
