package main

import (
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

// checkCommand is `vpbench check [flags] scenario.lua`: load and build the scene, report
// what it is, run nothing.
func checkCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("vpbench check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f scenarioFlags
	f.register(fs)
	// Its help is help.go's, from these flags.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("vpbench check takes one scenario file")
	}
	sc, err := loadScenario(pos[0], f.options(printer(stdout)))
	if err != nil {
		return err
	}
	defer sc.Close()
	in := sc.Info()
	fmt.Fprintf(stdout, "%s: ok\n", in.Name)
	fmt.Fprintf(stdout, "  domain      %g x %g x %g m\n", in.SizeX, in.SizeY, in.Height)
	fmt.Fprintf(stdout, "  grid        %d x %d cells of %g mm, up to %d layers\n", in.Nx, in.Ny, in.Dx*1e3, in.Layers)
	fmt.Fprintf(stdout, "  columns     %d (%d pipes)", in.Columns, in.Pipes)
	if in.DroppedIntervals > 0 {
		fmt.Fprintf(stdout, ", %d free intervals dropped (more than %d in a cell)", in.DroppedIntervals, in.Layers)
	}
	fmt.Fprintln(stdout)
	if in.TerrainMarched == "" {
		fmt.Fprintf(stdout, "  terrain     each ray's intervals from the solids themselves\n")
	} else {
		fmt.Fprintf(stdout, "  terrain     marched up each ray (slower to load): %s\n", in.TerrainMarched)
	}
	fmt.Fprintf(stdout, "  memory      about %s for the solver\n", terrain.FormatBytes(in.MemoryBytes))
	fmt.Fprintf(stdout, "  time step   %.3g ms (stability limit %.3g ms)\n", in.Dt*1e3, in.StableDt*1e3)
	fmt.Fprintf(stdout, "  backend     %s with %d workers\n", in.Backend, in.Workers)
	fmt.Fprintf(stdout, "  settings    %s\n", in.Settings)
	writeSceneContents(stdout, sc.Scene())
	for _, w := range in.Warnings {
		fmt.Fprintf(stdout, "  warning     %s\n", w)
	}
	return nil
}

// checkListMax is the most sources, sinks or bodies check lists one by one; the rest are
// counted.
const checkListMax = 10

// writeSceneContents lists what the script put in the scene at load: its sources and
// sinks (place, radius, rate, schedule), the sprays among the sources, the floating
// bodies, the flow meters, the 3D region and whether waves run. What main or a callback adds later is
// not there yet.
func writeSceneContents(w io.Writer, sc *scene.Scene) {
	var sources, sinks []scene.EmitterState
	for _, e := range sc.EmitterStates() {
		if e.Rate < 0 {
			sinks = append(sinks, e)
		} else {
			sources = append(sources, e)
		}
	}
	solver := sc.Emitters()
	listEmitters(w, "sources", "source", sources, solver)
	listEmitters(w, "sinks", "sink", sinks, solver)
	sprays := 0
	for _, e := range solver {
		if e.Falls && (e.Spread[0] > 0 || e.Spread[1] > 0) {
			sprays++
		}
	}
	if sprays > 0 {
		fmt.Fprintf(w, "  sprays      %d (among the sources)\n", sprays)
	} else {
		fmt.Fprintf(w, "  sprays      none\n")
	}
	var bodies []string
	for _, b := range sc.Bodies() {
		if b.Removed() {
			continue
		}
		x, y, z := b.Position()
		bodies = append(bodies, fmt.Sprintf("density %.4g kg/m^3 (%s), %.4g ml (%.4g g), at (%s) mm",
			b.Density(), floatsOrSinks(b.Density(), sc.SolverSettings().Density), b.Volume()*1e6, b.Mass()*1e3, mm(x, y, z)))
	}
	listLines(w, "bodies", "body", bodies)
	var meters []string
	for id := range sc.Meters() {
		m, err := sc.Meter(id)
		if err != nil {
			continue
		}
		z := "at every height"
		if !math.IsInf(m.Zmin, -1) || !math.IsInf(m.Zmax, 1) {
			z = fmt.Sprintf("z %.4g to %.4g mm", m.Zmin*1e3, m.Zmax*1e3)
		}
		meters = append(meters, fmt.Sprintf("from (%.4g, %.4g) to (%.4g, %.4g) mm, %s (sim:flow)", m.X1*1e3, m.Y1*1e3, m.X2*1e3, m.Y2*1e3, z))
	}
	listLines(w, "meters", "meter", meters)
	if in, ok := sc.RegionInfo(); ok {
		fmt.Fprintf(w, "  region      [%.4g, %.4g] x [%.4g, %.4g] x [%.4g, %.4g] mm, %d x %d x %d cells of %.4g mm (refine %d), %d particles (sim:region)\n",
			in.Min[0]*1e3, in.Max[0]*1e3, in.Min[1]*1e3, in.Max[1]*1e3, in.Min[2]*1e3, in.Max[2]*1e3, in.NX, in.NY, in.NZ, in.H*1e3, in.Refine, in.Particles)
	} else {
		fmt.Fprintf(w, "  region      none\n")
	}
	if sc.WavesOn() {
		fmt.Fprintf(w, "  waves       on\n")
	} else {
		fmt.Fprintf(w, "  waves       off\n")
	}
}

