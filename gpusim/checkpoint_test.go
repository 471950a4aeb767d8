package gpusim

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// ckScene is a scene for the checkpoint tests: its columns, settings, layout and how a
// run of it starts (heights, fluxes, sources and sinks).
type ckScene struct {
	name    string
	cols    func(t testing.TB) *terrain.Columns
	st      Settings
	general bool
	random  bool // start from random heights, residuals and fluxes (floods passages)
	ems     []Emitter
	stop    int // the emitter to stop (StopEmitter) before the checkpoint, or -1
	n, m    int // steps before the checkpoint (at most; see start) and after it
}

func ckScenes() []ckScene {
	drip := func(workers int) Settings {
		st := dripSettings(workers)
		st.Sides[SidePlusX] = SideOpen
		return st
	}
	ledge := func(t testing.TB) *terrain.Columns {
		return ledgeScene(t, 40, 10, 0.0005, 0.008, 0.021, 0.001, 0.04)
	}
	ledgeEms := []Emitter{
		{X: 0.004, Y: 0.0025, Z: 0.03, Radius: 0.0015, Rate: 1e-7},                      // on the ledge: over its edge
		{X: 0.016, Y: 0.0025, Z: 0.002, Radius: 0.003, Rate: -1e-5},                     // a sink on the floor
		{X: 0.014, Y: 0.003, Z: 0.02, Radius: 0.001, Rate: 5e-8, Falls: true, VX: 0.02}, // a pour from above
		{X: 0.002, Y: 0.002, Z: 0.03, Rate: 1e-7, Start: 0.05, Stop: 0.3},               // a schedule
		{X: 0.012, Y: 0.004, Z: 0.03, Radius: 0.001, Rate: 1e-7},                        // stopped before the checkpoint
		{X: 0.017, Y: 0.002, Z: 0.015, Radius: 0.0005, Rate: 3e-8, Falls: true, VX: -0.1, VZ: 0.15, // a spray
			Spread: [2]float64{0.5, 0.3}, Seed: 12345},
	}
	over := func(t testing.TB) *terrain.Columns { return overhangScene(t, 30, 30, 0.0005) }
	overSt := func(mode ExtendedPipes, capillary bool) Settings {
		st := drip(2)
		st.ExtendedPipes, st.CapillaryPressure = mode, capillary
		st.Sides = [4]Side{SideOpen, SideWall, SideOpen, SideWall}
		if !capillary {
			st.ContactHysteresis = 0.3
		}
		return st
	}
	overEms := []Emitter{
		{X: 0.006, Y: 0.007, Z: 0.05, Radius: 0.002, Rate: 2e-6},
		{X: 0.011, Y: 0.004, Z: 0.05, Radius: 0.0015, Rate: -3e-6, Start: 0.03},
		{X: 0.007, Y: 0.007, Z: 0.05, Radius: 0.001, Rate: 1e-6, Stop: 0.09},
		{X: 0.0045, Y: 0.0045, Z: 0.025, Radius: 0.001, Rate: 1e-6, Falls: true, VY: 0.01},
	}
	// The SWE scene opens the +x side alone: free outfall through -x and -y emptied its
	// passages before the checkpoint (with -x and -y open it held none, with +x 24).
	swe := func(st Settings) Settings {
		st.Method, st.Sides = MethodSWE, [4]Side{SideWall, SideOpen, SideWall, SideWall}
		return st
	}
	return []ckScene{
		{name: "ledge/dense", cols: ledge, st: drip(3), ems: ledgeEms, stop: 4, n: 400, m: 60},
		{name: "ledge/general", cols: ledge, st: drip(2), general: true, ems: ledgeEms, stop: 4, n: 400, m: 60},
		{name: "overhang/unified", cols: over, st: overSt(ExtendedUnified, true), random: true, ems: overEms, stop: 2, n: 40, m: 40},
		{name: "overhang/axis", cols: over, st: overSt(ExtendedAxis, false), random: true, ems: overEms, stop: 2, n: 40, m: 40},
		// The shallow water equations: the velocities and face depths saved (version 5),
		// and read into a Sim made with the pipes (the checkpoint brings the method).
		{name: "overhang/swe", cols: over, st: swe(overSt(ExtendedUnified, true)), random: true, ems: overEms, stop: 2, n: 40, m: 40},
	}
}

