package script

import (
	"errors"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/bodies"
	"github.com/vpbench/vpbench/scene"
)

// bodyVal is what a body userdata holds.
type bodyVal struct {
	s *Scenario
	b *bodies.Body
}

// bodyMethods are the sim methods of floating bodies (docs/bodies.md).
func (s *Scenario) bodyMethods() []decl {
	return []decl{
		{"body", s.simBody,
			"sim:body{solid, density, at, rotate, color} -> body: the solid as a rigid body of density kg/m^3 that floats, sinks and drifts, and pushes the liquid back"},
		{"bodies", s.simBodies, "sim:bodies() -> {body, ...}: the bodies not removed, in the order they were made"},
	}
}

// simBody is sim:body{solid = s, density = rho, at = {x, y, z}, rotate = {axis = {x, y,
// z}, angle = a}, color = {r, g, b}}.
func (s *Scenario) simBody(L *lua.LState) int {
	c := s.simCall(L, "body")
	t := c.table(2, "{solid = s, density = kg/m^3, at = {x, y, z}}")
	c.keys(t, "solid", "density", "at", "rotate", "color")
	sv := t.RawGetString("solid")
	if sv == lua.LNil {
		c.fail("solid is missing: want a solid (vp.box{...}, vp.sphere{...}, ...), the body's shape")
	}
	L.Push(sv)
	solid := c.solidArg(L.GetTop(), "solid")
	L.Pop(1)
	density := c.num(t, "density", numField{required: true, want: "a density in kg/m^3 (> 0; water 1000)", hasMin: true, above: true, unit: "kg/m^3"})
	var at *[3]float64
	if v, ok := c.optVec(t, "at", 3); ok {
		at = &[3]float64{v[0], v[1], v[2]}
	}
	rot := c.rotation(t)
	color := c.color(t)
	c.ensureSolver()
	if at != nil {
		c.atInDomain(at[:])
	}
	b, err := s.scene.AddBody(solid.solid, density, at, rot, color)
	var out *scene.BodyOutsideError
	if errors.As(err, &out) {
		c.bodyOutside(solid, at != nil, out)
	}
	if err != nil {
		c.fail("%s", strings.TrimPrefix(err.Error(), "body: "))
	}
	return s.pushBody(L, b)
}

// bodyOutside refuses a body that reaches out of the domain (docs/bodies.md: the
// contacts would push it in, silently), naming the body (its solid and at), its extent
// and the domain, and the side it crosses.
func (c call) bodyOutside(solid *solidVal, placed bool, e *scene.BodyOutsideError) {
	where := "at = {%s, %s, %s}"
	if !placed {
		where = "where its solid lies (centre of mass {%s, %s, %s})"
	}
	where = fmt.Sprintf(where, fmtNum(e.At[0]), fmtNum(e.At[1]), fmtNum(e.At[2]))
	axes := [3]string{"x", "y", "z"}
	var sides []string
	for a := range 3 {
		if e.Min[a] < 0 {
			sides = append(sides, fmt.Sprintf("%s < 0 by %s m", axes[a], fmtNum(-e.Min[a])))
		}
		if e.Max[a] > e.Domain[a] {
			sides = append(sides, fmt.Sprintf("%s > %s by %s m", axes[a], fmtNum(e.Domain[a]), fmtNum(e.Max[a]-e.Domain[a])))
		}
	}
	c.fail("the body of %s %s spans [%s, %s] x [%s, %s] x [%s, %s] m, reaching out of the domain [0, %s] x [0, %s] x [0, %s] m (%s): a body must lie inside the domain (move at, or make the solid smaller; lengths are in metres)",
		solid.describe(), where, fmtNum(e.Min[0]), fmtNum(e.Max[0]), fmtNum(e.Min[1]), fmtNum(e.Max[1]), fmtNum(e.Min[2]), fmtNum(e.Max[2]),
		fmtNum(e.Domain[0]), fmtNum(e.Domain[1]), fmtNum(e.Domain[2]), strings.Join(sides, ", "))
}