// listEmitters writes the sources or sinks, one a line: place, radius, rate, schedule, and
// from the solver's record of it (solver, by id) whether it pours from its point, sprays
// or holds a level.
func listEmitters(w io.Writer, plural, one string, es []scene.EmitterState, solver []scene.Emitter) {
	lines := make([]string, len(es))
	for i, e := range es {
		kind := ""
		if e.ID >= 0 && e.ID < len(solver) {
			kind = emitterKind(solver[e.ID])
		}
		when := "from the start"
		switch {
		case e.Stopped:
			when = "stopped"
		case e.Start > 0 && math.IsInf(e.Stop, 1):
			when = fmt.Sprintf("from t = %g s", e.Start)
		case !math.IsInf(e.Stop, 1):
			when = fmt.Sprintf("t = %g to %g s", e.Start, e.Stop)
		}
		lines[i] = fmt.Sprintf("at (%s) mm, radius %.3g mm, %.4g ml/s, %s%s", mm(e.X, e.Y, e.Z), e.Radius*1e3, math.Abs(e.Rate)*1e6, when, kind)
	}
	listLines(w, plural, one, lines)
}

// emitterKind says how a source or sink acts beyond its rate: ", sprays ..." , ", pours
// from its point ...", ", holds the level ...", or "".
func emitterKind(e scene.Emitter) string {
	speed := math.Sqrt(e.VX*e.VX + e.VY*e.VY + e.VZ*e.VZ)
	switch {
	case e.Falls && (e.Spread[0] > 0 || e.Spread[1] > 0):
		return fmt.Sprintf(", sprays at %.3g m/s within %.3g x %.3g degrees", speed, e.Spread[0]*180/math.Pi, e.Spread[1]*180/math.Pi)
	case e.Falls:
		return fmt.Sprintf(", pours from its point at %.3g m/s", speed)
	case e.Holds:
		return fmt.Sprintf(", holds the level z = %.4g mm", e.Level*1e3)
	}
	return ""
}

// listLines writes "  plural  N" and then up to checkListMax lines "    one i  line";
// "  plural  none" when there are none.
func listLines(w io.Writer, plural, one string, lines []string) {
	if len(lines) == 0 {
		fmt.Fprintf(w, "  %-11s none\n", plural)
		return
	}
	fmt.Fprintf(w, "  %-11s %d\n", plural, len(lines))
	for i, l := range lines {
		if i == checkListMax {
			fmt.Fprintf(w, "    ... and %d more\n", len(lines)-checkListMax)
			break
		}
		fmt.Fprintf(w, "    %s %d: %s\n", one, i+1, l)
	}
}

// mm writes a point in metres as millimetres: "50, 50, 12.5".
func mm(x, y, z float64) string {
	return fmt.Sprintf("%.4g, %.4g, %.4g", x*1e3, y*1e3, z*1e3)
}

// floatsOrSinks says whether a body of this density floats on the liquid (its density
// liquid, kg/m^3) or sinks.
func floatsOrSinks(density, liquid float64) string {
	if density < liquid {
		return fmt.Sprintf("floats: the liquid's is %.4g", liquid)
	}
	return fmt.Sprintf("sinks: the liquid's is %.4g", liquid)
}