// start makes the scene's Sim with workers and backend and runs it up to the
// checkpoint: sc.n steps, or fewer once drops are gathering at edges and particles fly
// (after at least a quarter of them), so that the checkpoint holds both.
func (sc ckScene) start(t *testing.T, workers int, backend string) *Sim {
	t.Helper()
	st := sc.st
	st.Workers, st.Backend = workers, backend
	sim := newSimWith(t, sc.cols(t), st, backendOptions{general: sc.general})
	if sc.random {
		c := sim.Columns()
		h, r := retopoState(c, 42)
		rng := rand.New(rand.NewPCG(42, 11))
		f := make([]float32, sim.NumPipes())
		for p := range f {
			f[p] = float32((2*rng.Float64() - 1) * 2e-8)
		}
		if err := sim.SetHeights(h); err != nil {
			t.Fatal(err)
		}
		sim.be.writeResidual(r)
		sim.be.writeFlux(f)
	}
	for _, e := range sc.ems {
		if _, err := sim.AddEmitter(e); err != nil {
			t.Fatal(err)
		}
	}
	for k := range sc.n {
		if k == sc.n/8 && sc.stop >= 0 {
			if err := sim.StopEmitter(sc.stop); err != nil {
				t.Fatal(err)
			}
		}
		sim.Step(1 + k%3)
		if k >= sc.n/4 && sim.fall.npend > 0 && len(sim.fall.vol) > 0 {
			break
		}
	}
	return sim
}

// ckSnap is everything of a Sim's state the tests compare.
type ckSnap struct {
	h, r, f                []float32
	parts                  []Particle
	col                    []int32
	pend, idle, rate, took []float64
	npend                  int
	acct                   accounting
	time                   float64
	steps                  int64
	released, landed       float64
	volume                 float64
}

func ckRead(s *Sim) ckSnap {
	n := s.Columns().NumColumns()
	x := ckSnap{h: make([]float32, n), r: make([]float32, n)}
	s.Sync()
	s.be.readHeight(x.h)
	s.be.readResidual(x.r)
	x.f = s.Fluxes(nil)
	f := s.fall
	x.parts, x.col = f.particles(nil), slices.Clone(f.col)
	x.pend, x.idle, x.rate, x.took = slices.Clone(f.pend), slices.Clone(f.idle), slices.Clone(f.rate), slices.Clone(f.took)
	x.npend, x.acct, x.time, x.steps = f.npend, s.acct, s.time, s.steps
	x.released, x.landed = f.released, f.landed
	x.volume = s.Volume()
	return x
}

func bits64(a []float64) []uint64 {
	b := make([]uint64, len(a))
	for i, v := range a {
		b[i] = math.Float64bits(v)
	}
	return b
}

