package script

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
)

// regionVal is what a region userdata holds: the scenario and the id of the region it
// placed (scene.RegionInfo.ID): a handle of a region removed is stale, even when another
// is in place.
type regionVal struct {
	s  *Scenario
	id int
}

func (v *regionVal) describe() string { return fmt.Sprintf("region %d", v.id) }

// regionMethods are the sim methods of the 3D region (docs/scripting.md, "The 3D region").
func (s *Scenario) regionMethods() []decl {
	return []decl{
		{"region", s.simRegion,
			"sim:region{min = {x0, y0, z0}, max = {x1, y1, z1}, dx = h, refine = n} -> region: a box where the liquid is simulated in 3D, coupled to the columns around it both ways"},
	}
}

// simRegion is sim:region{ min = {x0, y0, z0}, max = {x1, y1, z1}, dx = h } (or refine
// = n instead of dx).
func (s *Scenario) simRegion(L *lua.LState) int {
	c := s.simCall(L, "region")
	t := c.table(2, "{min = {x0, y0, z0}, max = {x1, y1, z1}, dx = h}")
	lo, hi, refine := s.regionBox(c, t, nil)
	info := s.regionPlace(c, func() (scene.RegionInfo, error) { return s.scene.PlaceRegion(lo, hi, refine) }, true)
	s.regionAt = c.where()
	ud := L.NewUserData()
	ud.Value = &regionVal{s: s, id: info.ID}
	ud.Metatable = s.mt.region
	L.Push(ud)
	return 1
}

// regionBox reads a region's box from t: min and max (m) and its cells, dx = h or refine
// = n (sim:region's). With cur (region:move) each one absent keeps the region's.
func (s *Scenario) regionBox(c call, t *lua.LTable, cur *scene.RegionInfo) (lo, hi [3]float64, refine int) {
	c.keys(t, "min", "max", "dx", "refine")
	hasDx, hasRefine := t.RawGetString("dx") != lua.LNil, t.RawGetString("refine") != lua.LNil
	if hasDx && hasRefine {
		c.fail("dx and refine say one thing two ways: give one (refine = n makes the region's cells the columns' dx / n)")
	}
	if cur != nil {
		lo, hi, refine = cur.Min, cur.Max, cur.Refine
	}
	for _, b := range []struct {
		key string
		v   *[3]float64
	}{{"min", &lo}, {"max", &hi}} {
		if cur == nil || t.RawGetString(b.key) != lua.LNil {
			v := c.vec(t, b.key, 3)
			*b.v = [3]float64{v[0], v[1], v[2]}
		}
	}
	if cur == nil || hasRefine {
		refine = c.integer(t, "refine", intField{def: 1, min: 1, max: scene.MaxRefine})
	}
	c.ensureSolver()
	if hasDx {
		colDx := s.scene.Columns().Dx
		h := c.num(t, "dx", numField{required: true, hasMin: true, above: true, unit: "m"})
		n := colDx / h
		r := math.Round(n)
		if r < 1 || math.Abs(n-r) > 1e-6*n {
			c.fail("dx = %s is not the columns' dx (%s m) over a whole number: a region's cells cut the columns' cells in n along each axis (dx = %s, %s, %s, ...; or refine = n)",
				fmtNum(h), fmtNum(colDx), fmtNum(colDx), fmtNum(colDx/2), fmtNum(colDx/3))
		}
		if r > scene.MaxRefine {
			c.fail("dx = %s is the columns' dx (%s m) over %d: at most over %d", fmtNum(h), fmtNum(colDx), int(r), scene.MaxRefine)
		}
		refine = int(r)
	}
	return lo, hi, refine
}

// regionPlace runs place (placing or moving the region), which samples the terrain inside
// the box: a heightfield's fn runs then, its failure raised as the call's. remove takes
// out a region placed before the failure (sim:region's; a move puts the old box back
// itself).
func (s *Scenario) regionPlace(c call, place func() (scene.RegionInfo, error), remove bool) scene.RegionInfo {
	s.hf.epoch++
	s.hf.err = nil
	resume := s.pauseWatchdog()
	info, err := place()
	resume()
	if s.hf.err != nil {
		if remove {
			s.scene.RemoveRegion()
		}
		c.raise(s.hf.err)
	}
	if err != nil {
		c.fail("%s", err)
	}
	return info
}

// regionHandleMethods are a region's methods.
func (s *Scenario) regionHandleMethods() []decl {
	self := func(L *lua.LState, name string) (call, *regionVal) {
		return colonSelf[regionVal](s, L, name, "a region", "r")
	}
	return []decl{
		{"info", func(L *lua.LState) int {
			c, v := self(L, "region:info")
			in, ok := s.scene.RegionInfo()
			if !ok || in.ID != v.id {
				c.fail("region %d was removed", v.id)
			}
			L.Push(regionTable(L, in))
			return 1
		}, "region:info() -> table: its box as placed, cells, particles, volume, inflow and outflow, the last step's substeps and solver iterations, its time a step"},
		{"move", func(L *lua.LState) int {
			c, v := self(L, "region:move")
			t := c.table(2, "{min = {x0, y0, z0}, max = {x1, y1, z1}, dx = h}")
			in, ok := s.scene.RegionInfo()
			if !ok || in.ID != v.id {
				c.fail("region %d was removed", v.id)
			}
			lo, hi, refine := s.regionBox(c, t, &in)
			s.regionPlace(c, func() (scene.RegionInfo, error) { return s.scene.MoveRegion(lo, hi, refine) }, false)
			return 0
		}, "region:move{min = {x0, y0, z0}, max = {x1, y1, z1}, dx = h, refine = n}: moves or resizes it between steps (each key absent keeps its own), its liquid exactly"},
		{"remove", func(L *lua.LState) int {
			_, v := self(L, "region:remove")
			if in, ok := s.scene.RegionInfo(); ok && in.ID == v.id {
				s.scene.RemoveRegion()
			}
			return 0
		}, "region:remove(): takes the region out, its liquid back to the columns under it, exactly"},
	}
}

// regionTable is region:info() and sim:stats().region.
func regionTable(L *lua.LState, in scene.RegionInfo) *lua.LTable {
	t := L.CreateTable(0, 20)
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	vec := func(k string, v [3]float64) {
		a := L.CreateTable(3, 0)
		for _, x := range v {
			a.Append(lua.LNumber(x))
		}
		t.RawSetString(k, a)
	}
	set("id", float64(in.ID))
	vec("min", in.Min)
	vec("max", in.Max)
	set("dx", in.H)
	set("refine", float64(in.Refine))
	set("nx", float64(in.NX))
	set("ny", float64(in.NY))
	set("nz", float64(in.NZ))
	set("cells", float64(in.NX*in.NY*in.NZ))
	set("particles", float64(in.Particles))
	set("volume", in.Volume)
	set("inflow", in.In)
	set("outflow", in.Out)
	set("steps", float64(in.Steps))
	set("substeps", float64(in.Substeps))
	set("iterations", float64(in.Iterations))
	set("max_iterations", float64(in.MaxIterations))
	set("liquid_cells", float64(in.LiquidCells))
	set("airborne", float64(in.Airborne))
	set("air_top", in.AirTop)
	ms := 0.0
	if in.Steps > 0 {
		ms = in.StepWall.Seconds() * 1e3 / float64(in.Steps)
	}
	set("step_ms", ms)
	return t
}
