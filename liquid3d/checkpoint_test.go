package liquid3d

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// ckRegion is the dam break over a sphere (dambreak) with columns sides: liquid flows in
// through -x (its columns' level moving) and out through +x, into a box that also
// takes particles from outside (AddParticles) now and then.
func ckRegion(t testing.TB, workers int) (*Sim, func(k int)) {
	d, _ := dambreak(t, workers)
	set := d.Settings()
	set.Sides[XMin], set.Sides[XMax] = Columns, Columns
	s := newSim(t, set)
	fillBox(t, s, v3(0, 0, 0), v3(8*set.H, 12*set.H, 12*set.H), v3(0.3, 0, 0))
	drive := func(k int) {
		t.Helper()
		setColumns(t, s, XMin, set.H*(9+2*math.Sin(float64(k)/5)), 0.15)
		setColumns(t, s, XMax, set.H*3, -0.05)
		if k%9 == 4 {
			if err := s.AddParticles([]Particle{{Pos: v3(10*set.H, 5*set.H, 14*set.H), Vel: v3(0, 0.1, -0.2), Volume: 1e-9}}); err != nil {
				t.Fatal(err)
			}
		}
		step(t, s, 1.0/120)
	}
	return s, drive
}

// ckState is everything of the region a test compares: every particle array, the books,
// the outflow not taken, and the sides' reservoirs, counters and inflow not taken.
func ckState(s *Sim) []uint64 {
	var b []uint64
	for _, a := range s.particleArrays() {
		for _, v := range a[:s.np] {
			b = append(b, uint64(math.Float32bits(v)))
		}
	}
	f64 := func(v ...float64) {
		for _, x := range v {
			b = append(b, math.Float64bits(x))
		}
	}
	f64(s.vol[:s.np]...)
	f64(s.time, s.added, s.out, s.in)
	for _, p := range s.outflow {
		f64(p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume)
	}
	for _, c := range s.cols {
		if c != nil {
			f64(c.res...)
			f64(c.took...)
			for _, n := range c.cnt {
				b = append(b, uint64(n))
			}
		}
	}
	return b
}