// ckSame fails unless a and b hold the same bits.
func ckSame(t *testing.T, what string, a, b ckSnap) {
	t.Helper()
	for _, x := range []struct {
		name string
		a, b []float32
	}{{"height", a.h, b.h}, {"residual", a.r, b.r}, {"flux", a.f, b.f}} {
		if i := firstDiffBits(x.a, x.b); i >= 0 || len(x.a) != len(x.b) {
			t.Fatalf("%s: %s %d differs: %g, resumed %g", what, x.name, i, x.a[max(i, 0)], x.b[max(i, 0)])
		}
	}
	if !slices.Equal(a.parts, b.parts) || !slices.Equal(a.col, b.col) {
		t.Fatalf("%s: particles differ: %d, resumed %d", what, len(a.parts), len(b.parts))
	}
	for _, x := range []struct {
		name string
		a, b []float64
	}{{"pend", a.pend, b.pend}, {"idle", a.idle, b.idle}, {"rate", a.rate, b.rate}, {"took", a.took, b.took},
		{"totals", []float64{a.acct.added, a.acct.removed, a.acct.rejected, a.acct.outflow, a.time, a.released, a.landed, a.volume},
			[]float64{b.acct.added, b.acct.removed, b.acct.rejected, b.acct.outflow, b.time, b.released, b.landed, b.volume}}} {
		if ba, bb := bits64(x.a), bits64(x.b); !slices.Equal(ba, bb) {
			if len(ba) != len(bb) || len(ba) == 0 {
				t.Fatalf("%s: %s differ: %d values, resumed %d", what, x.name, len(ba), len(bb))
			}
			i := 0
			for i < min(len(ba), len(bb))-1 && ba[i] == bb[i] {
				i++
			}
			t.Fatalf("%s: %s differ (%d values, resumed %d): [%d] %g, resumed %g", what, x.name, len(ba), len(bb), i, x.a[i], x.b[i])
		}
	}
	if a.npend != b.npend || a.steps != b.steps {
		t.Fatalf("%s: pending edges %d, steps %d; resumed %d, %d", what, a.npend, a.steps, b.npend, b.steps)
	}
}

// checkpointOf writes s's checkpoint.
func checkpointOf(t *testing.T, s *Sim) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ckResume makes a fresh Sim of sc (workers, backend; made with settings other than the
// checkpoint's, which it must take from the file) and reads data into it.
func ckResume(t *testing.T, sc ckScene, data []byte, workers int, backend string, general bool) *Sim {
	t.Helper()
	st := DefaultSettings() // not the scene's: the checkpoint brings them
	st.Workers, st.Backend = workers, backend
	sim := newSimWith(t, sc.cols(t), st, backendOptions{general: general})
	if err := sim.ReadCheckpoint(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if got := sim.Settings(); got.Workers != workers || got.Backend != backend {
		t.Fatalf("resumed with workers %d backend %q, want the reader's %d %q", got.Workers, got.Backend, workers, backend)
	}
	return sim
}

// ckStepBoth steps a and b the same way, m steps in calls of 1 to 4, comparing them after
// every call.
func ckStepBoth(t *testing.T, what string, a, b *Sim, m int) {
	t.Helper()
	for done, k := 0, 0; done < m; k++ {
		n := min(1+k%4, m-done)
		a.Step(n)
		b.Step(n)
		done += n
		ckSame(t, what+": after "+strconv.Itoa(done)+" steps", ckRead(a), ckRead(b))
	}
}

// decodeAll decodes a checkpoint for comparisons (with the reader's fields blanked).
func decodeAll(t *testing.T, data []byte) *checkpoint {
	t.Helper()
	p, err := checkpointPayload(data)
	if err != nil {
		t.Fatal(err)
	}
	d := ckDec{b: p, lifts: true, held: true, method: true, wetted: true, holds: true}
	decodeFingerprint(&d)
	cp := decodeCheckpoint(&d)
	if d.err != nil || len(d.b) != 0 {
		t.Fatalf("decode: %v, %d bytes left", d.err, len(d.b))
	}
	cp.settings.Workers, cp.settings.Backend = 0, ""
	return cp
}

// A run checkpointed after N steps and resumed in a fresh Sim goes on to the same bits
// as the run that was not stopped: heights, residuals, fluxes, particles, the drops
// gathering at edges, the accounting, after every call of the M steps that follow, and
// the checkpoints written at the end hold the same state. Scenes: a ledge whose edge
// drips into a pool with a sink and a pour from above, surface tension on, an open side
// (dense and general layout); a three-layer terrain from a random start that floods
// passages (unified and axis extended pipes), with capillary pressure or hysteresis.
// Resumed with the same worker count and another.
func TestCheckpointResume(t *testing.T) {
	t.Parallel()
	for _, sc := range ckScenes() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			for _, workers := range [][2]int{{sc.st.Workers, sc.st.Workers}, {sc.st.Workers, 5}} {
				a := sc.start(t, workers[0], "")
				data := checkpointOf(t, a)
				ext, pass := a.be.extendedCounts()
				if workers[0] == workers[1] {
					t.Logf("checkpoint at step %d (t = %.4g s): %d bytes, %d particles, %d edges pending (%.3g m^3), %d extended pipes in %d passages",
						a.Steps(), a.Time(), len(data), len(a.fall.vol), a.fall.npend, a.fall.hanging(), ext, pass)
				}
				if len(a.fall.vol) == 0 || a.fall.npend == 0 {
					t.Errorf("the checkpoint holds %d particles and %d pending edges: the scene does not test them", len(a.fall.vol), a.fall.npend)
				}
				if sc.st.ExtendedPipes != ExtendedOff && strings.HasPrefix(sc.name, "overhang") && ext == 0 {
					t.Errorf("no extended pipe at the checkpoint: the scene does not test them")
				}
				b := ckResume(t, sc, data, workers[1], "", sc.general)
				ckSame(t, "just read", ckRead(a), ckRead(b))
				if again := checkpointOf(t, b); workers[0] == workers[1] && !bytes.Equal(again, data) {
					t.Fatalf("the resumed Sim's checkpoint differs from the one it read (%d bytes, %d)", len(again), len(data))
				}
				ckStepBoth(t, "workers "+strconv.Itoa(workers[0])+" -> "+strconv.Itoa(workers[1]), a, b, sc.m)
				ca, cb := decodeAll(t, checkpointOf(t, a)), decodeAll(t, checkpointOf(t, b))
				if !reflect.DeepEqual(ca, cb) {
					t.Fatalf("the checkpoints after %d more steps differ", sc.m)
				}
				ea, pa := a.be.extendedCounts()
				eb, pb := b.be.extendedCounts()
				if ea != eb || pa != pb {
					t.Fatalf("extended pipes/passages %d/%d, resumed %d/%d", ea, pa, eb, pb)
				}
			}
		})
	}
}

