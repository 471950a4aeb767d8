package script

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/scene"
)

// settingsMethods are the sim methods that change settings.
func (s *Scenario) settingsMethods() []decl {
	return []decl{
		{"set", s.simSet, "sim:set{...}: changes the solver's, the surface's and the liquid's settings mid-run"},
	}
}

// changeable are the settings vp.sim and sim:set share (sim:set accepts only these;
// settings reads them for both); fixed are vp.sim's others.
var (
	changeable = []string{"viscosity", "damping", "gravity", "cross_section", "extended_pipes", "falling", "fall_drop", "dt", "workers",
		"depth_max", "meniscus_length", "contact_angle", "meniscus", "liquid", "absorption",
		"capillarity", "surface_tension", "density", "sides", "capillary_pressure", "waves", "wave_amplitude", "wave_particles", "method"}
	fixed = []string{"size", "height", "dx", "layers", "backend"}
)

// simSet is sim:set{...}: changes settings through the scene's Change; nothing changes
// if one is bad.
func (s *Scenario) simSet(L *lua.LState) int {
	c := s.simCall(L, "set")
	t := c.table(2, "{viscosity = ..., damping = ..., ...}")
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if ks, ok := k.(lua.LString); ok && contains(fixed, string(ks)) {
			c.fail("%s cannot change mid-run: the grid and the backend are fixed by vp.sim (sim:set changes %s)", string(ks), strings.Join(changeable, ", "))
		}
	}
	c.keys(t, changeable...)
	st := c.settings(t, s.scene.Settings())
	warnings, err := s.scene.Change(func(cur *scene.Settings) { *cur = st })
	if err != nil {
		c.fail("%v", err)
	}
	s.warnAll(warnings)
	return 0
}

// settings reads the changeable fields of t over st (the fields absent keep st's
// values): one parser for vp.sim and sim:set, so that a name means the same and is read
// the same in both. It checks each field's type and form; the scene's Change checks the
// values (ranges, the liquid's colour) and applies the overrides of --workers and --method.
func (c call) settings(t *lua.LTable, st scene.Settings) scene.Settings {
	sv := &st.Solver
	if t.RawGetString("dt") != lua.LNil {
		sv.Dt = c.dt(t)
	}
	sv.Method, _ = scene.ParseMethod(c.choice(t, "method", sv.Method.String(), scene.MethodNames...)) // --method overrides it in the scene (Config.Method)
	sv.Viscosity = c.num(t, "viscosity", numField{def: sv.Viscosity})
	sv.Damping = c.num(t, "damping", numField{def: sv.Damping})
	sv.Gravity = c.num(t, "gravity", numField{def: sv.Gravity})
	sv.CrossSection, _ = scene.ParseCrossSection(c.choice(t, "cross_section", sv.CrossSection.String(), scene.CrossSectionNames...))
	sv.ExtendedPipes, _ = scene.ParseExtendedPipes(c.choice(t, "extended_pipes", sv.ExtendedPipes.String(), scene.ExtendedPipesNames...))
	sv.Falling, _ = scene.ParseFalling(c.choice(t, "falling", sv.Falling.String(), scene.FallingNames...))
	sv.FallDrop = c.num(t, "fall_drop", numField{def: sv.FallDrop})
	sv.Workers = c.integer(t, "workers", intField{def: sv.Workers, min: 0, max: maxWorkers})
	sv.Sides = c.sides(t, sv.Sides)
	st.Liquid = c.liquid(t, st.Liquid)
	st.Capillarity = c.choice(t, "capillarity", onOff(st.Capillarity), "on", "off") == "on"
	su := &st.Surface
	su.DepthMax = c.num(t, "depth_max", numField{def: su.DepthMax})
	su.MeniscusLength = c.num(t, "meniscus_length", numField{def: su.MeniscusLength})
	su.ContactAngle, st.ContactHysteresis = c.contactAngle(t, su.ContactAngle, st.ContactHysteresis)
	st.CapillaryPressure = c.choice(t, "capillary_pressure", onOff(st.CapillaryPressure), "on", "off") == "on"
	su.Meniscus = c.boolean(t, "meniscus", su.Meniscus)
	st.Waves = c.choice(t, "waves", onOff(st.Waves), "on", "off") == "on"
	st.WaveAmplitude = c.num(t, "wave_amplitude", numField{def: st.WaveAmplitude, hasMin: true, min: 0, unit: "(a scale)"})
	st.WaveParticles = c.integer(t, "wave_particles", intField{def: st.WaveParticles, min: 1, max: scene.MaxWaveParticles})
	return st
}

