package liquid3d

import (
	"fmt"
	"math"

	"github.com/vpbench/vpbench/terrain"
)

// Side names a side of the box: the order of Settings.Sides.
type Side int

// The six sides of the box, in the order of Settings.Sides (the columns' -x, +x, -y, +y
// first, as gpusim.Settings.Sides has them, then the floor and the lid).
const (
	XMin Side = iota
	XMax
	YMin
	YMax
	ZMin
	ZMax
)

var sideNames = [6]string{"-x", "+x", "-y", "+y", "-z", "+z"}

func (s Side) String() string {
	if s < 0 || s > ZMax {
		return fmt.Sprintf("Side(%d)", int(s))
	}
	return sideNames[s]
}

// SideKind is what lies beyond a side of the box.
type SideKind int

const (
	// Wall: a solid wall, free slip; particles stop against it. The zero value.
	Wall SideKind = iota
	// Open: air beyond the side (pressure 0, through the ghost-fluid condition, as at the
	// free surface); a particle that crosses it leaves the region and is counted out
	// (Sim.TakeOutflow).
	Open
	// Columns: heightfield columns beyond the side, one per cell along it, each with a
	// liquid level and a depth-averaged velocity (Sim.SetSideColumns). A face whose
	// span reaches below its column's level carries the column's velocity (prescribed in
	// the pressure solve) and the liquid that flows in is seeded as particles (booked as
	// Sim.Inflow); a face above the level is an open side's. Particles that cross the
	// side leave as through an open side. For the four vertical sides only.
	Columns
)

func (k SideKind) String() string {
	switch k {
	case Wall:
		return "wall"
	case Open:
		return "open"
	case Columns:
		return "columns"
	}
	return fmt.Sprintf("SideKind(%d)", int(k))
}

// Settings describe a region: its grid, its solids, its sides and its physics.
type Settings struct {
	// Origin is the corner of the box with the smallest coordinates, m; the box is
	// [Origin, Origin + (NX, NY, NZ) H].
	Origin terrain.Vec3
	// NX, NY, NZ are the number of cells along x, y and z (each >= 1; at most 2^24
	// cells in all); H is the cells' edge, m (> 0).
	NX, NY, NZ int
	H          float64
	// Solid is the terrain inside the box (terrain.Solid: Dist < 0 inside), or nil. It is
	// sampled at the cells' corners at New, and again when SetSolid replaces it.
	Solid terrain.Solid
	// Sides says what lies beyond each side (indexed by Side); the zero value is six
	// walls. Columns is for -x, +x, -y and +y only.
	Sides [6]SideKind
	// Gravity, m/s^2, pulls along -z (>= 0; DefaultSettings: 9.81).
	Gravity float64
	// Viscosity is the kinematic viscosity, m^2/s (>= 0; 0: none, the default). It is
	// integrated explicitly, and the substep respects its limit (H^2 / (6 Viscosity)).
	Viscosity float64
	// NoSlip makes the walls and the solid hold the liquid beside them at rest in the
	// viscous term (the velocity along a wall vanishes on it); without it they are free
	// slip. The pressure projection's condition (no flow through them) is the same
	// either way; NoSlip does nothing without Viscosity.
	NoSlip bool
	// CFL is the largest distance, in cells, the fastest particle moves in a substep
	// (> 0, <= 2; DefaultSettings: 1).
	CFL float64
	// Tolerance is the pressure solve's stopping rule: the largest residual divergence
	// of a cell, relative to the largest before the solve (DefaultSettings: 1e-6).
	// MaxIterations caps the conjugate gradient's iterations a solve (DefaultSettings:
	// 400); Step reports a solve that reached it.
	Tolerance     float64
	MaxIterations int
	// Packing is the liquid fraction above which a cell counts as packed: its particles
	// crowd closer than they were seeded, as APIC's do where the flow converges (most
	// where a jet plunges into a pool), and the density correction spreads them
	// (spread.go). 0: no correction (the zero value and DefaultSettings'); else >= 1
	// (a scene's region takes 1.1: scripts/jug.lua's glass then shows 0.89 of the level
	// its volume stands at while it pours, 0.66 to 0.80 without; docs/method.md, "A
	// density correction").
	Packing float64
	// Spread is the share of a packed cell's excess over Packing that the correction
	// moves out of it a substep (in (0, 1]; DefaultSettings: 0.5; unused without Packing).
	Spread float64
	// Workers is the number of goroutines a step's work is split over (< 1: every
	// processor). The results are the same bits for any number.
	Workers int
}

// DefaultSettings returns settings for an nx x ny x nz grid of cells of edge h at the
// origin, six walls, water without viscosity under the Earth's gravity, no density
// correction (Packing 0; Spread 0.5 for when it is set).
func DefaultSettings(nx, ny, nz int, h float64) Settings {
	return Settings{
		NX: nx, NY: ny, NZ: nz, H: h,
		Gravity: 9.81, CFL: 1, Tolerance: 1e-6, MaxIterations: 400, Spread: 0.5,
	}
}

// Validate names the first bad setting.
func (s Settings) Validate() error {
	if s.NX < 1 || s.NY < 1 || s.NZ < 1 {
		return fmt.Errorf("liquid3d: the grid is %d x %d x %d cells: each must be >= 1", s.NX, s.NY, s.NZ)
	}
	if n := int64(s.NX) * int64(s.NY) * int64(s.NZ); n > 1<<24 {
		return fmt.Errorf("liquid3d: the grid has %d cells: at most %d", n, 1<<24)
	}
	if !(s.H > 0) || math.IsInf(s.H, 0) {
		return fmt.Errorf("liquid3d: H is %g: it must be a finite number of metres > 0", s.H)
	}
	if !s.Origin.IsFinite() {
		return fmt.Errorf("liquid3d: Origin is %v: it must be finite", s.Origin)
	}
	for i, k := range s.Sides {
		if k != Wall && k != Open && k != Columns {
			return fmt.Errorf("liquid3d: side %v is %v: wall, open or columns", Side(i), k)
		}
		if k == Columns && Side(i) >= ZMin {
			return fmt.Errorf("liquid3d: side %v is columns: only the vertical sides (-x, +x, -y, +y) can have columns beyond them", Side(i))
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Gravity", s.Gravity}, {"Viscosity", s.Viscosity}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("liquid3d: %s is %g: it must be a finite number >= 0", f.name, f.v)
		}
	}
	if !(s.CFL > 0 && s.CFL <= 2) {
		return fmt.Errorf("liquid3d: CFL is %g: it must be in (0, 2]", s.CFL)
	}
	if !(s.Tolerance > 0 && s.Tolerance < 1) {
		return fmt.Errorf("liquid3d: Tolerance is %g: it must be in (0, 1)", s.Tolerance)
	}
	if s.MaxIterations < 1 {
		return fmt.Errorf("liquid3d: MaxIterations is %d: it must be >= 1", s.MaxIterations)
	}
	if s.Packing != 0 && !(s.Packing >= 1 && !math.IsInf(s.Packing, 0)) {
		return fmt.Errorf("liquid3d: Packing is %g: 0 (no density correction) or a finite liquid fraction >= 1", s.Packing)
	}
	if s.Packing != 0 && !(s.Spread > 0 && s.Spread <= 1) {
		return fmt.Errorf("liquid3d: Spread is %g: it must be in (0, 1] (the share of a packed cell's excess spread a substep)", s.Spread)
	}
	return nil
}
