package script

import (
	"fmt"
	"math"
	pathpkg "path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"github.com/vpbench/vpbench/terrain"
)

// solidVal is what a solid userdata holds.
type solidVal struct {
	solid terrain.Solid
	kind  string // box, sphere, union, ...
}

func (v *solidVal) describe() string { return "solid (" + v.kind + ")" }

func (s *Scenario) pushSolid(L *lua.LState, solid terrain.Solid, kind string) int {
	ud := L.NewUserData()
	ud.Value = &solidVal{solid, kind}
	ud.Metatable = s.mt.solid
	L.Push(ud)
	return 1
}

// solidArg checks that argument n is a solid.
func (c call) solidArg(n int, what string) *solidVal {
	v := c.L.Get(n)
	if ud, ok := v.(*lua.LUserData); ok {
		if sv, ok := ud.Value.(*solidVal); ok {
			return sv
		}
	}
	c.fail("%s is %s, want a solid (vp.box{...}, vp.sphere{...}, ...)", what, typeName(v))
	return nil
}

func vec3(v []float64) terrain.Vec3 { return terrain.Vec3{X: v[0], Y: v[1], Z: v[2]} }

func (s *Scenario) vpBox(L *lua.LState) int {
	c := call{s, L, "vp.box"}
	t := c.table(1, "{min = {x, y, z}, max = {x, y, z}}")
	c.keys(t, "min", "max")
	lo := c.vec(t, "min", 3)
	hi := c.vec(t, "max", 3)
	b, err := terrain.Box(vec3(lo), vec3(hi))
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, b, "box")
}

func (s *Scenario) vpSphere(L *lua.LState) int {
	c := call{s, L, "vp.sphere"}
	t := c.table(1, "{center = {x, y, z}, radius = r}")
	c.keys(t, "center", "radius")
	ctr := c.vec(t, "center", 3)
	r := c.num(t, "radius", numField{required: true, hasMin: true, above: true, unit: "m"})
	b, err := terrain.Sphere(vec3(ctr), r)
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, b, "sphere")
}

func (s *Scenario) vpCylinder(L *lua.LState) int {
	c := call{s, L, "vp.cylinder"}
	t := c.table(1, "{base = {x, y, z}, axis = {ax, ay, az}, radius = r, length = l}")
	c.keys(t, "base", "axis", "radius", "length")
	base := c.vec(t, "base", 3)
	axis := []float64{0, 0, 1}
	if v, ok := c.optVec(t, "axis", 3); ok {
		axis = v
	}
	if axis[0] == 0 && axis[1] == 0 && axis[2] == 0 {
		c.fail("axis is {0, 0, 0}: it must be a non-zero direction")
	}
	r := c.num(t, "radius", numField{required: true, hasMin: true, above: true, unit: "m"})
	l := c.num(t, "length", numField{required: true, hasMin: true, above: true, unit: "m"})
	b, err := terrain.Cylinder(vec3(base), vec3(axis), r, l)
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, b, "cylinder")
}

func (s *Scenario) vpPlane(L *lua.LState) int {
	c := call{s, L, "vp.plane"}
	t := c.table(1, "{point = {x, y, z}, normal = {nx, ny, nz}}")
	c.keys(t, "point", "normal")
	p := c.vec(t, "point", 3)
	n := []float64{0, 0, 1}
	if v, ok := c.optVec(t, "normal", 3); ok {
		n = v
	}
	if n[0] == 0 && n[1] == 0 && n[2] == 0 {
		c.fail("normal is {0, 0, 0}: it must be a non-zero direction")
	}
	b, err := terrain.Plane(vec3(p), vec3(n))
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, b, "plane")
}

// heightfieldState is shared by every heightfield of a scenario: their fns run one at a
// time (extraction is parallel, the Lua state is not) on a thread of their own.
type heightfieldState struct {
	mu    sync.Mutex
	th    *lua.LState
	busy  bool       // a fn is running
	epoch int        // counts extractions: cached fn values are valid within one
	err   error      // the fn failure at the lowest point (y, then x) of this extraction
	errAt [2]float64 // that point, (y, x)
}

