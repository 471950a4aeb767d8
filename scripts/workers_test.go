package scripts_test

import (
	"hash/fnv"
	"math"
	"testing"

	"github.com/vpbench/vpbench/script"
)

// TestLibraryWorkersSameBits: every scene of the library gives the same bits with 1, 2
// and 3 workers (the standard every parallel phase keeps: results do not depend on the
// number of workers): after 0.3 s (0.15 s with -short) the columns' heights, the
// particles in the air, the volume's books and the liquid surface's mesh (the waves'
// displacement, the liquid in the air and the region's drawn with it) hash the same.
func TestLibraryWorkersSameBits(t *testing.T) {
	until := 0.3
	if testing.Short() {
		until = 0.15
	}
	for _, name := range []string{"demo", "viscosity", "bowl", "three_layers", "passages", "cross_passage", "surgery", "coffee", "rock", "waterfall", "rain", "gauze", "fountain", "dambreak", "bore", "splash", "jug", "drip"} {
		t.Run(name, func(t *testing.T) {
			var first uint64
			until := until
			if name == "splash" {
				until = 0.15 // its drop lands at 0.09 s; its region costs 90 ms a step
			}
			if name == "drip" {
				until = 0.25 // its first drop lands at 0.22 s
			}
			if name == "jug" {
				until = 0.21 // its stream reaches the glass's water at 0.2 s; its region costs 100 ms a step and more
			}
			for _, workers := range []int{1, 2, 3} {
				h := workersRun(t, name+".lua", workers, until)
				if workers == 1 {
					first = h
				} else if h != first {
					t.Errorf("%s at %g s: %d workers give state %016x, 1 worker %016x", name, until, workers, h, first)
				}
			}
		})
	}
}

// workersRun runs a library scene with the given workers to until and hashes its state.
func workersRun(t *testing.T, name string, workers int, until float64) uint64 {
	t.Helper()
	sc, err := script.Load(name, script.Options{Print: func(string) {}, Workers: workers})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer sc.Close()
	for sc.Scene().Time() < until-1e-9 {
		adv, err := sc.Advance(10)
		if err != nil {
			t.Fatalf("%s, %d workers, t = %.3f s: %v", name, workers, sc.Scene().Time(), err)
		}
		if adv.Done {
			break
		}
	}
	s := sc.Scene()
	if got := s.SolverSettings().Workers; got != workers {
		t.Fatalf("%s: the solver runs %d workers, asked for %d", name, got, workers)
	}
	s.Sync()
	sn := s.Snapshot()
	f := fnv.New64a()
	put := func(v float64) {
		b := math.Float64bits(v)
		f.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
	}
	for _, h := range sn.Height {
		put(float64(h))
	}
	for _, p := range sn.Particles {
		put(float64(p.X))
		put(float64(p.Y))
		put(float64(p.Z))
		put(float64(p.VZ))
	}
	put(sn.Volume)
	put(sn.Added)
	put(sn.Outflow)
	put(float64(s.Steps()))
	m, err := s.BuildSurface()
	if err != nil {
		t.Fatalf("%s: the surface: %v", name, err)
	}
	for _, p := range m.Positions {
		put(float64(p))
	}
	return f.Sum64()
}
