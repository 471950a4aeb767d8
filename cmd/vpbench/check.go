package main

import (
	"flag"
	"fmt"
	"io"

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
	for _, w := range in.Warnings {
		fmt.Fprintf(stdout, "  warning     %s\n", w)
	}
	return nil
}