// before reports whether (x, y) comes before the point of the failure kept so far, in
// the order extraction visits cells (rows of y, then x). Only those points are still
// evaluated, so the failure reported is the first in that order whatever the number of
// extraction goroutines.
func (h *heightfieldState) before(x, y float64) bool {
	return h.err == nil || y < h.errAt[0] || y == h.errAt[0] && x < h.errAt[1]
}

func (h *heightfieldState) fail(x, y float64, err error) {
	h.err, h.errAt = err, [2]float64{y, x}
}

// hfSolid is a heightfield whose surface a Lua fn gives.
type hfSolid struct {
	s   *Scenario
	fn  *lua.LFunction
	def place
	// recent holds fn values of this extraction by (x, y) hash, lock-free: a ray runs up
	// one cell centre and probes it a dozen times, so each extraction goroutine finds
	// its ray's value here and calls Lua once a cell.
	recent [64]atomic.Pointer[hfValue]
}

type hfValue struct {
	x, y, z float64
	epoch   int
}

func (h *hfSolid) slot(x, y float64) *atomic.Pointer[hfValue] {
	k := math.Float64bits(x)*0x9e3779b97f4a7c15 ^ math.Float64bits(y)*0xc2b2ae3d27d4eb4f
	return &h.recent[(k>>32)%uint64(len(h.recent))]
}

// height calls fn(x, y), reusing the value of the same point within one extraction. A
// failure (an error, a non-number, NaN, a timeout) is kept for sim:terrain to report and
// makes the calls after it NaN, which stops the extraction.
func (h *hfSolid) height(x, y float64) float64 {
	s := h.s
	epoch := s.hf.epoch // written before the extraction's goroutines start
	sl := h.slot(x, y)
	if v := sl.Load(); v != nil && v.epoch == epoch && v.x == x && v.y == y {
		return v.z
	}
	s.hf.mu.Lock()
	defer s.hf.mu.Unlock()
	if !s.hf.before(x, y) {
		return math.NaN()
	}
	th := s.hf.th
	s.hf.busy = true
	held := s.wd.arm(s.timeout)
	s.mem.enter()
	th.Push(h.fn)
	th.Push(lua.LNumber(x))
	th.Push(lua.LNumber(y))
	err := th.PCall(2, 1, nil)
	memFired := s.mem.leave()
	_, fired := s.wd.disarmHeld(held)
	s.hf.busy = false
	ret := th.Get(-1)
	th.SetTop(0)
	ctx := func() string { return fmt.Sprintf("in the vp.heightfield fn at x = %s, y = %s", fmtNum(x), fmtNum(y)) }
	switch {
	case memFired:
		s.hf.fail(x, y, s.memoryError())
		return math.NaN()
	case fired:
		s.hf.fail(x, y, s.timeoutError(err, h.def, ctx()))
		return math.NaN()
	case err != nil:
		s.hf.fail(x, y, s.luaError(err, h.def, ctx()))
		return math.NaN()
	}
	n, ok := ret.(lua.LNumber)
	if !ok || math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		s.hf.fail(x, y, &Error{File: h.def.file, Line: h.def.line,
			Msg: fmt.Sprintf("vp.heightfield: fn(%s, %s) returned %s: it must return the surface height z, a finite number of metres", fmtNum(x), fmtNum(y), describeValue(ret))})
		return math.NaN()
	}
	sl.Store(&hfValue{x, y, float64(n), epoch})
	return float64(n)
}