// A checkpoint of the dense layout resumes on the general one and the other way round:
// both layouts give the same bits, and the file holds the fluxes in topology order.
func TestCheckpointAcrossLayouts(t *testing.T) {
	t.Parallel()
	sc := ckScenes()[0]
	for _, general := range []bool{false, true} {
		sc.general = general
		a := sc.start(t, 2, "")
		b := ckResume(t, sc, checkpointOf(t, a), 3, "", !general)
		if (b.be.(*cpuBackend).dense != nil) == (a.be.(*cpuBackend).dense != nil) {
			t.Fatal("same layout")
		}
		ckStepBoth(t, "layout", a, b, 30)
	}
}

// On the device backend (the CUDA kernels compiled for the host): a CPU checkpoint
// resumes there to the CPU's bits, and the device's own checkpoint resumes on the CPU.
// Not in parallel: the host kernels' thread indices are the shim's globals.
func TestCheckpointDevice(t *testing.T) {
	if !HasBackend("host-kernels") {
		t.Skip("no host kernels in this build (cgo off)")
	}
	for _, sc := range []ckScene{ckScenes()[0], ckScenes()[2], ckScenes()[3]} {
		t.Run(sc.name, func(t *testing.T) {
			sc.m = 20
			a := sc.start(t, 2, "")
			dev := ckResume(t, sc, checkpointOf(t, a), 1, "host-kernels", sc.general)
			ckStepBoth(t, "cpu -> device", a, dev, sc.m)
			cpu := ckResume(t, sc, checkpointOf(t, dev), 3, "", sc.general)
			ckStepBoth(t, "device -> cpu", dev, cpu, sc.m)
			for done, k := 0, 0; done < sc.m; k++ { // the run that never stopped, as ckStepBoth steps
				n := min(1+k%4, sc.m-done)
				a.Step(n)
				done += n
			}
			ckSame(t, "the run that never stopped", ckRead(a), ckRead(cpu))
		})
	}
}

