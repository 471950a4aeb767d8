package scripts_test

// Every scenario of the library runs here headless, for a short simulated time, through the
// script package's Go API. Each run checks, after every chunk of steps, that the volume
// accounting is exact, that no height is NaN and that b <= h <= max in every column; then
// each scene checks that the liquid does what the scene's comment says it does.

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/script"
	"github.com/vpbench/vpbench/scripts"
	"github.com/vpbench/vpbench/terrain"
)

// volTol is the largest relative error allowed in Volume == Added - Removed.
const volTol = 1e-9

// run is one scenario being stepped.
type run struct {
	t     *testing.T
	name  string
	sc    *script.Scenario
	out   []string // what the script printed
	snap  gpusim.Snapshot
	done  bool
	chunk int // steps per Advance
	wall  time.Duration
	// worst is the largest relative error of Volume == Added - Removed - Outflow seen, and worstAt
	// the simulated time it was seen at.
	worst, worstAt float64
}

// load loads scripts/<name> with the given parameters.
func load(t *testing.T, name string, params map[string]string) *run {
	t.Helper()
	return loadMethod(t, name, params, "")
}

// loadMethod is load with the whole run's method set from outside (--method; "" keeps
// the script's).
func loadMethod(t *testing.T, name string, params map[string]string, method string) *run {
	t.Helper()
	r := &run{t: t, name: name, chunk: 25}
	opt := script.Options{
		Print:   func(msg string) { r.out = append(r.out, msg) },
		Params:  params,
		Method:  method,
		Workers: -1,
	}
	start := time.Now()
	sc, err := script.Load(name, opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r.wall += time.Since(start)
	r.sc = sc
	t.Cleanup(func() {
		sc.Close()
		t.Logf("%s %v: %.2f s simulated in %.2f s wall; volume accounting within %.2g relative", name, params, sc.Scene().Time(), r.wall.Seconds(), r.worst)
		if r.worst > volTol {
			t.Errorf("%s %v: volume %.3g relative off added - removed - outflow at t = %.3f s (allowed %g)", name, params, r.worst, r.worstAt, volTol)
		}
		if t.Failed() {
			t.Logf("%s printed:\n%s", name, strings.Join(r.out, "\n"))
		}
	})
	r.check()
	return r
}

// scene is the scenario's scene, the door to its solver.
func (r *run) scene() *scene.Scene { return r.sc.Scene() }

// copySnapshot copies s's snapshot into dst, reusing dst's buffers: the test's own copy,
// which the scene's next step leaves as it is (as the solver's Snapshot(dst) gives).
func copySnapshot(s *scene.Scene, dst *scene.Snapshot) {
	src := s.Snapshot()
	h, p, vx, vy := dst.Height, dst.Particles, dst.VX, dst.VY
	*dst = *src
	dst.Height = append(h[:0], src.Height...)
	dst.Particles = append(p[:0], src.Particles...)
	dst.VX, dst.VY = nil, nil
	if src.VX != nil {
		dst.VX, dst.VY = append(vx[:0], src.VX...), append(vy[:0], src.VY...)
	}
}

// cols is the current terrain's columns.
func (r *run) cols() *terrain.Columns { return r.snap.Columns }

// advance steps until the simulated time reaches until (or main returns), calling each
// (if not nil) after every chunk, with the invariants checked first.
func (r *run) advance(until float64, each func()) {
	r.t.Helper()
	for !r.done && r.sc.Scene().Time() < until-1e-9 {
		dt := r.scene().Dt()
		n := max(1, min(r.chunk, int(math.Ceil((until-r.sc.Scene().Time())/dt-1e-6))))
		start := time.Now()
		advDone, err := r.sc.Advance(n)
		done := advDone.Done
		r.wall += time.Since(start)
		if err != nil {
			r.t.Fatalf("%s: at t = %.3f s: %v", r.name, r.sc.Scene().Time(), err)
		}
		r.done = done
		r.check()
		if each != nil {
			each()
		}
	}
}

// check takes a snapshot and checks volume accounting, NaN and bounds.
func (r *run) check() {
	r.t.Helper()
	copySnapshot(r.scene(), &r.snap)
	s := &r.snap
	c := s.Columns
	if len(s.Height) != c.NumColumns() {
		r.t.Fatalf("%s: snapshot has %d heights for %d columns", r.name, len(s.Height), c.NumColumns())
	}
	for i, h := range s.Height {
		if math.IsNaN(float64(h)) || h < c.Base[i] || h > c.Max[i] {
			r.t.Fatalf("%s: t = %.3f s: column %d: h = %g outside [b, max] = [%g, %g]", r.name, s.Time, i, h, c.Base[i], c.Max[i])
		}
	}
	if math.IsNaN(s.Volume) {
		r.t.Fatalf("%s: t = %.3f s: volume is NaN", r.name, s.Time)
	}
	// Volume accounting: checked after every chunk, reported once at the end (see load).
	if d := math.Abs(s.Volume-(s.Added-s.Removed-s.Outflow)) / math.Max(s.Added, 1e-12); d > r.worst {
		r.worst, r.worstAt = d, s.Time
	}
}

// volume sums the liquid of the columns for which keep(x, y, i) holds, m^3 (x, y the cell
// centre, i the column).
func (r *run) volume(keep func(x, y float64, i int) bool) float64 {
	c, h := r.cols(), r.snap.Height
	var v float64
	for y := range c.Ny {
		for x := range c.Nx {
			cx, cy := c.CellCentre(x, y)
			lo, hi := c.Cell(x, y)
			for i := lo; i < hi; i++ {
				if d := float64(h[i]) - float64(c.Base[i]); d > 0 && keep(cx, cy, i) {
					v += d
				}
			}
		}
	}
	return v * c.Dx * c.Dx
}

// printed reports whether some printed line contains s.
func (r *run) printed(s string) bool {
	for _, l := range r.out {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// maxLayers is the largest number of columns in one cell.
func maxLayers(c *terrain.Columns) int {
	n := 0
	for k := range c.Nx * c.Ny {
		n = max(n, int(c.CellStart[k+1]-c.CellStart[k]))
	}
	return n
}

const ml = 1e-6 // m^3

// cpuOnlyOff are the parameters that turn off what a scene runs on the cpu backend only
// (bore.lua's and splash.lua's 3D regions: a region couples to the cpu backend's columns), so that the device
// backends' comparisons (pipelined_test.go, cuda_test.go) run the same scene on both.
var cpuOnlyOff = map[string]map[string]string{"bore.lua": {"region": "off"}, "splash.lua": {"region": "off"}, "jug.lua": {"region": "off"}, "drip.lua": {"region": "off"}}

// TestLibraryComplete: every scene the library promises is here, with a comment on top,
// and the embedded copies are the files.
func TestLibraryComplete(t *testing.T) {
	for _, name := range []string{"demo", "viscosity", "bowl", "three_layers", "passages", "cross_passage", "surgery", "coffee", "rock", "waterfall", "rain", "gauze", "fountain", "dambreak", "bore", "splash", "jug", "drip"} {
		src, err := os.ReadFile(name + ".lua")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.HasPrefix(string(src), "-- "+name+".lua: ") {
			t.Errorf("%s.lua does not open with a comment saying what it shows", name)
		}
		emb, err := scripts.FS.ReadFile(name + ".lua")
		if err != nil || string(emb) != string(src) {
			t.Errorf("%s.lua: the embedded library differs from the file (%v)", name, err)
		}
	}
	// Every scene in the folder has its test below: a new scene needs one.
	files, _ := filepath.Glob("*.lua")
	if len(files) != 18 {
		t.Errorf("the library has %d scenes, the tests know 18: %v", len(files), files)
	}
	demo, _ := os.ReadFile("demo.lua")
	if string(scripts.Demo) != string(demo) {
		t.Errorf("scripts.Demo is not demo.lua")
	}
}

// TestLibraryLongRun: the library's scenes that keep surface tension on (vp.sim's
// default) run 10,000 steps (30 s at dt 3 ms): every column within its bounds after
// every chunk, the volume balance exact (load's check), no NaN, and the liquid settled
// at the end: no column moving more than 0.25 mm in the last step (with one contact angle
// the demo's shore still flipped between advancing and receding, 0.7 mm a step, after 30 s;
// vp.sim's 10 degrees of hysteresis stopped it: the demo, coffee, surgery and waterfall
// move less than 0.02 microns a step, the rock 44 microns, the bowl 0.2 mm where a film
// left on its steep wall still recedes).
func TestLibraryLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("30 s of simulated time a scene")
	}
	for _, name := range []string{"demo.lua", "bowl.lua", "surgery.lua", "coffee.lua", "rock.lua", "waterfall.lua"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := load(t, name, nil)
			r.chunk = 500
			if st := r.scene().SolverSettings(); st.SurfaceTension == 0 {
				t.Fatalf("%s runs without surface tension", name)
			}
			steps := 0
			for !r.done && steps < 10000 {
				before := r.scene().Steps()
				r.advance(r.sc.Scene().Time()+float64(r.chunk)*r.scene().Dt(), nil)
				steps += int(r.scene().Steps() - before)
			}
			prev := append([]float32(nil), r.snap.Height...)
			r.chunk = 1
			r.advance(r.sc.Scene().Time()+r.scene().Dt(), nil)
			var moved float64
			for i, h := range r.snap.Height {
				moved = max(moved, math.Abs(float64(h-prev[i])))
			}
			t.Logf("%s: %d steps, %.1f s; the largest change of a column in the last step %.3g m", name, steps, r.snap.Time, moved)
			if steps < 10000 && !r.done {
				t.Errorf("%s: only %d steps", name, steps)
			}
			if moved > 2.5e-4 {
				t.Errorf("%s: a column still moves %.3g m a step after %d steps", name, moved, steps)
			}
		})
	}
}
