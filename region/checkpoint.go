package region

// Checkpoints of a region: its settings, what its coupling carries from step to step and
// its solver's state (liquid3d's checkpoint), to be placed again over a Sim restored from
// the columns' checkpoint, which holds its columns (docs/checkpoints.md, "A 3D region").

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"time"

	"github.com/vpbench/vpbench/gpusim"
	"github.com/vpbench/vpbench/internal/ckcodec"
	"github.com/vpbench/vpbench/liquid3d"
	"github.com/vpbench/vpbench/terrain"
)

// CheckpointVersion is the version of the format WriteCheckpoint writes; Restore reads it
// and version 1 (written before the density correction: it has no Packing, and resumes
// without one, as it ran).
const CheckpointVersion = 2

// checkpointMagic opens every region checkpoint.
const checkpointMagic = "vpbench-region-checkpoint"

// savedRegion is a region checkpoint as read, before it is checked against the Sim.
type savedRegion struct {
	hasSolid         bool
	held             []int32
	buf              [4][]float64 // per side (nil: a wall): the outflow buffers
	steps            int64
	colWall, ownWall time.Duration
	liquid           []byte // liquid3d's checkpoint
}

// WriteCheckpoint writes the region's state to w, between two Steps. The format,
// little-endian: the magic "vpbench-region-checkpoint"; the version (uint32,
// CheckpointVersion); the payload's length (uint64); the payload; a CRC-32 (IEEE) of
// everything before it. The payload: the settings (X, Y, NX, NY, Refine, NZ as uint32;
// Bottom, Viscosity and Packing as float64; whether it has a solid, a byte: the solid itself is
// the terrain's, given again to Restore); the held columns (a count, then each, uint32);
// each side's outflow buffers (a byte, 1 for a Columns side, then their count and values,
// float64); the steps taken (uint64) and their wall times, the columns' and the
// region's own (int64 ns); liquid3d's checkpoint (its length, uint64, then its bytes).
// The rest of the coupling is derived again (the sides' columns and pipes) or computed
// every step (the levels, fluxes, wet areas and reservoirs' volumes the step reads).
func (g *Region) WriteCheckpoint(w io.Writer) error {
	var lb bytes.Buffer
	if err := g.liq.WriteCheckpoint(&lb); err != nil {
		return fmt.Errorf("region checkpoint: %w", err)
	}
	var e ckcodec.Encoder
	e.B = append(e.B, checkpointMagic...)
	e.U32(CheckpointVersion)
	e.U64(0) // the payload's length, set below
	set := g.set
	for _, v := range [...]int{set.X, set.Y, set.NX, set.NY, set.Refine, set.NZ} {
		e.U32(uint32(v))
	}
	e.F64(set.Bottom)
	e.F64(set.Viscosity)
	e.F64(set.Packing)
	e.Bool(set.Solid != nil)
	e.U64(uint64(len(g.held)))
	for _, c := range g.held {
		e.U32(uint32(c))
	}
	for _, sd := range g.sides {
		e.Bool(sd != nil)
		if sd != nil {
			e.F64s(sd.buf)
		}
	}
	e.U64(uint64(g.steps))
	e.U64(uint64(g.colWall))
	e.U64(uint64(g.ownWall))
	e.U64(uint64(lb.Len()))
	e.B = append(e.B, lb.Bytes()...)
	header := len(checkpointMagic) + 4 + 8
	binary.LittleEndian.PutUint64(e.B[header-8:], uint64(len(e.B)-header))
	e.U32(crc32.ChecksumIEEE(e.B))
	if _, err := w.Write(e.B); err != nil {
		return fmt.Errorf("region checkpoint: %w", err)
	}
	return nil
}

// Restore places the region a checkpoint (WriteCheckpoint's data) describes over sim, a
// Sim whose state was read from the columns' checkpoint written with it (gpusim's
// ReadCheckpoint): its columns are held already, and nothing is booked or moved. solid
// is the terrain inside the box (Settings.Solid: the one the region was placed with, or
// nil if it had none), workers the region's goroutines (Settings.Workers: the results
// are the same bits for any number). It gives an error naming the problem, and changes
// nothing, for data that is not a region checkpoint, of another version, truncated or
// corrupt, or that does not fit sim (other held columns, another grid or solid).
func Restore(sim *gpusim.Sim, data []byte, solid terrain.Solid, workers int) (*Region, error) {
	set, saved, err := decodeCheckpoint(data)
	if err != nil {
		return nil, err
	}
	switch {
	case saved.hasSolid && solid == nil:
		return nil, fmt.Errorf("region checkpoint: the region was placed with a solid inside its box, and none is given now")
	case !saved.hasSolid && solid != nil:
		return nil, fmt.Errorf("region checkpoint: the region was placed without a solid inside its box (a flat floor), and one is given now")
	}
	if saved.hasSolid {
		set.Solid = solid
	}
	set.Workers = workers
	return place(sim, set, saved)
}