func checkpointBytes(t testing.TB, s *Sim) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WriteCheckpoint(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCheckpointResume: a region with columns sides (inflow, outflow, a solid, viscosity,
// particles added between steps) checkpointed after 15 steps with particles that left
// not yet taken, read into a fresh region (3 workers, not 1) steps on to the same bits
// as the one not stopped: every particle's position, velocity, affine matrix and volume,
// the books, the outflow, the sides' reservoirs and inflow, after every step of 15 more;
// and the resumed region's checkpoint is the one it read.
func TestCheckpointResume(t *testing.T) {
	a, driveA := ckRegion(t, 1)
	k := 0
	for ; k < 15; k++ {
		driveA(k)
	}
	if len(a.outflow) == 0 || a.in == 0 || a.cm[0][0] == 0 {
		t.Fatalf("%d particles left, %g m^3 flowed in, affine %g: the scene does not test them", len(a.outflow), a.in, a.cm[0][0])
	}
	data := checkpointBytes(t, a)
	t.Logf("checkpoint after %d steps: %d particles, %d left, %d bytes", k, a.np, len(a.outflow), len(data))
	b, driveB := ckRegion(t, 3) // filled as the set-up fills it: the checkpoint replaces all that
	if err := b.ReadCheckpoint(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ckState(a), ckState(b)) {
		t.Fatal("just read: the states differ")
	}
	if again := checkpointBytes(t, b); !bytes.Equal(again, data) {
		t.Fatal("the resumed region's checkpoint differs from the one it read")
	}
	for ; k < 30; k++ {
		driveA(k)
		driveB(k)
		if !slices.Equal(ckState(a), ckState(b)) {
			t.Fatalf("step %d: the states differ", k)
		}
	}
	if !reflect.DeepEqual(a.TakeOutflow(nil), b.TakeOutflow(nil)) {
		t.Fatal("the outflow differs")
	}
}

// TestCheckpointRefusals: what is not this region's checkpoint is an error naming the
// problem, never a panic, and leaves the region as it was.
func TestCheckpointRefusals(t *testing.T) {
	a, drive := ckRegion(t, 2)
	for k := range 6 {
		drive(k)
	}
	good := checkpointBytes(t, a)
	mod := func(f func(b []byte)) []byte {
		b := slices.Clone(good)
		f(b)
		return b
	}
	reCRC := func(b []byte) {
		end := len(b) - 4
		binary.LittleEndian.PutUint32(b[end:], crc32.ChecksumIEEE(b[:end]))
	}
	other := func(f func(*Settings)) []byte {
		set := a.Settings()
		f(&set)
		s := newSim(t, set)
		return checkpointBytes(t, s)
	}
	m := len(checkpointMagic)
	fpEnd := ckHeaderLen + 99             // the fingerprint's end
	nodesEnd := fpEnd + 8 + 4*len(a.node) // the solid's corners' end
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"empty", "truncated", nil},
		{"wrong magic", "wrong magic", mod(func(b []byte) { b[0] = 'x' })},
		{"version", "format version 9: this build reads version 1", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[m:], 9) })},
		{"truncated header", "truncated", good[:m+6]},
		{"truncated", "truncated", good[:len(good)/2]},
		{"trailing byte", "after its end", append(slices.Clone(good), 0)},
		{"flipped byte", "checksum mismatch", mod(func(b []byte) { b[len(b)/2] ^= 4 })},
		{"another grid", "a grid of 24 x 12 x 20 cells, this region's 24 x 12 x 16", other(func(s *Settings) { s.NZ = 20 })},
		{"another viscosity", "viscosity 0, this region's 1e-06", other(func(s *Settings) { s.Viscosity = 0 })},
		{"another side", "sides", other(func(s *Settings) { s.Sides[XMax] = Open })},
		{"a corner of the solid", "the solid's corners differ", mod(func(b []byte) {
			binary.LittleEndian.PutUint32(b[fpEnd+8:], math.Float32bits(12345))
			reCRC(b)
		})},
		{"a particle out of the box", "outside the box", mod(func(b []byte) {
			// The first particle's x: after the header, the fingerprint (3 x 4 + 8 x 8 +
			// 8 + 1 + 6 + 8), the solid's corners, the clock (8 + 4), the books (24) and
			// the count (8).
			at := nodesEnd + 12 + 24 + 8
			binary.LittleEndian.PutUint32(b[at:], math.Float32bits(-1))
			reCRC(b)
		})},
		{"a count past the end", "more than its data holds", mod(func(b []byte) {
			binary.LittleEndian.PutUint64(b[nodesEnd+12+24:], 1<<40)
			reCRC(b)
		})},
	}
	if got := math.Float32bits(a.px[0]); binary.LittleEndian.Uint32(good[nodesEnd+12+24+8:]) != got {
		t.Fatal("the first particle's x is not where the test writes")
	}
	for _, tc := range cases {
		b, _ := ckRegion(t, 1)
		before := checkpointBytes(t, b)
		err := b.ReadCheckpoint(bytes.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
		if !bytes.Equal(before, checkpointBytes(t, b)) {
			t.Errorf("%s: the refused read changed the region", tc.name)
		}
	}
	// Another solid in the reader (a region whose terrain changed, resumed on its
	// columns' outline): the checkpoint's solid, as sampled, is the one read.
	set := a.Settings()
	sp, _ := terrain.Sphere(v3(10*set.H, 6*set.H, 0), 4*set.H)
	set.Solid = sp
	o := newSim(t, set)
	if err := o.ReadCheckpoint(bytes.NewReader(good)); err != nil {
		t.Fatalf("into a region with another solid: %v", err)
	}
	if o.fingerprint().solid != a.fingerprint().solid || !slices.Equal(o.node, a.node) || !slices.Equal(o.au, a.au) {
		t.Error("read into a region with another solid: the solid as sampled is not the checkpoint's")
	}
	step(t, o, 1.0/120)
	// Truncated anywhere: an error, never a panic.
	for n := 0; n < len(good); n += 1 + n/7 {
		b, _ := ckRegion(t, 1)
		if err := b.ReadCheckpoint(bytes.NewReader(good[:n])); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
}

// checkpointLedger is every field of Sim and sideColumns: saved in a checkpoint, or
// derived, or scratch. A field added fails TestCheckpointLedger until it is decided
// here and, if it carries state from step to step, in checkpoint.go.
var checkpointLedger = map[string]map[string]string{
	"Sim": {
		"set": "the reader's (fingerprint)", "nx": "derived", "ny": "derived", "nz": "derived", "ncell": "derived", "h": "derived",
		"hf": "derived", "invh": "derived", "pool": "the reader's", "k": "the reader's", "kc": "scratch", "phase": "scratch",
		"job": "derived", "solidJob": "derived", "dt": "scratch (set every substep)", "dtSub": "scratch (set every substep)",
		"time": "saved", "sortPending": "set (the reader sorts at its next Step)", "lastStats": "not state (figures)",
		"cur": "not state (figures)", "fullExtrap": "not state (tests)", "maxSpeed": "saved (the next Step's sort sets it again)",
		"node": "saved (the solid as sampled, which SetSolid may have changed)", "au": "derived (fingerprint)", "av": "derived (fingerprint)", "aw": "derived (fingerprint)",
		"u": "scratch (p2g clears it)", "v": "scratch (p2g)", "w": "scratch (p2g)", "mu": "scratch (p2g)", "mv": "scratch (p2g)", "mw": "scratch (p2g)",
		"tu": "scratch", "tv": "scratch", "tw": "scratch", "fu": "scratch", "fv": "scratch", "fw": "scratch", "gu": "scratch", "gv": "scratch", "gw": "scratch",
		"layer": "scratch", "rho": "scratch (p2g)", "invOpen": "derived", "rhoOut": "derived (the side levels)",
		"np": "saved", "px": "saved", "py": "saved", "pz": "saved", "vx": "saved", "vy": "saved", "vz": "saved", "cm": "saved", "vol": "saved",
		"bpx": "scratch (the sort's)", "bvx": "scratch", "bcm": "scratch", "bvol": "scratch", "key": "derived (the next sort)",
		"order": "derived (the next sort)", "cellStart": "derived (the next sort)", "next": "scratch", "sx": "derived", "sy": "derived", "sz": "derived",
		"slabAxis": "derived", "slabs": "derived", "workerMax": "scratch", "workerCount": "scratch",
		"cellToM": "scratch (pressure)", "lcell": "scratch", "nbr": "scratch", "diag": "scratch", "offx": "scratch", "offy": "scratch", "offz": "scratch",
		"precon": "scratch", "pres": "scratch (zeroed before each solve)", "res": "scratch", "zv": "scratch", "sv": "scratch", "qv": "scratch",
		"partial": "scratch", "alpha": "scratch", "beta": "scratch", "spreading": "scratch (a substep's)", "deep": "scratch (a substep's)",
		"added": "saved", "out": "saved", "in": "saved", "outflow": "saved", "cols": "saved (sideColumns)",
	},
	"sideColumns": {
		"n": "derived", "level": "saved", "vel": "saved", "lvl": "derived (level)", "share": "derived (level)", "wet": "derived (level)",
		"res": "saved", "cnt": "saved", "took": "saved", "place": "derived (level)", "nplace": "derived (level)",
	},
}

// TestCheckpointLedger: every field of the state's types is in checkpointLedger.
func TestCheckpointLedger(t *testing.T) {
	for _, ty := range []reflect.Type{reflect.TypeFor[Sim](), reflect.TypeFor[sideColumns]()} {
		ledger := checkpointLedger[ty.Name()]
		seen := map[string]bool{}
		for i := range ty.NumField() {
			name := ty.Field(i).Name
			seen[name] = true
			if _, ok := ledger[name]; !ok {
				t.Errorf("%s.%s is new: decide whether a checkpoint saves it (checkpoint.go) and list it in checkpointLedger", ty.Name(), name)
			}
		}
		for name := range ledger {
			if !seen[name] {
				t.Errorf("%s.%s is in checkpointLedger but not in the type", ty.Name(), name)
			}
		}
	}
}