func (s *Scenario) vpHeightfield(L *lua.LState) int {
	c := call{s, L, "vp.heightfield"}
	var fv lua.LValue
	switch a := L.Get(1).(type) {
	case *lua.LFunction:
		fv = a
	case *lua.LTable:
		c.keys(a, "fn")
		fv = a.RawGetString("fn")
		if fv == lua.LNil {
			c.fail("fn is missing: want fn = function(x, y) return z end")
		}
	default:
		c.fail("want a table {fn = function(x, y) return z end}, got %s", typeName(a))
	}
	fn, ok := fv.(*lua.LFunction)
	if !ok {
		c.fail("fn is %s, want a function(x, y) returning z", typeName(fv))
	}
	h := &hfSolid{s: s, fn: fn, def: c.fnPlace(fn)}
	b, err := terrain.Heightfield(h.height)
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, b, "heightfield")
}

// vpMesh is vp.mesh(path, opts): a closed triangle mesh from an OBJ or STL file, the path
// relative to the script's folder. The options (units, up axis, placement) move the
// vertices before the solid is built.
func (s *Scenario) vpMesh(L *lua.LState) int {
	c := call{s, L, "vp.mesh"}
	v := L.Get(1)
	p, ok := v.(lua.LString)
	if !ok || p == "" {
		c.fail("the path is %s, want the path of an OBJ file or an STL file (relative to the script's folder)", describeValue(v))
	}
	if L.GetTop() > 2 {
		c.fail("takes a path and an options table, got %d arguments", L.GetTop())
	}
	t := c.optTable(2, `{scale = s, up = "z" or "y", place = "none" or "floor", at = {x, y}}`)
	c.keys(t, "scale", "up", "place", "at")
	scale := c.num(t, "scale", numField{def: 1})
	if scale <= 0 {
		c.fail("scale is %s: it must be > 0 (metres per unit of the file)", fmtNum(scale))
	}
	up := c.choice(t, "up", "z", "z", "y")
	floor := c.choice(t, "place", "none", "none", "floor") == "floor"
	at, hasAt := c.optVec(t, "at", 2)

	path := string(p)
	fromFiles := s.opt.Files != nil && !filepath.IsAbs(path)
	if fromFiles {
		path = pathpkg.Join(pathpkg.Dir(filepath.ToSlash(s.file)), filepath.ToSlash(path))
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(s.dir, path)
	}
	resume := sync.OnceFunc(s.pauseWatchdog()) // before any c.fail, and at the end
	defer resume()
	var m *terrain.Model
	var err error
	if fromFiles {
		m, err = terrain.LoadModelFS(s.opt.Files, path)
	} else {
		m, err = terrain.LoadModel(path)
	}
	if err != nil {
		resume()
		c.fail("%s", trimTerrain(err))
	}
	// Units and up axis: (x, y, z) -> s (x, -z, y) for up = "y", a rotation by +90 degrees
	// about x that takes the file's +y to +z (and its +z, the front, to -y).
	if up == "y" {
		m.Transform(func(v terrain.Vec3) terrain.Vec3 {
			return terrain.Vec3{X: v.X * scale, Y: -v.Z * scale, Z: v.Y * scale}
		})
	} else if scale != 1 {
		m.Transform(func(v terrain.Vec3) terrain.Vec3 { return v.Scale(scale) })
	}
	lo, hi := m.Bounds()
	if !lo.IsFinite() || !hi.IsFinite() {
		resume()
		c.fail("scale = %s makes the coordinates of %s overflow: it must be a factor the model's numbers can take", fmtNum(scale), filepath.Base(path))
	}
	if floor || hasAt {
		var d terrain.Vec3
		if floor {
			d.Z = -lo.Z
		}
		if hasAt {
			d.X, d.Y = at[0]-(lo.X+hi.X)/2, at[1]-(lo.Y+hi.Y)/2
		}
		m.Transform(func(v terrain.Vec3) terrain.Vec3 { return v.Add(d) })
		lo, hi = lo.Add(d), hi.Add(d)
	}
	name := filepath.Base(path)
	box := fmt.Sprintf("[%.4g, %.4g] x [%.4g, %.4g] x [%.4g, %.4g] m", lo.X, hi.X, lo.Y, hi.Y, lo.Z, hi.Z)
	if s.scene != nil {
		dom, at := s.scene.Domain(), c.where()
		ext := max(hi.X-lo.X, hi.Y-lo.Y, hi.Z-lo.Z)
		if ext < dom.Dx {
			resume()
			c.fail("%s with scale = %s is %.3g m across, less than the cell size dx = %s m: it would vanish from the grid (is scale right for the file's units? 0.001 turns millimetres into metres)",
				name, fmtNum(scale), ext, fmtNum(dom.Dx))
		}
		dbox := fmt.Sprintf("[0, %s] x [0, %s] x [0, %s] m", fmtNum(dom.SizeX), fmtNum(dom.SizeY), fmtNum(dom.Height))
		switch {
		case (floor || hasAt) && (lo.X < 0 || lo.Y < 0 || lo.Z < 0 || hi.X > dom.SizeX || hi.Y > dom.SizeY || hi.Z > dom.Height):
			s.warn(fmt.Sprintf("%s:%d: vp.mesh: %s placed is %s, (partly) outside the domain %s", at.file, at.line, name, box, dbox))
		case hi.X-lo.X > dom.SizeX || hi.Y-lo.Y > dom.SizeY || hi.Z-lo.Z > dom.Height:
			s.warn(fmt.Sprintf("%s:%d: vp.mesh: %s is %s, larger than the domain %s (is scale right for the file's units?)", at.file, at.line, name, box, dbox))
		}
	}
	solid, err := m.Solid()
	if err != nil {
		resume()
		c.fail("%s", trimTerrain(err))
	}
	if n := terrain.MeshOpenEdges(solid); n > 0 {
		at := c.where()
		s.warn(fmt.Sprintf("%s:%d: vp.mesh: %s is not closed (%d open edges): its inside is where its generalized winding number is at least 1/2", at.file, at.line, name, n))
	}
	return s.pushSolid(L, solid, "mesh "+name)
}

