package script

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/timing"
)

// queryMethods are the sim methods that read the state; they change nothing.
func (s *Scenario) queryMethods() []decl {
	return []decl{
		{"volume", s.simVolume, "sim:volume([region]) -> m^3: the liquid's volume, in all or in a region"},
		{"depth", s.simDepth, "sim:depth(x, y) -> m: the depth of the topmost wet column at (x, y)"},
		{"columns", s.simColumns, "sim:columns(x, y) -> array: the columns at (x, y), {min, base, max, h}"},
		{"stats", s.simStats, "sim:stats() -> table: steps, volumes, accounting and Table 1's timings, and the region's figures"},
		{"info", s.simInfo, "sim:info() -> table: the grid, the columns, the time step, the backend and the settings"},
	}
}

func (s *Scenario) simVolume(L *lua.LState) int {
	c := s.simCall(L, "volume")
	if L.Get(2) == lua.LNil {
		c.ensureSolver()
		L.Push(lua.LNumber(s.snapshot().Volume))
		return 1
	}
	r := c.region(c.table(2, "{ min = {x, y}, max = {x, y}, floor_above = z, floor_below = z }"))
	c.ensureSolver()
	L.Push(lua.LNumber(s.snapshot().VolumeIn(r)))
	return 1
}

func (s *Scenario) simDepth(L *lua.LState) int {
	c := s.simCall(L, "depth")
	cx, cy := c.xyArgs()
	sn := s.snapshot()
	lo, hi := sn.Columns.Cell(cx, cy)
	d := 0.0
	for i := hi - 1; i >= lo; i-- {
		if sn.Height[i] > sn.Columns.Base[i] {
			d = sn.Depth(i)
			break
		}
	}
	L.Push(lua.LNumber(d))
	return 1
}

func (s *Scenario) simColumns(L *lua.LState) int {
	c := s.simCall(L, "columns")
	cx, cy := c.xyArgs()
	sn := s.snapshot()
	lo, hi := sn.Columns.Cell(cx, cy)
	out := L.CreateTable(hi-lo, 0)
	for i := lo; i < hi; i++ {
		col := L.CreateTable(0, 4)
		col.RawSetString("min", lua.LNumber(sn.Columns.Min[i]))
		col.RawSetString("base", lua.LNumber(sn.Columns.Base[i]))
		col.RawSetString("max", lua.LNumber(sn.Columns.Max[i]))
		col.RawSetString("h", lua.LNumber(sn.Height[i]))
		out.Append(col)
	}
	L.Push(out)
	return 1
}

func (s *Scenario) simStats(L *lua.LState) int {
	c := s.simCall(L, "stats")
	c.ensureSolver()
	L.Push(s.statsTable(L))
	return 1
}

func (s *Scenario) simInfo(L *lua.LState) int {
	c := s.simCall(L, "info")
	c.ensureSolver()
	L.Push(s.infoTable(L))
	return 1
}

// statsTable is sim:stats().
func (s *Scenario) statsTable(L *lua.LState) *lua.LTable {
	st := s.scene.Stats()
	t := L.NewTable()
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	set("steps", float64(st.Steps))
	set("time", st.Time)
	set("dt", st.Dt)
	set("columns", float64(st.Columns))
	set("wet", float64(st.Wet))
	set("pipes", float64(st.Pipes))
	set("extended", float64(st.Extended))
	set("passages", float64(st.Passages))
	set("particles", float64(st.Particles))
	set("airborne", st.Airborne)
	set("volume", st.Volume)
	set("added", st.Added)
	set("removed", st.Removed)
	set("rejected", st.Rejected)
	set("outflow", st.Outflow)
	set("workers", float64(st.Workers))
	set("waves", float64(s.scene.WaveCount()))
	set("bodies", float64(s.scene.BodyCount()))
	set("bodies_left", float64(s.scene.BodiesLeft()))
	if in, ok := s.scene.RegionInfo(); ok {
		t.RawSetString("region", regionTable(L, in))
	}
	t.RawSetString("backend", lua.LString(st.Backend))
	if st.Steps > 0 {
		set("step_ms", st.StepWall.Seconds()*1e3/float64(st.Steps))
	} else {
		set("step_ms", 0)
	}
	tm := timing.Timings{Simulation: s.advances.Timing(), Steps: s.stepped}
	if s.opt.Timings != nil {
		tm = s.opt.Timings()
	}
	for _, p := range []struct {
		name string
		t    timing.PhaseTiming
	}{{"sim", tm.Simulation}, {"surface", tm.Surface}, {"render", tm.Render}} {
		pt := L.CreateTable(0, 3)
		pt.RawSetString("frames", lua.LNumber(p.t.Frames))
		pt.RawSetString("avg", lua.LNumber(p.t.AvgMs))
		pt.RawSetString("max", lua.LNumber(p.t.MaxMs))
		t.RawSetString(p.name, pt)
	}
	return t
}