// color reads a body's color = {r, g, b} (sRGB, each in [0, 1]); nil when absent.
func (c call) color(t *lua.LTable) *[3]float32 {
	v, ok := c.optVec(t, "color", 3)
	if !ok {
		return nil
	}
	for i, x := range v {
		if !(x >= 0 && x <= 1) {
			c.fail("color[%d] is %s: each channel must be in [0, 1]", i+1, fmtNum(x))
		}
	}
	return &[3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
}

// rotation reads sim:body's rotate = {axis = {x, y, z}, angle = radians}: the solid
// turned about its centre of mass; nil when absent.
func (c call) rotation(t *lua.LTable) *[3][3]float64 {
	v := t.RawGetString("rotate")
	if v == lua.LNil {
		return nil
	}
	rt, ok := v.(*lua.LTable)
	if !ok {
		c.fail("rotate is %s, want {axis = {x, y, z}, angle = radians}", typeName(v))
	}
	c.keys(rt, "axis", "angle")
	axis := c.vec(rt, "axis", 3)
	angle := c.num(rt, "angle", numField{required: true, want: "an angle in radians"})
	n := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	if !(n > 0) || math.IsInf(n, 0) {
		c.fail("rotate.axis is {%s, %s, %s}: it must be a vector of non-zero, finite length", fmtNum(axis[0]), fmtNum(axis[1]), fmtNum(axis[2]))
	}
	x, y, z := axis[0]/n, axis[1]/n, axis[2]/n
	co, si := math.Cos(angle), math.Sin(angle)
	k := 1 - co
	return &[3][3]float64{ // Rodrigues
		{co + x*x*k, x*y*k - z*si, x*z*k + y*si},
		{y*x*k + z*si, co + y*y*k, y*z*k - x*si},
		{z*x*k - y*si, z*y*k + x*si, co + z*z*k},
	}
}

func (s *Scenario) pushBody(L *lua.LState, b *bodies.Body) int {
	ud := L.NewUserData()
	ud.Value = &bodyVal{s: s, b: b}
	ud.Metatable = s.mt.body
	L.Push(ud)
	return 1
}

func (s *Scenario) simBodies(L *lua.LState) int {
	s.simCall(L, "bodies")
	t := L.NewTable()
	for _, b := range s.scene.Bodies() {
		s.pushBody(L, b)
		t.Append(L.Get(-1))
		L.Pop(1)
	}
	L.Push(t)
	return 1
}

// bodyHandleMethods are a body's methods.
func (s *Scenario) bodyHandleMethods() []decl {
	self := func(L *lua.LState, name string, live bool) (call, *bodies.Body) {
		c, v := colonSelf[bodyVal](s, L, name, "a body", "b")
		if live && v.b.Removed() {
			c.fail("body %d was removed", v.b.ID())
		}
		return c, v.b
	}
	push3 := func(L *lua.LState, x, y, z float64) int {
		L.Push(lua.LNumber(x))
		L.Push(lua.LNumber(y))
		L.Push(lua.LNumber(z))
		return 3
	}
	return []decl{
		{"position", func(L *lua.LState) int {
			_, b := self(L, "body:position", false)
			x, y, z := b.Position()
			return push3(L, x, y, z)
		}, "body:position() -> x, y, z: its centre of mass, m"},
		{"velocity", func(L *lua.LState) int {
			_, b := self(L, "body:velocity", false)
			x, y, z := b.Velocity()
			return push3(L, x, y, z)
		}, "body:velocity() -> vx, vy, vz: its centre of mass's velocity, m/s"},
		{"rotation", func(L *lua.LState) int {
			_, b := self(L, "body:rotation", false)
			axis, angle := b.Rotation()
			t := L.NewTable()
			for _, v := range axis {
				t.Append(lua.LNumber(v))
			}
			L.Push(t)
			L.Push(lua.LNumber(angle))
			return 2
		}, "body:rotation() -> {x, y, z}, angle: how it is turned from the solid as given (unit axis, radians)"},
		{"submerged", func(L *lua.LState) int {
			_, b := self(L, "body:submerged", false)
			L.Push(lua.LNumber(b.Submerged()))
			return 1
		}, "body:submerged() -> m^3: its volume below the liquid's surface"},
		{"info", func(L *lua.LState) int {
			_, b := self(L, "body:info", false)
			t := L.NewTable()
			set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
			set("id", float64(b.ID()))
			set("mass", b.Mass())
			set("volume", b.Volume())
			set("density", b.Density())
			set("submerged", b.Submerged())
			set("lowest", b.Lowest())
			vx, vy, vz := b.Velocity()
			set("speed", math.Sqrt(vx*vx+vy*vy+vz*vz))
			t.RawSetString("removed", lua.LBool(b.Removed()))
			L.Push(t)
			return 1
		}, "body:info() -> table: id, mass (kg), volume (m^3), density, submerged (m^3), lowest (m), speed (m/s), removed"},
		{"push", func(L *lua.LState) int {
			c, b := self(L, "body:push", true)
			t := c.table(2, "{force = {fx, fy, fz}, at = {x, y, z}, duration = s}")
			c.keys(t, "force", "at", "duration")
			f := c.vec(t, "force", 3)
			var at *[3]float64
			if v, ok := c.optVec(t, "at", 3); ok {
				at = &[3]float64{v[0], v[1], v[2]}
			}
			d := c.num(t, "duration", numField{def: 1.0 / 60, hasMin: true, above: true, unit: "s"})
			if err := b.Push(s.scene.Time(), [3]float64{f[0], f[1], f[2]}, at, d); err != nil {
				c.fail("%v", err)
			}
			return 0
		}, "body:push{force = {N, N, N}, at = {x, y, z}, duration = s}: a force at a point (default its centre of mass) for duration (default 1/60 s)"},
		{"set", func(L *lua.LState) int {
			c, b := self(L, "body:set", true)
			t := c.table(2, "{density = kg/m^3, velocity = {vx, vy, vz}, color = {r, g, b}}")
			c.keys(t, "density", "velocity", "color")
			if t.RawGetString("density") != lua.LNil {
				d := c.num(t, "density", numField{required: true, hasMin: true, above: true, unit: "kg/m^3"})
				if err := b.SetDensity(d); err != nil {
					c.fail("%v", err)
				}
			}
			if v, ok := c.optVec(t, "velocity", 3); ok {
				if err := b.SetVelocity(v[0], v[1], v[2]); err != nil {
					c.fail("%v", err)
				}
			}
			if col := c.color(t); col != nil {
				s.scene.SetBodyColor(b, *col)
			}
			return 0
		}, "body:set{density = kg/m^3, velocity = {vx, vy, vz}, color = {r, g, b}}: a new density (a swab soaking up blood grows denser), velocity or colour"},
		{"remove", func(L *lua.LState) int {
			_, b := self(L, "body:remove", false)
			s.scene.RemoveBody(b)
			return 0
		}, "body:remove(): takes it out; the liquid it displaced flows back"},
	}
}

// describe is a body's name in messages.
func (v *bodyVal) describe() string { return fmt.Sprintf("body %d", v.b.ID()) }
