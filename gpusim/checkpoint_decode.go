package gpusim

// A checkpoint as read: its state decoded from the payload (decodeCheckpoint), then
// checked against the Sim before anything changes (checkCheckpoint).

import (
	"fmt"
	"math"
	"slices"

	"github.com/vpbench/vpbench/terrain"
)

// checkpoint is a checkpoint's state as read, before it is checked against the Sim.
type checkpoint struct {
	time     float64
	steps    int64
	dt       float64
	settings Settings
	acct     accounting
	h, r, f  []float32
	capOn    bool
	capFresh bool
	capPrev  []float32
	capWet   []uint8 // the wetted flags (version 6; contactline.go)
	ext      extSaved
	emitters []Emitter
	active   []bool
	fall     fallSaved
	// liftCol and liftFloor are the columns whose floors bodies lifted and those floors
	// (version 3; floors.go).
	liftCol   []int32
	liftFloor []float32
	// sweD is the shallow water equations' face depth per pipe (version 5; swe.go).
	sweD []float32
	// held is the held columns in Hold's order (version 7; held.go; nil: none), landed
	// the parcels landed on them not yet taken (TakeLanded). acct.exchanged is read with
	// them.
	held   []int32
	landed []Particle
}

// extSaved is the extended pipes' flux history: what the next rebuild of the passages
// takes their fluxes from (extended.rebuild; the passages themselves follow from the
// heights). Unified: each opening's column, key and final flux (extended.uCol, uKey,
// uF); axis: each pipe's key and final flux (extended.aPrev), by key.
type extSaved struct {
	mode ExtendedPipes
	uCol []int32
	uKey []uint64
	uF   []float32
	aKey []uint64
	aF   []float32
}

// fallSaved is the particle phase's state: the dripping edges' drops and the particles.
type fallSaved struct {
	pend, idle, rate, took    []float64
	npend                     uint64
	released, landed, outflow float64
	x, y, z, vx, vy, vz       []float32
	vol                       []float64
	col                       []int32
}

// decodeCheckpoint reads the payload after the fingerprint (d.err on a short read).
func decodeCheckpoint(d *ckDec) *checkpoint {
	cp := &checkpoint{}
	d.what = "the clock"
	cp.time, cp.steps, cp.dt = d.f64(), int64(d.u64()), d.f64()
	d.what = "the settings"
	cp.settings = decodeSettings(d)
	d.what = "the accounting"
	cp.acct = accounting{added: d.f64(), removed: d.f64(), rejected: d.f64(), outflow: d.f64()}
	d.what = "the heights"
	cp.h = d.f32s()
	d.what = "the residuals"
	cp.r = d.f32s()
	d.what = "the fluxes"
	cp.f = d.f32s()
	d.what = "the capillary head"
	if cp.capOn = d.bool(); cp.capOn {
		cp.capFresh = d.bool()
		cp.capPrev = d.f32s()
		if d.wetted { // before version 6, none: the resume's writeHeight flags the wet columns
			d.what = "the wetted flags"
			cp.capWet = slices.Clone(d.take(d.count(1)))
		}
	}
	d.what = "the extended pipes"
	cp.ext.mode = ExtendedPipes(d.u8())
	cp.ext.uCol, cp.ext.uKey, cp.ext.uF = d.i32s(), d.u64s(), d.f32s()
	cp.ext.aKey, cp.ext.aF = d.u64s(), d.f32s()
	d.what = "the sources and sinks"
	size := 7*8 + 1 + 3*8 + 3*8 + 1
	if d.v1 {
		size = 7*8 + 1 + 3*8 + 1
	}
	if d.held {
		size += 1 + 8
	}
	ne := d.count(size)
	for range ne {
		var e Emitter
		e.X, e.Y, e.Z, e.Radius, e.Rate, e.Start, e.Stop = d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64(), d.f64()
		e.Falls = d.bool()
		e.VX, e.VY, e.VZ = d.f64(), d.f64(), d.f64()
		if !d.v1 {
			e.Spread[0], e.Spread[1], e.Seed = d.f64(), d.f64(), d.u64()
		}
		if d.held {
			e.Holds, e.Level = d.bool(), d.f64()
		}
		cp.emitters = append(cp.emitters, e)
		cp.active = append(cp.active, d.bool())
	}
	d.what = "the dripping edges"
	f := &cp.fall
	f.pend, f.idle, f.rate, f.took = d.f64s(), d.f64s(), d.f64s(), d.f64s()
	f.npend = d.u64()
	f.released, f.landed, f.outflow = d.f64(), d.f64(), d.f64()
	d.what = "the particles"
	np := d.count(6*4 + 8 + 4)
	f.x, f.y, f.z = make([]float32, np), make([]float32, np), make([]float32, np)
	f.vx, f.vy, f.vz = make([]float32, np), make([]float32, np), make([]float32, np)
	f.vol, f.col = make([]float64, np), make([]int32, np)
	for i := range np {
		f.x[i], f.y[i], f.z[i], f.vx[i], f.vy[i], f.vz[i] = d.f32(), d.f32(), d.f32(), d.f32(), d.f32(), d.f32()
		f.vol[i] = d.f64()
		f.col[i] = int32(d.u32())
	}
	if d.lifts {
		d.what = "the lifted floors"
		nl := d.count(8)
		cp.liftCol, cp.liftFloor = make([]int32, nl), make([]float32, nl)
		for k := range nl {
			cp.liftCol[k], cp.liftFloor[k] = int32(d.u32()), d.f32()
		}
	}
	if d.method {
		d.what = "the method"
		cp.settings.Method = Method(d.u8())
		if cp.settings.Method == MethodSWE {
			d.what = "the face depths"
			cp.sweD = d.f32s()
		}
	}
	if d.holds {
		d.what = "the held columns"
		if h := d.i32s(); len(h) > 0 {
			cp.held = h
		}
		cp.acct.exchanged = d.f64()
		d.what = "the parcels landed on held columns"
		nl := d.count(6*4 + 8)
		for range nl {
			p := Particle{X: d.f32(), Y: d.f32(), Z: d.f32(), VX: d.f32(), VY: d.f32(), VZ: d.f32()}
			p.Volume = d.f64()
			cp.landed = append(cp.landed, p)
		}
	}
	return cp
}

