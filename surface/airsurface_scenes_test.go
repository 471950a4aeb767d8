package surface

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The library's scenes with liquid in the air, their particles at one moment
// (testdata/air/NAME.txt: written from the scenario at that time, x y z radius vx vy vz
// a line, float32 bits): the waterfall's stream at 1.5 s, the rock's paint running off
// its bulges at 1 s, the surgery's blood running off the arch at 1 s, the fountain's
// spray at 1 s, and the fountain at 1 s on a solver that keeps parcels waiting where they
// landed (fountain_now: 2333, dozens of them in one place on the pedestal).
var airScenes = []string{"waterfall", "rock", "surgery", "fountain", "fountain_now"}

// airSceneDrops reads testdata/air/name.txt.
func airSceneDrops(tb testing.TB, name string) []Drop {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "air", name+".txt"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var drops []Drop
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		var d Drop
		if _, err := fmt.Sscan(line, &d.X, &d.Y, &d.Z, &d.Radius, &d.VX, &d.VY, &d.VZ); err != nil {
			tb.Fatalf("%s: %q: %v", name, line, err)
		}
		drops = append(drops, d)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return drops
}

// BenchmarkAirSurfaceScenes: the liquid in the air of one frame of each library scene
// with falling liquid (airScenes), meshed and appended to an empty mesh, as the scene
// does every frame; reports ms/frame and the mesh's size.
func BenchmarkAirSurfaceScenes(b *testing.B) {
	for _, name := range airScenes {
		b.Run(name, func(b *testing.B) {
			drops := airSceneDrops(b, name)
			a := NewAirSurface(DefaultAirSettings())
			m := &Mesh{}
			a.Append(m, drops, airBox)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m.Positions, m.Normals, m.Opacity, m.Indices = m.Positions[:0], m.Normals[:0], m.Opacity[:0], m.Indices[:0]
				a.Append(m, drops, airBox)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/frame")
			b.ReportMetric(float64(len(drops)), "drops")
			b.ReportMetric(float64(m.NumTriangles()), "triangles")
		})
	}
}
