package region

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/terrain"
)

// ckOf writes the columns' checkpoint and the region's.
func ckOf(t *testing.T, sim *gpusim.Sim, g *Region) (cols, reg []byte) {
	t.Helper()
	var a, b bytes.Buffer
	if err := sim.WriteCheckpoint(&a); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteCheckpoint(&b); err != nil {
		t.Fatal(err)
	}
	return a.Bytes(), b.Bytes()
}

// regionBits is everything of a coupled run the tests compare, as bits: the columns'
// exact levels, the region's particles (positions, velocities, volumes), its books and
// what its sides hold, the columns' books and the exchanged volume.
func regionBits(sim *gpusim.Sim, g *Region) []uint64 {
	var b []uint64
	f64 := func(v ...float64) {
		for _, x := range v {
			b = append(b, math.Float64bits(x))
		}
	}
	all := make([]int, sim.Columns().NumColumns())
	for i := range all {
		all[i] = i
	}
	f64(sim.Levels(all, nil)...)
	for _, p := range g.Liquid().Particles(nil) {
		f64(p.Pos.X, p.Pos.Y, p.Pos.Z, p.Vel.X, p.Vel.Y, p.Vel.Z, p.Volume)
	}
	added, out := g.Liquid().Accounting()
	f64(added, out, g.Liquid().Inflow(), g.Pending(), g.Volume())
	ca, cr, _ := sim.Accounting()
	v, books := g.Balance()
	f64(ca, cr, sim.Outflow(), sim.Exchanged(), sim.Volume(), v, books, sim.Time())
	return b
}

// TestCheckpoint: the dam break's bore running through the region, checkpointed at 0.6 s
// (the columns' checkpoint and the region's), restored into fresh columns (other
// settings, another worker count) with Restore, runs on to 1.2 s to the same bits as the
// run not stopped, after every step: every column's exact level, every particle, the
// books of both and the volume; the steps counted go on. Restore refuses, naming why,
// columns not restored from the checkpoint (they hold nothing), a solid the region had
// not, and any truncation of the data.
func TestCheckpoint(t *testing.T) {
	simA, gA := damBreak(t, 1, 0.6)
	cols, reg := ckOf(t, simA, gA)
	t.Logf("at %.3g s: columns' checkpoint %d bytes, region's %d bytes (%d particles)", simA.Time(), len(cols), len(reg), gA.Liquid().Count())
	if gA.Liquid().Inflow() == 0 {
		t.Fatal("nothing flowed in yet: the checkpoint does not test the sides")
	}
	fresh := func() *gpusim.Sim { return damBreakColumns(t, 2) }
	simB, gB := restoreDamBreak(t, cols, reg, 2)
	if !slices.Equal(regionBits(simA, gA), regionBits(simB, gB)) {
		t.Fatal("just restored: the states differ")
	}
	if n, _, _ := gB.Timing(); n != gA.steps {
		t.Errorf("restored after %d steps, the checkpoint's region took %d", n, gA.steps)
	}
	for simA.Time() < 1.2 {
		step(t, gA)
		step(t, gB)
		if !slices.Equal(regionBits(simA, gA), regionBits(simB, gB)) {
			t.Fatalf("t = %.4g s: the states differ", simA.Time())
		}
	}
	checkVolume(t, gB, "the end")

	// Refusals.
	if _, err := Restore(fresh(), reg, nil, 1); err == nil || !strings.Contains(err.Error(), "do not go together") {
		t.Errorf("columns that hold nothing: %v", err)
	}
	simC := fresh()
	if err := simC.ReadCheckpoint(bytes.NewReader(cols)); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(simC, reg, flatSolid{}, 1); err == nil || !strings.Contains(err.Error(), "without a solid") {
		t.Errorf("a solid the region had not: %v", err)
	}
	for n := 0; n < len(reg); n += 1 + n/5 {
		if _, err := Restore(simC, reg[:n], nil, 1); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	bad := slices.Clone(reg)
	bad[len(bad)/2] ^= 1
	if _, err := Restore(simC, bad, nil, 1); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("a flipped byte: %v", err)
	}
	if _, err := Restore(simC, cols, nil, 1); err == nil || !strings.Contains(err.Error(), "not a region checkpoint") {
		t.Errorf("the columns' checkpoint: %v", err)
	}
	if g, err := Restore(simC, reg, nil, 1); err != nil { // and the good one after all that
		t.Fatal(err)
	} else {
		g.Close()
	}
}

// TestCheckpointPacking: a region with the density correction (Packing) resumes with it,
// to the same bits as the run not stopped; a version 1 checkpoint (written before the
// correction, without the field) is read, and resumes without one, as it ran.
func TestCheckpointPacking(t *testing.T) {
	simA, gA := damBreakPacking(t, 1, 0.5, 1.1)
	if p := gA.Liquid().Settings().Packing; p != 1.1 {
		t.Fatalf("the region's liquid has packing %g, want 1.1", p)
	}
	cols, reg := ckOf(t, simA, gA)
	simB, gB := restoreDamBreak(t, cols, reg, 1)
	if p := gB.Settings().Packing; p != 1.1 {
		t.Fatalf("restored with packing %g, want 1.1", p)
	}
	for range 30 {
		step(t, gA)
		step(t, gB)
		if !slices.Equal(regionBits(simA, gA), regionBits(simB, gB)) {
			t.Fatalf("t = %.4g s: the states differ", simA.Time())
		}
	}
	// Version 1: the same bytes without Packing (after the six sizes, the floor and the
	// viscosity), its length and checksum made again.
	m := len(checkpointMagic)
	at := m + 4 + 8 + 6*4 + 2*8
	v1 := slices.Concat(reg[:at], reg[at+8:len(reg)-4])
	binary.LittleEndian.PutUint32(v1[m:], 1)
	binary.LittleEndian.PutUint64(v1[m+4:], uint64(len(v1)-(m+4+8)))
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.ChecksumIEEE(v1))
	if _, g1 := restoreDamBreak(t, cols, v1, 1); g1.Settings().Packing != 0 || g1.Liquid().Settings().Packing != 0 {
		t.Errorf("a version 1 checkpoint resumed with packing %g", g1.Settings().Packing)
	}
}

// damBreakColumns is a fresh Sim for damBreak's columns (nothing in them yet: a
// checkpoint's columns are read into it), on workers workers.
func damBreakColumns(t *testing.T, workers int) *gpusim.Sim {
	st := gpusim.DefaultSettings()
	st.Workers = workers
	return newColumns(t, flat(t, 60, 1, 0.01, 0.08), st, 0.02)
}

// restoreDamBreak reads a damBreak run's columns' checkpoint cols into fresh columns and
// restores its region's checkpoint reg over them, on workers workers.
func restoreDamBreak(t *testing.T, cols, reg []byte, workers int) (*gpusim.Sim, *Region) {
	t.Helper()
	sim := damBreakColumns(t, workers)
	if err := sim.ReadCheckpoint(bytes.NewReader(cols)); err != nil {
		t.Fatal(err)
	}
	g, err := Restore(sim, reg, nil, workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return sim, g
}

// flatSolid is the solid below z = 0.
type flatSolid struct{}

func (flatSolid) Dist(p terrain.Vec3) float64 { return p.Z }
