package script

import (
	"math"
	"math/rand/v2"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/terrain"
)

// globalSolid returns the solid a script left in the global name.
func globalSolid(t *testing.T, s *Scenario, name string) terrain.Solid {
	t.Helper()
	ud, ok := s.L.GetGlobal(name).(*lua.LUserData)
	if !ok {
		t.Fatalf("global %s is %s, want a solid", name, s.L.GetGlobal(name).Type())
	}
	sv, ok := ud.Value.(*solidVal)
	if !ok {
		t.Fatalf("global %s is not a solid", name)
	}
	return sv.solid
}

// TestSolidScale: solid:scale(s) of a sphere is the sphere of scaled centre and radius,
// at random points; scaling composes with translate as the docs say (about the origin).
func TestSolidScale(t *testing.T) {
	s := mustLoad(t, "scale.lua", small+`
A = vp.sphere{ center = {0.002, 0.001, 0.003}, radius = 0.002 }:scale(2.5)
B = vp.sphere{ center = {0.005, 0.0025, 0.0075}, radius = 0.005 }
C = vp.box{ min = {0, 0, 0}, max = {1, 1, 1} }:translate{1, 0, 0}:scale(0.5)
D = vp.box{ min = {0.5, 0, 0}, max = {1, 0.5, 0.5} }
`, opts(nil))
	a, b := globalSolid(t, s, "A"), globalSolid(t, s, "B")
	c, d := globalSolid(t, s, "C"), globalSolid(t, s, "D")
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		p := terrain.Vec3{X: 0.02 * (rng.Float64() - 0.5), Y: 0.02 * (rng.Float64() - 0.5), Z: 0.02 * (rng.Float64() - 0.5)}
		if got, want := a.Dist(p), b.Dist(p); math.Abs(got-want) > 1e-15 {
			t.Fatalf("scaled sphere: Dist%v = %g, the sphere of radius 0.005 gives %g", p, got, want)
		}
		p = p.Scale(100)
		if got, want := c.Dist(p), d.Dist(p); math.Abs(got-want) > 1e-12 {
			t.Fatalf("translated then scaled box: Dist%v = %g, want %g", p, got, want)
		}
	}
	if !terrain.IsLipschitz(a) {
		t.Errorf("a scaled sphere is not Lipschitz")
	}
}

// TestSolidScaleErrors: a factor that is not a finite number > 0 is an error at the
// calling line naming s.
func TestSolidScaleErrors(t *testing.T) {
	const ball = "local b = vp.sphere{ center = {0, 0, 0}, radius = 1 }\n"
	for _, c := range []struct{ name, call, want string }{
		{"zero", "b:scale(0)", "solid:scale: s is 0: it must be > 0"},
		{"negative", "b:scale(-1)", "solid:scale: s is -1: it must be > 0"},
		{"nan", "b:scale(0/0)", "solid:scale: s is nan: it must be a finite number"},
		{"inf", "b:scale(1/0)", "solid:scale: s is inf: it must be a finite number"},
		{"minus inf", "b:scale(-1/0)", "solid:scale: s is -inf: it must be a finite number"},
		{"string", "b:scale('2')", "solid:scale: s is a string, want a number"},
		{"missing", "b:scale()", "solid:scale: takes one scale factor s"},
		{"table", "b:scale{2}", "solid:scale: s is a table, want a number"},
		{"two", "b:scale(2, 3)", "solid:scale: takes one scale factor s (call it as solid:scale(s)), got 2 arguments"},
		{"dot call", "b.scale(2)", "solid:scale: self (call it as solid:scale(s)) is a number, want a solid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSource("scale.lua", []byte(small+ball+"local s = "+c.call+"\n"), opts(nil))
			wantError(t, err, "scale.lua", 3, c.want)
		})
	}
}