// decodeCheckpoint reads a region checkpoint's settings and state.
func decodeCheckpoint(data []byte) (Settings, *savedRegion, error) {
	var set Settings
	m := len(checkpointMagic)
	header := m + 4 + 8
	switch {
	case len(data) < m && bytes.HasPrefix([]byte(checkpointMagic), data):
		return set, nil, fmt.Errorf("region checkpoint is truncated: %d bytes, not even its header", len(data))
	case len(data) < m || string(data[:m]) != checkpointMagic:
		return set, nil, fmt.Errorf("not a region checkpoint: wrong magic (it must start with %q)", checkpointMagic)
	case len(data) < m+4:
		return set, nil, fmt.Errorf("region checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	version := binary.LittleEndian.Uint32(data[m:])
	if version != CheckpointVersion && version != 1 {
		return set, nil, fmt.Errorf("region checkpoint format version %d: this build reads versions 1 and %d", version, CheckpointVersion)
	}
	if len(data) < header {
		return set, nil, fmt.Errorf("region checkpoint is truncated: %d bytes, not even its header", len(data))
	}
	size := binary.LittleEndian.Uint64(data[header-8:])
	have := uint64(len(data) - header)
	switch {
	case have < 4 || size > have-4:
		return set, nil, fmt.Errorf("region checkpoint is truncated: %d bytes, its header announces %d", len(data), uint64(header)+size+4)
	case size < have-4:
		return set, nil, fmt.Errorf("region checkpoint is corrupt: %d bytes after its end", have-4-size)
	}
	end := header + int(size)
	if crc32.ChecksumIEEE(data[:end]) != binary.LittleEndian.Uint32(data[end:]) {
		return set, nil, fmt.Errorf("region checkpoint is corrupt: checksum mismatch")
	}
	d := ckcodec.NewDecoder(data[header:end], "region checkpoint")
	d.What = "the settings"
	v := [6]int{}
	for k := range v {
		v[k] = int(d.U32())
	}
	set.X, set.Y, set.NX, set.NY, set.Refine, set.NZ = v[0], v[1], v[2], v[3], v[4], v[5]
	set.Bottom, set.Viscosity = d.F64(), d.F64()
	if version >= 2 {
		set.Packing = d.F64()
	}
	saved := &savedRegion{hasSolid: d.Bool()}
	d.What = "the held columns"
	saved.held = make([]int32, d.Count(4))
	for k := range saved.held {
		saved.held[k] = int32(d.U32())
	}
	for s := range saved.buf {
		d.What = fmt.Sprintf("the %v side's outflow buffers", liquid3d.Side(s))
		if d.Bool() {
			saved.buf[s] = d.F64s() // never nil: nil is a wall
		}
	}
	d.What = "the timing"
	saved.steps, saved.colWall, saved.ownWall = int64(d.U64()), time.Duration(d.U64()), time.Duration(d.U64())
	d.What = "the region's liquid"
	saved.liquid = d.Take(d.Count(1))
	if d.Err() != nil {
		return set, nil, d.Err()
	}
	if d.Len() != 0 {
		return set, nil, fmt.Errorf("region checkpoint is corrupt: %d bytes left after the region's liquid", d.Len())
	}
	if !ckcodec.Finite(set.Bottom) || !(set.Viscosity >= 0) || !ckcodec.Finite(set.Viscosity) || saved.steps < 0 ||
		(set.Packing != 0 && !(set.Packing >= 1 && ckcodec.Finite(set.Packing))) {
		return set, nil, fmt.Errorf("region checkpoint is corrupt: bottom %g m, viscosity %g m^2/s, packing %g, %d steps", set.Bottom, set.Viscosity, set.Packing, saved.steps)
	}
	for s, b := range saved.buf {
		for k, x := range b {
			if !(x >= 0) || !ckcodec.Finite(x) {
				return set, nil, fmt.Errorf("region checkpoint is corrupt: the %v side's outflow buffer %d holds %g m^3", liquid3d.Side(s), k, x)
			}
		}
	}
	return set, saved, nil
}

// restore gives the region place made (its solver new and empty, its columns those sim
// holds) saved's state (Restore), and writes the held columns' heights from it as a step
// does (the same the Sim's checkpoint holds).
func (g *Region) restore(saved *savedRegion) error {
	held := g.sim.Held()
	if !slices.Equal(held, g.held) || len(saved.held) != len(g.held) {
		return fmt.Errorf("region checkpoint: the solver holds %d columns, the region's box covers %d, the checkpoint lists %d: the columns' checkpoint and the region's do not go together", len(held), len(g.held), len(saved.held))
	}
	for k, c := range saved.held {
		if int(c) != g.held[k] {
			return fmt.Errorf("region checkpoint: its held column %d is %d, the box's is %d", k, c, g.held[k])
		}
	}
	if err := g.findPipes(); err != nil {
		return err
	}
	for s, sd := range g.sides {
		b := saved.buf[s]
		switch {
		case (sd == nil) != (b == nil):
			return fmt.Errorf("region checkpoint: the box's %v side is columns %v in the checkpoint, %v now", liquid3d.Side(s), b != nil, sd != nil)
		case sd != nil && len(b) != len(sd.buf):
			return fmt.Errorf("region checkpoint is corrupt: the %v side has %d outflow buffers for %d cells", liquid3d.Side(s), len(b), len(sd.buf))
		}
	}
	if err := g.liq.ReadCheckpoint(bytes.NewReader(saved.liquid)); err != nil {
		return fmt.Errorf("region checkpoint: %w", err)
	}
	for s, sd := range g.sides {
		if sd != nil {
			copy(sd.buf, saved.buf[s])
		}
	}
	g.steps, g.colWall, g.ownWall = saved.steps, saved.colWall, saved.ownWall
	return g.writeHeld()
}