func trimTerrain(err error) string { return strings.TrimPrefix(err.Error(), "terrain: ") }

// solidList reads the solids of vp.union and vp.intersection: arguments, or one table
// of them.
func (c call) solidList() []terrain.Solid {
	var vals []lua.LValue
	if t, ok := c.L.Get(1).(*lua.LTable); ok && c.L.GetTop() == 1 {
		n := t.Len()
		for i := 1; i <= n; i++ {
			vals = append(vals, t.RawGetInt(i))
		}
	} else {
		for i := 1; i <= c.L.GetTop(); i++ {
			vals = append(vals, c.L.Get(i))
		}
	}
	if len(vals) == 0 {
		c.fail("no solids given: want %s(a, b, ...)", c.fn)
	}
	out := make([]terrain.Solid, len(vals))
	for i, v := range vals {
		ud, ok := v.(*lua.LUserData)
		var sv *solidVal
		if ok {
			sv, ok = ud.Value.(*solidVal)
		}
		if !ok {
			c.fail("argument %d is %s, want a solid", i+1, typeName(v))
		}
		out[i] = sv.solid
	}
	return out
}

func (s *Scenario) vpUnion(L *lua.LState) int {
	c := call{s, L, "vp.union"}
	u, err := terrain.Union(c.solidList()...)
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, u, "union")
}

func (s *Scenario) vpIntersection(L *lua.LState) int {
	c := call{s, L, "vp.intersection"}
	u, err := terrain.Intersection(c.solidList()...)
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, u, "intersection")
}

func (s *Scenario) vpDifference(L *lua.LState) int {
	c := call{s, L, "vp.difference"}
	if L.GetTop() != 2 {
		c.fail("takes two solids (a minus b), got %d arguments", L.GetTop())
	}
	a := c.solidArg(1, "argument 1")
	b := c.solidArg(2, "argument 2")
	d, err := terrain.Difference(a.solid, b.solid)
	if err != nil {
		c.raise(err)
	}
	return s.pushSolid(L, d, "difference")
}