// reCRC fixes the checksum of a checkpoint whose payload a test changed.
func reCRC(data []byte) []byte {
	end := len(data) - 4
	binary.LittleEndian.PutUint32(data[end:], crc32.ChecksumIEEE(data[:end]))
	return data
}

// Files that are not a checkpoint of this scene are refused with an error naming the
// problem, and the Sim is left as it was (its own checkpoint is the same bytes after).
func TestCheckpointRefusals(t *testing.T) {
	t.Parallel()
	sc := ckScenes()[0]
	a := sc.start(t, 2, "")
	good := checkpointOf(t, a)
	other := ckScenes()[2].start(t, 2, "")
	otherData := checkpointOf(t, other)
	// The same 40 x 10 x 1 grid with its ledge higher: another terrain.
	sameGrid := newSim(t, ledgeScene(t, 40, 10, 0.0005, 0.008, 0.025, 0.001, 0.04), DefaultSettings())
	sameGridData := checkpointOf(t, sameGrid)

	mod := func(f func(b []byte) []byte) []byte { return f(slices.Clone(good)) }
	m := len(checkpointMagic)
	// The first height's place: header, fingerprint, clock, settings, accounting, count.
	firstH := checkpointHeader + 52 + 24 + (117 + len(a.Settings().Backend)) + 32 + 8
	if got := math.Float32frombits(binary.LittleEndian.Uint32(good[firstH:])); got != ckRead(a).h[0] {
		t.Fatalf("the first height is not at byte %d", firstH)
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "truncated", nil},
		{"wrong magic", "wrong magic", mod(func(b []byte) []byte { b[0] = 'x'; return b })},
		{"not a checkpoint", "wrong magic", []byte("hello, world: a text file")},
		{"wrong version", "format version 8: this build reads versions 1 to 7", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[m:], 8); return b })},
		{"another grid", "checkpoint is for a 30x30x3 grid of", otherData},
		{"another terrain", "checkpoint is for another terrain", sameGridData},
		{"truncated header", "truncated", good[:m+2]},
		{"truncated", "truncated", good[:len(good)/2]},
		{"truncated by a byte", "truncated", good[:len(good)-1]},
		{"trailing bytes", "corrupt", append(slices.Clone(good), 0)},
		{"flipped byte", "checksum", mod(func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b })},
		{"height out of bounds", "column 0", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[firstH:], math.Float32bits(float32(math.NaN())))
			return reCRC(b)
		})},
		{"bad flag", "corrupt", mod(func(b []byte) []byte {
			b[firstH-8-32-1] = 7 // CapillaryPressure
			return reCRC(b)
		})},
	} {
		b := newSim(t, sc.cols(t), sc.st)
		before := checkpointOf(t, b)
		err := b.ReadCheckpoint(bytes.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
		if after := checkpointOf(t, b); !bytes.Equal(before, after) {
			t.Errorf("%s: the refused read changed the state", tc.name)
		}
	}
	// And a good one still reads after all that.
	b := newSim(t, sc.cols(t), sc.st)
	if err := b.ReadCheckpoint(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	ckSame(t, "after refusals", ckRead(a), ckRead(b))
}

// checkpointLedger is every field of the state's types, each saved in a checkpoint or
// derived again on reading (or not state at all). A field added to one of these types
// fails TestCheckpointLedger until it is decided here and, if it is state, in
// checkpoint.go.
var checkpointLedger = map[string]map[string]string{
	"Sim": {
		"cols": "derived: the reader's terrain (fingerprint)", "topo": "derived", "settings": "saved (but Backend, Workers)",
		"dt": "saved, checked against the settings", "be": "the reader's", "holder": "the reader's (be)", "opts": "the reader's", "subBase": "not state (a count of the work this process did)", "em": "saved (emitterSet)",
		"fall": "saved (fallState)", "lift": "saved (version 3: the lifted columns and their floors)", "meters": "the script's (MeterTotals: made again by the set-up, their totals saved by the scenario's checkpoint)", "warnings": "not state", "time": "saved", "steps": "saved", "acct": "saved",
		"wall": "not state", "scratch": "scratch", "residual": "scratch", "pipelined": "the reader's", "spare": "the reader's (the scene's overlap sets it)", "flight": "waited for (Sync)",
		"mu": "not state", "published": "published again", "backendName": "derived", "workers": "derived", "back": "scratch",
		"vel": "derived (velocities: from the fluxes)", "velAt": "scratch", "snapVelocity": "the reader's (the scene sets it)",
		"held": "saved (version 7: heldState.cols; mark, inner and border derived: restoreHeld)",
	},
	"emitterSet": {
		"list": "saved", "active": "saved", "tStart": "derived (emitterTargets)", "tCol": "derived", "tWeight": "derived",
		"dCol": "derived (setDrains)", "dCoef": "derived", "dDx": "derived", "dSides": "derived", "gen": "new (touch)",
	},
	"fallState": {
		"cols": "derived", "topo": "derived", "mode": "derived (settings)", "drop": "derived", "minVol": "derived", "gravity": "derived",
		"sides": "derived", "outflow": "saved", "cand": "derived", "slotA": "derived", "slotB": "derived", "relCols": "derived",
		"relLevel": "scratch", "candFlux": "scratch", "x": "saved", "y": "saved", "z": "saved", "vx": "saved", "vy": "saved",
		"vz": "saved", "vol": "saved", "land": "scratch (-1 between steps)", "col": "saved", "colCell": "derived",
		"gather": "derived", "tate": "derived", "qStream": "derived", "pend": "saved", "idle": "saved", "rate": "saved",
		"took": "saved", "npend": "saved", "edgeHook": "tests", "changed": "scratch", "targets": "scratch", "weights": "scratch",
		"mark": "scratch", "released": "saved", "landed": "saved", "wall": "not state", "flyRange": "derived", "flyH": "scratch",
		"flyDt": "scratch", "recordImpacts": "the reader's (the scene sets it)", "impacts": "not state (read and forgotten by the waves)",
		"now": "scratch (set every step)", "held": "derived (Sim.held: restoreHeld)",
		"heldLanded": "saved (version 7)", "heldOut": "scratch (booked after every step)",
	},
	"capState": {"drive": "computed every step", "s": "scratch", "prev": "saved", "fresh": "saved", "near": "derived", "nearX": "derived", "nearOf": "derived",
		"wet": "saved (version 6)", "wetNext": "computed every step", "prevNext": "computed every step (the dense sweep's prev, swapped in)"},
	"extended": {
		"mode": "derived (settings)", "cols": "derived", "topo": "derived", "capped": "derived", "dirY": "derived", "fullTol": "derived",
		"isCapped": "derived", "flips": "derived (dirty: rebuilt)", "dirty": "set", "rebuilds": "not state", "scans": "not state",
		"marks": "derived", "cappedAt": "derived", "full": "derived from the heights (dirty)", "label": "derived", "seen": "scratch",
		"isTouched": "scratch", "extOut": "scratch", "extIn": "scratch", "extNet": "scratch", "touched": "scratch",
		"members": "derived (rebuild)", "pStart": "derived", "fullList": "derived", "listed": "derived", "fullNext": "scratch",
		"seenMark": "scratch", "uCol": "saved (history)", "uKey": "saved (history)", "uStart": "derived", "uGap": "derived",
		"uF": "saved (history)", "hist": "derived", "hHead": "derived", "hStamp": "derived", "hMark": "derived",
		"axis": "derived", "aPrev": "saved (history)", "runStack": "scratch",
	},
	"cpuBackend": {
		"topo": "derived", "base": "derived, lifted from Sim.lift", "ownBase": "derived (restoreLifts)", "top": "derived", "h": "saved", "r": "saved", "k": "computed every step",
		"s": "computed every step", "f": "saved (fluxes)", "dense": "saved (fluxes)", "capSt": "saved (capState)",
		"skip": "derived (a restore's stillReset: every unit computed again)", "noSkip": "the reader's (backendOptions)",
		"ext": "saved (extended)", "swe": "saved (version 5: the face depths; the rest computed every step)", "p": "derived", "rows": "the reader's", "nw": "the reader's", "ranges": "derived",
		"pipes": "derived", "flag": "scratch", "regular": "derived", "strided": "derived", "pairAt": "derived", "runs": "derived",
		"csrBuf": "scratch", "csrMask": "scratch", "csrFluxBuf": "scratch", "capRuns": "derived", "pipeBase": "derived", "bar": "not state",
		"pool": "not state", "jobSteps": "scratch", "runJob": "derived", "forN": "scratch", "forFn": "scratch",
		"runFor": "derived", "em": "scratch", "t": "scratch", "acct": "scratch", "outH": "scratch", "outR": "scratch",
		"hold": "derived (Sim.held: restoreHeld)",
	},
	"Settings": {
		"Dt": "saved", "Viscosity": "saved", "Damping": "saved", "Gravity": "saved", "CrossSection": "saved",
		"ExtendedPipes": "saved", "Falling": "saved", "FallDrop": "saved", "Workers": "saved, the reader's kept",
		"Backend": "saved, the reader's kept", "SurfaceTension": "saved", "Density": "saved", "ContactAngle": "saved",
		"Sides": "saved", "ContactHysteresis": "saved", "CapillaryPressure": "saved", "Method": "saved (version 5)",
	},
	"Emitter": {
		"X": "saved", "Y": "saved", "Z": "saved", "Radius": "saved", "Rate": "saved", "Start": "saved", "Stop": "saved",
		"Falls": "saved", "VX": "saved", "VY": "saved", "VZ": "saved", "Spread": "saved (version 2)", "Seed": "saved (version 2)", "Holds": "saved (version 4)", "Level": "saved (version 4)",
	},
	"accounting": {"added": "saved", "removed": "saved", "rejected": "saved", "outflow": "saved",
		"exchanged": "saved (version 7)"},
	"heldState": {"cols": "saved (version 7, in Hold's order)", "mark": "derived (restoreHeld)", "inner": "derived (restoreHeld)", "border": "derived (restoreHeld)"},
}

// TestCheckpointLedger: every field of the state's types is in checkpointLedger.
func TestCheckpointLedger(t *testing.T) {
	for _, ty := range []reflect.Type{reflect.TypeFor[Sim](), reflect.TypeFor[emitterSet](), reflect.TypeFor[fallState](),
		reflect.TypeFor[capState](), reflect.TypeFor[extended](), reflect.TypeFor[cpuBackend](), reflect.TypeFor[Settings](),
		reflect.TypeFor[Emitter](), reflect.TypeFor[accounting](), reflect.TypeFor[heldState]()} {
		ledger := checkpointLedger[ty.Name()]
		seen := map[string]bool{}
		for i := range ty.NumField() {
			name := ty.Field(i).Name
			seen[name] = true
			if _, ok := ledger[name]; !ok {
				t.Errorf("%s.%s is new: decide whether a checkpoint saves it or derives it (checkpoint.go) and list it in checkpointLedger",
					ty.Name(), name)
			}
		}
		for name := range ledger {
			if !seen[name] {
				t.Errorf("%s.%s is in checkpointLedger but not in the type", ty.Name(), name)
			}
		}
	}
}
