package surface

import (
	"math"
	"sync"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// benchScene is a scene built once per test binary.
type benchScene struct {
	once sync.Once
	c    *terrain.Columns
	tm   *terrain.Mesh
	h    []float32
}

func (s *benchScene) get(b testing.TB, build func(testing.TB) (*terrain.Columns, *terrain.Mesh, []float32)) (*terrain.Columns, *terrain.Mesh, []float32) {
	s.once.Do(func() { s.c, s.tm, s.h = build(b) })
	if s.c == nil {
		b.Fatal("scene failed to build")
	}
	return s.c, s.tm, s.h
}

var inclineBench, layersBench benchScene

// inclineScene is the paper's viscosity scene size: 200 x 200 cells of 0.5 mm, a plane
// rising at 15 degrees along x from 1 mm. Wet: a lake over the lowest fifth, a rivulet
// down the middle and six puddles of up to 1.2 mm.
func inclineScene(tb testing.TB) (*terrain.Columns, *terrain.Mesh, []float32) {
	const n, dx = 200, 0.0005
	w := n * dx
	a := 15 * math.Pi / 180
	plane := solid(terrain.Plane(terrain.Vec3{X: 0, Y: 0, Z: 0.001}, terrain.Vec3{X: -math.Sin(a), Y: 0, Z: math.Cos(a)}))
	c, m := extract(tb, plane, n, dx, 0.001+w*math.Tan(a)+0.01, 1)
	level := float32(0.001 + 0.2*w*math.Tan(a))
	type p struct{ x, y, r float64 }
	puddles := []p{{0.35, 0.2, 0.08}, {0.5, 0.75, 0.1}, {0.65, 0.3, 0.07}, {0.8, 0.6, 0.09}, {0.9, 0.15, 0.05}, {0.3, 0.85, 0.06}}
	h := lake(c, level, func(x, y float64, _ float32) float32 {
		d := 0.0
		if q := (y - 0.5*w) / (0.03 * w); x < 0.9*w {
			d = 0.0008 * (1 - q*q)
		}
		for _, pd := range puddles {
			q := ((x-pd.x*w)*(x-pd.x*w) + (y-pd.y*w)*(y-pd.y*w)) / (pd.r * w * pd.r * w)
			d = max(d, 0.0012*(1-q))
		}
		return float32(d)
	})
	return c, m, h
}

// benchBuild measures Build on one state, with the meniscus and the convex cap (a camera
// above the scene), and reports ms/frame with the scene's size.
func benchBuild(b *testing.B, c *terrain.Columns, tm *terrain.Mesh, h []float32) {
	cam := [3]float64{0.05, -0.1, 0.15}
	s := DefaultSettings()
	s.Camera = &cam
	bl, err := NewBuilder(c, tm, s)
	if err != nil {
		b.Fatal(err)
	}
	m := bl.Build(h)
	wet := len(bl.wetList)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		bl.Build(h)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/frame")
	b.ReportMetric(float64(c.NumColumns()), "columns")
	b.ReportMetric(float64(wet), "wet")
	b.ReportMetric(float64(m.NumTriangles()), "triangles")
}

// BenchmarkSurfaceIncline200: one whole frame (links, boundaries, triangles, normals,
// meniscus with the convex cap) of the 200 x 200 x 1 incline, partly wet, dx 0.5 mm.
func BenchmarkSurfaceIncline200(b *testing.B) {
	c, tm, h := inclineBench.get(b, inclineScene)
	benchBuild(b, c, tm, h)
}

// BenchmarkSurfaceLayers200x5: one whole frame of a 200 x 200 terrain with up to five
// columns a cell (four pierced slabs over a tilted floor, a pillar through the first),
// a lake over half of the floor under the slabs and a puddle on each slab, dx 0.5 mm.
func BenchmarkSurfaceLayers200x5(b *testing.B) {
	c, tm, h := layersBench.get(b, func(tb testing.TB) (*terrain.Columns, *terrain.Mesh, []float32) {
		return layersScene(tb, 200, 0.0005, 5)
	})
	benchBuild(b, c, tm, h)
}

// BenchmarkAirSurface5000: the liquid in the air of one frame, 5,000 drops (airBenchDrops:
// a falling stream of 4,000 and 1,000 scattered, radius 0.3-0.6 mm), meshed and appended
// to an empty mesh; reports ms/frame, the lattice spacing, the tiles, the lone drops and
// the mesh's size. BenchmarkAirSurface5000Fine: the same at RadiusCells 1.5.
func BenchmarkAirSurface5000(b *testing.B) { benchAir(b, DefaultAirSettings()) }

func BenchmarkAirSurface5000Fine(b *testing.B) {
	s := DefaultAirSettings()
	s.RadiusCells = 1.5
	benchAir(b, s)
}

func benchAir(b *testing.B, s AirSettings) {
	drops := airBenchDrops(5000)
	a := NewAirSurface(s)
	m := &Mesh{}
	a.Append(m, drops, airBox)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Positions, m.Normals, m.Opacity, m.Indices = m.Positions[:0], m.Normals[:0], m.Opacity[:0], m.Indices[:0]
		a.Append(m, drops, airBox)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/frame")
	b.ReportMetric(a.Spacing()*1e3, "h_mm")
	b.ReportMetric(float64(len(a.tiles)), "tiles")
	b.ReportMetric(float64(len(a.lone)), "lone")
	b.ReportMetric(float64(m.NumTriangles()), "triangles")
}