// solidFuncs are the vp functions that make solids.
func (s *Scenario) solidFuncs() []decl {
	return []decl{
		{"box", s.vpBox, "vp.box{min, max} -> solid: an axis-aligned box"},
		{"sphere", s.vpSphere, "vp.sphere{center, radius} -> solid"},
		{"cylinder", s.vpCylinder, "vp.cylinder{base, axis, radius, length} -> solid: a capped cylinder"},
		{"plane", s.vpPlane, "vp.plane{point, normal} -> solid: the half-space below the plane"},
		{"heightfield", s.vpHeightfield, "vp.heightfield{fn} -> solid: everything below z = fn(x, y)"},
		{"mesh", s.vpMesh, "vp.mesh(path, {scale, up, place, at}) -> solid: an OBJ or STL model"},
		{"union", s.vpUnion, "vp.union(a, b, ...) -> solid: inside any of them"},
		{"intersection", s.vpIntersection, "vp.intersection(a, b, ...) -> solid: inside all of them"},
		{"difference", s.vpDifference, "vp.difference(a, b) -> solid: inside a and not inside b"},
	}
}

// solidMethods are solid:translate, solid:rotate and solid:scale; each returns a new
// solid.
func (s *Scenario) solidMethods() []decl {
	return []decl{
		{"translate", func(L *lua.LState) int {
			c := call{s, L, "solid:translate"}
			sv := c.solidArg(1, "self (call it as solid:translate{dx, dy, dz})")
			var d []float64
			if _, ok := L.Get(2).(*lua.LTable); ok {
				d = c.vecValue("offset", L.Get(2), 3)
			} else if L.GetTop() == 4 {
				d = []float64{c.number("dx", L.Get(2)), c.number("dy", L.Get(3)), c.number("dz", L.Get(4))}
			} else {
				c.fail("want an offset {dx, dy, dz}, got %s", typeName(L.Get(2)))
			}
			t, err := terrain.Translate(sv.solid, vec3(d))
			if err != nil {
				c.raise(err)
			}
			return s.pushSolid(L, t, sv.kind)
		}, "solid:translate{dx, dy, dz} -> solid: moved by the offset"},
		{"rotate", func(L *lua.LState) int {
			c := call{s, L, "solid:rotate"}
			sv := c.solidArg(1, "self (call it as solid:rotate{axis = {ax, ay, az}, angle = radians})")
			t := c.table(2, "{axis = {ax, ay, az}, angle = radians}")
			c.keys(t, "axis", "angle")
			axis := c.vec(t, "axis", 3)
			if axis[0] == 0 && axis[1] == 0 && axis[2] == 0 {
				c.fail("axis is {0, 0, 0}: it must be a non-zero direction")
			}
			angle := c.num(t, "angle", numField{required: true, want: "a number of radians"})
			r, err := terrain.Rotate(sv.solid, vec3(axis), angle)
			if err != nil {
				c.raise(err)
			}
			return s.pushSolid(L, r, sv.kind)
		}, "solid:rotate{axis, angle} -> solid: turned about the axis through the origin, radians"},
		{"scale", func(L *lua.LState) int {
			c := call{s, L, "solid:scale"}
			sv := c.solidArg(1, "self (call it as solid:scale(s))")
			if L.GetTop() != 2 {
				c.fail("takes one scale factor s (call it as solid:scale(s)), got %d arguments", L.GetTop()-1)
			}
			k := c.number("s", L.Get(2))
			if k <= 0 {
				c.fail("s is %s: it must be > 0 (a uniform scale factor)", fmtNum(k))
			}
			r, err := terrain.Scale(sv.solid, k)
			if err != nil {
				c.raise(err)
			}
			return s.pushSolid(L, r, sv.kind)
		}, "solid:scale(s) -> solid: scaled about the origin"},
	}
}