// infoTable is sim:info().
func (s *Scenario) infoTable(L *lua.LState) *lua.LTable {
	in := s.Info()
	t := L.NewTable()
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	t.RawSetString("name", lua.LString(in.Name))
	set("nx", float64(in.Nx))
	set("ny", float64(in.Ny))
	set("layers", float64(in.Layers))
	set("dx", in.Dx)
	set("height", in.Height)
	size := L.CreateTable(2, 0)
	size.Append(lua.LNumber(in.SizeX))
	size.Append(lua.LNumber(in.SizeY))
	t.RawSetString("size", size)
	set("columns", float64(in.Columns))
	set("pipes", float64(in.Pipes))
	set("dropped", float64(in.DroppedIntervals))
	t.RawSetString("terrain_marched", lua.LString(in.TerrainMarched))
	set("memory", float64(in.MemoryBytes))
	set("dt", in.Dt)
	set("stable_dt", in.StableDt)
	t.RawSetString("backend", lua.LString(in.Backend))
	set("workers", float64(in.Workers))
	set("viscosity", in.Settings.Viscosity)
	set("damping", in.Settings.Damping)
	set("gravity", in.Settings.Gravity)
	t.RawSetString("method", lua.LString(in.Settings.Method.String()))
	t.RawSetString("cross_section", lua.LString(in.Settings.CrossSection.String()))
	t.RawSetString("extended_pipes", lua.LString(in.Settings.ExtendedPipes.String()))
	t.RawSetString("falling", lua.LString(in.Settings.Falling.String()))
	t.RawSetString("sides", sidesTable(L, in.Settings.Sides))
	set("fall_drop", in.FallDrop)
	t.RawSetString("capillarity", lua.LString(onOff(in.Settings.SurfaceTension > 0)))
	set("surface_tension", in.Settings.SurfaceTension)
	set("density", in.Settings.Density)
	set("contact_angle", in.Settings.ContactAngle)
	set("capillary_length", in.Settings.CapillaryLength())
	set("wetting_head", in.Settings.WettingHead())
	set("receding_angle", in.Settings.RecedingAngle())
	set("receding_head", in.Settings.RecedingHead())
	t.RawSetString("capillary_pressure", lua.LString(onOff(in.Settings.SurfaceTension > 0 && in.Settings.CapillaryPressure)))
	set("capillary_smoothing", float64(in.CapillarySmoothing))
	t.RawSetString("contact_line", lua.LString(in.Settings.ContactLine(in.Dt, in.Dx)))
	ss := s.scene.Settings()
	t.RawSetString("waves", lua.LString(onOff(ss.Waves)))
	set("wave_amplitude", ss.WaveAmplitude)
	set("wave_particles", float64(ss.WaveParticles))
	t.RawSetString("version", lua.LString(Version))
	return t
}

// region reads sim:volume's region table (gpusim.Region): min and max {x, y} bound the
// cells' centres, floor_above and floor_below the floors of the columns counted; every
// field is optional, and a bound left out does not bound.
func (c call) region(t *lua.LTable) scene.Region {
	c.keys(t, "min", "max", "floor_above", "floor_below")
	r := scene.AllRegion
	if lo, ok := c.optVec(t, "min", 2); ok {
		r.X0, r.Y0 = lo[0], lo[1]
	}
	if hi, ok := c.optVec(t, "max", 2); ok {
		r.X1, r.Y1 = hi[0], hi[1]
	}
	if r.X0 > r.X1 || r.Y0 > r.Y1 {
		c.fail("min = {%s, %s} is not below max = {%s, %s}: the region would be empty",
			fmtNum(r.X0), fmtNum(r.Y0), fmtNum(r.X1), fmtNum(r.Y1))
	}
	r.FloorAbove = c.num(t, "floor_above", numField{def: r.FloorAbove})
	r.FloorBelow = c.num(t, "floor_below", numField{def: r.FloorBelow})
	if r.FloorAbove >= r.FloorBelow {
		c.fail("floor_above = %s is not below floor_below = %s: no floor lies between them",
			fmtNum(r.FloorAbove), fmtNum(r.FloorBelow))
	}
	return r
}