// checkCheckpoint checks a decoded checkpoint against the Sim's terrain and returns the
// settings to apply and the emitter set to install; it changes nothing.
func (s *Sim) checkCheckpoint(cp *checkpoint) (Settings, emitterSet, error) {
	c := s.cols
	n, np := c.NumColumns(), s.topo.numPipes()
	bad := func(format string, a ...any) (Settings, emitterSet, error) {
		return Settings{}, emitterSet{}, fmt.Errorf("checkpoint is corrupt: "+format, a...)
	}
	st := cp.settings
	st.Backend, st.Workers = s.settings.Backend, s.settings.Workers
	if err := st.Validate(); err != nil {
		return bad("settings: %v", err)
	}
	if st.Method != s.settings.Method && s.be.name() != "cpu" {
		return Settings{}, emitterSet{}, fmt.Errorf("checkpoint: it is of a run with method %q: the method changes mid-run on the cpu backend only, not on %s (make this Sim with method %q)",
			st.Method, s.be.name(), st.Method)
	}
	if st.Method == MethodSWE {
		if len(cp.sweD) != np {
			return bad("%d face depths for %d pipes", len(cp.sweD), np)
		}
		for p, d := range cp.sweD {
			if !(d >= 0) || !finite32(d) {
				return bad("pipe %d: face depth %g", p, d)
			}
		}
	}
	dt := st.Dt
	if dt == 0 {
		dt = AutoDt(c.Dx, st.Gravity)
	}
	if math.Float64bits(dt) != math.Float64bits(cp.dt) {
		return bad("dt %g s, its settings give %g s", cp.dt, dt)
	}
	if !finite(cp.time) || cp.steps < 0 {
		return bad("time %g s after %d steps", cp.time, cp.steps)
	}
	for _, v := range [...]float64{cp.acct.added, cp.acct.removed, cp.acct.rejected, cp.acct.outflow, cp.acct.exchanged} {
		if !finite(v) {
			return bad("accounting holds %v", v)
		}
	}
	if len(cp.h) != n || len(cp.r) != n || len(cp.f) != np {
		return bad("%d heights, %d residuals and %d fluxes for %d columns and %d pipes", len(cp.h), len(cp.r), len(cp.f), n, np)
	}
	floor := c.Base
	if len(cp.liftCol) > 0 {
		floor = slices.Clone(c.Base)
		for k, i := range cp.liftCol {
			if i < 0 || int(i) >= n || !(cp.liftFloor[k] > c.Base[i] && cp.liftFloor[k] < c.Max[i]) {
				return bad("lifted floor %d: column %d, floor %g", k, i, cp.liftFloor[k])
			}
			floor[i] = cp.liftFloor[k]
		}
	}
	for i, h := range cp.h {
		if !(h >= floor[i] && h <= c.Max[i]) || !finite32(cp.r[i]) {
			return bad("column %d: h = %g (residual %g) outside [floor, max] = [%g, %g]", i, h, cp.r[i], floor[i], c.Max[i])
		}
	}
	for p, f := range cp.f {
		if !finite32(f) {
			return bad("pipe %d: flux %g", p, f)
		}
	}
	if on := st.CapillaryLength() > 0; cp.capOn != on || (on && (len(cp.capPrev) != n || (cp.capWet != nil && len(cp.capWet) != n))) {
		return bad("capillary head saved %v (%d columns) with surface tension %g N/m", cp.capOn, len(cp.capPrev), st.SurfaceTension)
	}
	if err := checkExtSaved(&cp.ext, st.ExtendedPipes, c); err != nil {
		return bad("extended pipes: %v", err)
	}

	var em emitterSet
	for id, e := range cp.emitters {
		if err := validateEmitter(e); err != nil {
			return bad("source or sink %d: %v", id, err)
		}
		tg, err := emitterTargets(c, e)
		if err == nil && e.Falls {
			err, tg = fallPoint(c, e), nil
		}
		if err != nil && cp.active[id] {
			return bad("source or sink %d: %v", id, err)
		}
		em.push(e, cp.active[id], tg)
	}

	f := &cp.fall
	var heldAt []bool // the checkpoint's held columns (checkHeldSaved checks them)
	for _, i := range cp.held {
		if i < 0 || int(i) >= n {
			return bad("held column %d is outside [0, %d)", i, n)
		}
		if heldAt == nil {
			heldAt = make([]bool, n)
		}
		heldAt[i] = true
	}
	cand := fallCandidates(s.topo, fallDrop(st, c.Dx), heldAt)
	for k, a := range [][]float64{f.pend, f.idle, f.rate, f.took} {
		if len(a) != cand {
			return bad("%d values per dripping edge for %d candidate pipes", len(a), cand)
		}
		for _, v := range a {
			if !finite(v) || (v < 0 && k != 2) { // the mean rate (k 2) may round below 0
				return bad("dripping edge value %g", v)
			}
		}
	}
	if f.npend > uint64(cand) {
		return bad("%d pending edges of %d", f.npend, cand)
	}
	for _, v := range [...]float64{f.released, f.landed, f.outflow} {
		if !finite(v) {
			return bad("particle totals hold %v", v)
		}
	}
	for i, q := range cp.landed {
		if !(q.Volume > 0 && q.Volume <= math.MaxFloat64) || !finite32(q.X) || !finite32(q.Y) || !finite32(q.Z) ||
			!finite32(q.VX) || !finite32(q.VY) || !finite32(q.VZ) {
			return bad("parcel %d landed on a held column: at (%g, %g, %g), velocity (%g, %g, %g), volume %g", i, q.X, q.Y, q.Z, q.VX, q.VY, q.VZ, q.Volume)
		}
	}
	for i, v := range f.vol {
		p := [...]float32{f.x[i], f.y[i], f.z[i], f.vx[i], f.vy[i], f.vz[i]}
		if !(v > 0 && v <= math.MaxFloat64) || !finite32(p[0]) || !finite32(p[1]) || !finite32(p[2]) ||
			!finite32(p[3]) || !finite32(p[4]) || !finite32(p[5]) || f.col[i] < -1 || int(f.col[i]) >= n {
			return bad("particle %d: at (%g, %g, %g), velocity (%g, %g, %g), volume %g, column %d", i, p[0], p[1], p[2], p[3], p[4], p[5], v, f.col[i])
		}
	}
	return st, em, nil
}

