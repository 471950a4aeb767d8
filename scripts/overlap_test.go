package scripts_test

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/surface"
)

// TestOverlapSameSurface: a surface built on the overlap's goroutine while the solver
// steps on (scene.StartSurface, FinishSurface) is the surface BuildSurface makes of the
// same state, bit for bit, and the steps taken meanwhile are the steps taken without it:
// coffee (drops in the air over a multi-layer scene), fountain (the waves' displaced
// heights and a spray) and gauze (a passage). Run with -race, it also finds what the
// building goroutine and the steps would share.
func TestOverlapSameSurface(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, name := range []string{"coffee", "fountain", "gauze"} {
		t.Run(name, func(t *testing.T) {
			load := func() *script.Scenario {
				sc, err := script.Load(name+".lua", script.Options{Print: func(string) {}, Backend: "cpu", Workers: -1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(sc.Close)
				return sc
			}
			run := func(sc *script.Scenario, until float64) {
				for sc.Scene().Time() < until-1e-9 {
					if _, err := sc.Advance(6); err != nil {
						t.Fatal(err)
					}
				}
			}
			a, b := load(), load()
			run(a, 0.6)
			run(b, 0.6)
			if !b.Scene().SetOverlap(true) {
				t.Fatal("SetOverlap(true) on the cpu backend with 2 cores: the overlap stays off")
			}
			for frame := range 3 {
				want, err := a.Scene().BuildSurface()
				if err != nil {
					t.Fatal(err)
				}
				want = cloneMesh(want)
				start := b.Scene().Time()
				if err := b.Scene().StartSurface(); err != nil {
					t.Fatal(err)
				}
				run(a, a.Scene().Time()+0.1)
				run(b, b.Scene().Time()+0.1) // while the surface builds
				got, _, at, ok := b.Scene().FinishSurface()
				if !ok {
					t.Fatal("FinishSurface: no surface after StartSurface")
				}
				if at != start {
					t.Errorf("frame %d: the surface's time %g, want the state's at StartSurface, %g", frame, at, start)
				}
				if !sameMesh(got, want) {
					t.Fatalf("frame %d: the overlapped surface (%d vertices, %d indices) differs from BuildSurface's (%d, %d)",
						frame, len(got.Positions)/3, len(got.Indices), len(want.Positions)/3, len(want.Indices))
				}
				ha, hb := a.Scene().Snapshot().Height, b.Scene().Snapshot().Height
				if !slices.Equal(ha, hb) {
					t.Fatalf("frame %d: the heights after the steps taken beside the build differ from the steps taken alone", frame)
				}
			}
			// Off again, the surface is built in step and is the same.
			b.Scene().SetOverlap(false)
			want, _ := a.Scene().BuildSurface()
			want = cloneMesh(want)
			got, err := b.Scene().BuildSurface()
			if err != nil || !sameMesh(got, want) {
				t.Fatalf("after SetOverlap(false): %v, or the surface differs", err)
			}
		})
	}
}

func cloneMesh(m *surface.Mesh) *surface.Mesh {
	c := *m
	c.Positions, c.Normals, c.Opacity = slices.Clone(m.Positions), slices.Clone(m.Normals), slices.Clone(m.Opacity)
	c.Indices = slices.Clone(m.Indices)
	return &c
}

func sameMesh(a, b *surface.Mesh) bool {
	bits := func(x, y []float32) bool {
		return slices.EqualFunc(x, y, func(p, q float32) bool { return math.Float32bits(p) == math.Float32bits(q) })
	}
	return bits(a.Positions, b.Positions) && bits(a.Normals, b.Normals) && bits(a.Opacity, b.Opacity) &&
		slices.Equal(a.Indices, b.Indices) && a.SideIndex == b.SideIndex && a.SideTop == b.SideTop
}