// contactAngle reads contact_angle: one angle (radians), or {advancing, receding} with
// 0 <= receding <= advancing <= pi; it returns the advancing angle and the hysteresis
// (advancing minus receding). Absent, the current ones stay.
func (c call) contactAngle(t *lua.LTable, adv, hyst float64) (float64, float64) {
	switch v := t.RawGetString("contact_angle").(type) {
	case *lua.LNilType:
		return adv, hyst
	case *lua.LTable:
		ar := c.vecValue("contact_angle", v, 2)
		if !(ar[1] >= 0 && ar[1] <= ar[0]) {
			c.fail("contact_angle is {%s, %s}: want {advancing, receding} radians with 0 <= receding <= advancing (a puddle rests between the two)",
				fmtNum(ar[0]), fmtNum(ar[1]))
		}
		return ar[0], ar[0] - ar[1]
	}
	return c.num(t, "contact_angle", numField{def: adv}), 0
}

// dt reads vp.sim's and sim:set's dt: "auto" (0 for the solver) or a number > 0.
func (c call) dt(t *lua.LTable) float64 {
	v := t.RawGetString("dt")
	switch v := v.(type) {
	case lua.LString:
		if v == "auto" {
			return 0
		}
	case lua.LNumber:
		f := c.number("dt", v)
		if f <= 0 {
			c.fail("dt is %s s: it must be > 0 seconds, or \"auto\"", fmtNum(f))
		}
		return f
	}
	if v == lua.LNil {
		return 0
	}
	c.fail("dt is %s: want a number of seconds > 0, or \"auto\"", describeValue(v))
	return 0
}

// liquid reads the liquid key (a name or an {r, g, b} table), the surface_tension and
// density keys and the absorption key (an {r, g, b} table of extinctions, 1/m) over cur.
// A named liquid brings its absorption, surface tension and density, a custom colour
// none of them (the preview derives an absorption from the colour; the physics keeps the
// liquid's before) unless given too. The values' ranges are the scene's to check.
func (c call) liquid(t *lua.LTable, cur scene.Liquid) scene.Liquid {
	switch v := t.RawGetString("liquid").(type) {
	case *lua.LNilType:
	case lua.LString:
		l, err := scene.NamedLiquid(string(v))
		if err != nil {
			c.fail("%v", err)
		}
		cur = l
	case *lua.LTable:
		cur = scene.Liquid{Name: "custom", SurfaceTension: cur.SurfaceTension, Density: cur.Density}
		for i, x := range c.vecValue("liquid", v, 3) {
			cur.Color[i] = float32(x)
		}
	default:
		c.fail("liquid is %s: want a name (%s) or an {r, g, b} table", typeName(v), scene.LiquidNames())
	}
	cur.SurfaceTension = c.num(t, "surface_tension", numField{def: cur.SurfaceTension})
	cur.Density = c.num(t, "density", numField{def: cur.Density})
	switch a := t.RawGetString("absorption").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		for i, x := range c.vecValue("absorption", a, 3) {
			cur.Absorption[i] = float32(x)
		}
	default:
		c.fail("absorption is %s: want an {r, g, b} table of extinctions in 1/m (blood: {400, 24000, 15000})", typeName(a))
	}
	return cur
}

// sides reads the sides key over cur: "walls" or "open" for all four, or a table naming
// some of minus_x, plus_x, minus_y, plus_y (the others keep cur's).
func (c call) sides(t *lua.LTable, cur [4]scene.Side) [4]scene.Side {
	want := `"walls", "open", or a table {minus_x = "open", plus_y = "walls", ...}`
	switch v := t.RawGetString("sides").(type) {
	case *lua.LNilType:
	case lua.LString:
		sd, err := scene.ParseSide(string(v))
		if err != nil {
			c.fail("sides is %s: want %s", describeValue(v), want)
		}
		cur = [4]scene.Side{sd, sd, sd, sd}
	case *lua.LTable:
		for k, x := v.Next(lua.LNil); k != lua.LNil; k, x = v.Next(k) {
			ks, _ := k.(lua.LString)
			i := slices.Index(scene.SideNames[:], string(ks))
			if i < 0 {
				c.fail("sides: unknown side %s%s: the sides are %s", describeValue(k), suggest(string(ks), scene.SideNames[:]), strings.Join(scene.SideNames[:], ", "))
			}
			xs, ok := x.(lua.LString)
			sd, err := scene.ParseSide(string(xs))
			if !ok || err != nil {
				c.fail("sides.%s is %s: want \"walls\" or \"open\"", ks, describeValue(x))
			}
			cur[i] = sd
		}
	default:
		c.fail("sides is %s: want %s", typeName(v), want)
	}
	return cur
}

// sidesTable is the sides as sim:info reports them: {minus_x = "walls" | "open", ...}.
func sidesTable(L *lua.LState, sides [4]scene.Side) *lua.LTable {
	t := L.CreateTable(0, 4)
	for i, sd := range sides {
		t.RawSetString(scene.SideNames[i], lua.LString(sd.String()))
	}
	return t
}

// onOff is a switch as scripts write it.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
