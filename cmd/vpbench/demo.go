package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// demoOptions are the knobs of the built-in demo.
type demoOptions struct {
	until        float64 // simulated s
	every        float64 // simulated s between progress lines
	workers      int
	viscosity    float64 // m^2/s
	crossSection string
	extended     string
	dx           float64 // m
}

func defaultDemoOptions() demoOptions {
	return demoOptions{until: 4, every: 0.5, viscosity: 4e-6, crossSection: "paper", extended: "unified", dx: 0.0005}
}

func (o demoOptions) validate() error {
	for _, f := range []struct {
		name string
		v    float64
		ok   bool
		want string
	}{
		{"--until", o.until, o.until > 0, "> 0 s"},
		{"--every", o.every, o.every > 0, "> 0 s"},
		{"--viscosity", o.viscosity, o.viscosity >= 0, ">= 0 m^2/s"},
		{"--dx", o.dx, o.dx > 0 && o.dx <= 0.01, "in (0, 0.01] m"},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || !f.ok {
			return fmt.Errorf("%s is %v: it must be %s", f.name, f.v, f.want)
		}
	}
	if o.workers < 0 {
		return fmt.Errorf("--workers is %d: it must be >= 0 (0 = all cores)", o.workers)
	}
	if _, err := gpusim.ParseCrossSection(o.crossSection); err != nil {
		return fmt.Errorf("--cross-section is %q: want \"paper\" or \"film\"", o.crossSection)
	}
	if _, err := gpusim.ParseExtendedPipes(o.extended); err != nil {
		return fmt.Errorf("--extended-pipes is %q: want \"unified\", \"axis\" or \"off\"", o.extended)
	}
	return nil
}

// demoScene is a 10 x 10 cm incline rising 10 degrees along x with a low rim at its foot,
// so the liquid runs down and pools; a 5 ml/s source pours at the top for 2 s.
func demoScene(dx float64) (terrain.Solid, terrain.Domain, gpusim.Emitter, error) {
	d := terrain.Domain{SizeX: 0.1, SizeY: 0.1, Height: 0.04, Dx: dx}
	angle := 10 * math.Pi / 180
	slope, err := terrain.Plane(terrain.Vec3{X: 0, Y: 0, Z: 0.004}, terrain.Vec3{X: -math.Sin(angle), Y: 0, Z: math.Cos(angle)})
	if err != nil {
		return nil, d, gpusim.Emitter{}, err
	}
	rim, err := terrain.Box(terrain.Vec3{X: 0, Y: 0, Z: 0}, terrain.Vec3{X: 0.004, Y: 0.1, Z: 0.012})
	if err != nil {
		return nil, d, gpusim.Emitter{}, err
	}
	solid, err := terrain.Union(slope, rim)
	if err != nil {
		return nil, d, gpusim.Emitter{}, err
	}
	src := gpusim.Emitter{X: 0.085, Y: 0.05, Z: 0.035, Radius: 0.004, Rate: 5e-6, Start: 0, Stop: 2}
	return solid, d, src, nil
}

func runDemo(o demoOptions, stdout, stderr io.Writer) error {
	solid, dom, src, err := demoScene(o.dx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	cols, err := terrain.Extract(solid, dom, 1)
	if err != nil {
		return fmt.Errorf("terrain: %w", err)
	}
	s := gpusim.DefaultSettings()
	s.Viscosity, s.Workers = o.viscosity, o.workers
	s.CrossSection, _ = gpusim.ParseCrossSection(o.crossSection)
	s.ExtendedPipes, _ = gpusim.ParseExtendedPipes(o.extended)
	sim, err := gpusim.New(cols, s)
	if err != nil {
		return err
	}
	defer sim.Close()
	for _, w := range sim.Warnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if _, err := sim.AddEmitter(src); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	st := sim.Stats()
	fmt.Fprintf(stdout, "vpbench demo: a source pouring onto a 10 degree incline\n")
	fmt.Fprintf(stdout, "grid %dx%d, %d columns, %d pipes, dx = %g m, dt = %.3g ms, %s, %s backend with %d workers (built in %s)\n",
		cols.Nx, cols.Ny, st.Columns, st.Pipes, cols.Dx, sim.Dt()*1e3, s, st.Backend, st.Workers, time.Since(t0).Round(time.Millisecond))
	fmt.Fprintf(stdout, "%8s %10s %8s %12s\n", "time s", "volume ml", "wet", "steps/s")

	stepsPerLine := max(int(math.Round(o.every/sim.Dt())), 1)
	start := time.Now()
	lastWall, lastSteps := start, int64(0)
	for sim.Time() < o.until-sim.Dt()/2 {
		n := min(stepsPerLine, int(math.Ceil((o.until-sim.Time())/sim.Dt()-0.5)))
		sim.Step(max(n, 1))
		st = sim.Stats()
		now := time.Now()
		rate := float64(st.Steps-lastSteps) / now.Sub(lastWall).Seconds()
		lastWall, lastSteps = now, st.Steps
		fmt.Fprintf(stdout, "%8.3f %10.3f %8d %12.0f\n", st.Time, st.Volume*1e6, st.Wet, rate)
	}
	wall := time.Since(start).Seconds()
	fmt.Fprintf(stdout, "\nsummary\n")
	fmt.Fprintf(stdout, "  steps              %d (dt = %.3g ms)\n", st.Steps, st.Dt*1e3)
	fmt.Fprintf(stdout, "  simulated time     %.3f s in %.3f s wall: %.1fx real time\n", st.Time, wall, st.Time/wall)
	fmt.Fprintf(stdout, "  step               %.3f ms mean (%.0f M column-steps/s)\n",
		st.StepWall.Seconds()*1e3/float64(st.Steps), float64(st.Columns)*float64(st.Steps)/st.StepWall.Seconds()/1e6)
	fmt.Fprintf(stdout, "  passages           %d flooded, %d extended pipes (%s)\n", st.Passages, st.Extended, s.ExtendedPipes)
	fmt.Fprintf(stdout, "  volume             %.4f ml (added %.4f, removed %.4f, rejected %.4f)\n",
		st.Volume*1e6, st.Added*1e6, st.Removed*1e6, st.Rejected*1e6)
	drift := st.Volume - (st.Added - st.Removed)
	fmt.Fprintf(stdout, "  conservation       volume - (added - removed) = %.3g m^3 (%.2g relative)\n",
		drift, drift/math.Max(st.Added, 1e-30))
	return nil
}