// checkExtSaved checks the extended pipes' history against the mode and the columns.
func checkExtSaved(x *extSaved, mode ExtendedPipes, c *terrain.Columns) error {
	n := uint64(c.NumColumns())
	if len(x.uCol) != len(x.uKey) || len(x.uCol) != len(x.uF) || len(x.aKey) != len(x.aF) {
		return fmt.Errorf("%d, %d and %d unified values, %d and %d axis values", len(x.uCol), len(x.uKey), len(x.uF), len(x.aKey), len(x.aF))
	}
	if len(x.uCol) > 0 && mode != ExtendedUnified || len(x.aKey) > 0 && mode != ExtendedAxis {
		return fmt.Errorf("history for extended pipes %v, the settings say %v", x.mode, mode)
	}
	if (len(x.uCol) > 0 || len(x.aKey) > 0) && !anyCapped(c) {
		return fmt.Errorf("history for a terrain without passages")
	}
	for k, b := range x.uCol {
		key := x.uKey[k]
		if b < 0 || uint64(b) >= n || key>>32 != uint64(b) || key&(1<<32-1) >= n || !finite32(x.uF[k]) {
			return fmt.Errorf("unified opening %d: column %d, key %#x, flux %g", k, b, key, x.uF[k])
		}
	}
	for k, key := range x.aKey {
		if key>>32 >= n || key&(1<<32-1) >= n || (k > 0 && key <= x.aKey[k-1]) || !finite32(x.aF[k]) {
			return fmt.Errorf("axis pipe %d: key %#x, flux %g", k, key, x.aF[k])
		}
	}
	return nil
}

// anyCapped tells whether some column of c is capped by a solid (newExtended's test):
// only then can passages form.
func anyCapped(c *terrain.Columns) bool {
	for _, m := range c.Max {
		if float64(m) < c.Height*(1-1e-6) {
			return true
		}
	}
	return false
}

// fallCandidates is the number of pipes that may release falling liquid at threshold d
// (fallState.configure's candidates), none touching a held column (held; nil: none).
func fallCandidates(t *topology, d float64, held []bool) int {
	base := t.cols.Base
	n := 0
	for p := range t.pipeA {
		a, b := t.pipeA[p], t.pipeB[p]
		if math.Abs(float64(base[a])-float64(base[b])) > d && (held == nil || !held[a] && !held[b]) {
			n++
		}
	}
	return n
}

func finite(v float64) bool   { return !math.IsNaN(v) && !math.IsInf(v, 0) }
func finite32(v float32) bool { return finite(float64(v)) }
