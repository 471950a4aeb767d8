package script

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// regionChannel is a 60 x 10 mm channel of 2 mm cells, filled to 8 mm and running at
// 0.1 m/s along +x, capillarity off.
const regionChannel = `local sim = vp.sim{ size = {0.06, 0.01}, height = 0.03, dx = 0.002, workers = 1, capillarity = "off" }
sim:fill{ at = {0.001, 0.001, 0.001}, level = 0.008, velocity = {0.1, 0} }
`

// regionBooks places a region over the middle of regionChannel (r) and checks every 0.02
// s, and wherever the script calls books(when), that the volume is the books to 1e-9.
const regionBooks = `local r = sim:region{ min = {0.021, 0, 0}, max = {0.039, 0.01, 0.02}, dx = 0.001 }
local function books(when)
  local st = sim:stats()
  local books = st.added - st.removed - st.outflow
  assert(math.abs(st.volume - books) < 1e-9 * books, string.format("%s: volume %.17g, books %.17g", when, st.volume, books))
end
sim:every(0.02, function() books("every") end)
`

// TestRegionScript: a script places a region over the middle of the running channel
// (with a source upstream and a sink downstream), reads its figures, the volume and the
// stats while it runs, removes it, and goes on: sim:volume() and sim:stats().volume are
// the books (added - removed - outflow) to 1e-9 throughout, and the same; the region's
// figures say it took liquid in and let it out; the depth under it is the region's
// liquid (the channel sloshes: deeper there than beyond); the handle of the removed
// region says so; a second region is placed after it.
func TestRegionScript(t *testing.T) {
	log := &printLog{}
	s := mustLoad(t, "region.lua", regionChannel+`
sim:source{ at = {0.005, 0.005, 0.001}, radius = 0.002, rate = 2e-7 }
sim:sink{ at = {0.055, 0.005, 0.001}, radius = 0.002, rate = 1e-7 }
local r = sim:region{ min = {0.021, 0, 0}, max = {0.039, 0.01, 0.02}, dx = 0.001 }
local i = r:info()
assert(i.id == 1 and i.nx == 20 and i.ny == 10 and i.nz == 20 and i.cells == 4000 and i.refine == 2 and i.dx == 0.001, "info")
assert(i.min[1] == 0.02 and i.min[3] == 0 and math.abs(i.max[1] - 0.04) < 1e-12 and i.max[3] == 0.02 and i.particles > 0, "box")
assert(sim:stats().region.id == 1 and tostring(r) == "region 1", "stats")
local worst = 0
local function books(when)
  local st = sim:stats()
  local books = st.added - st.removed - st.outflow
  local e = math.abs(st.volume - books) / books
  assert(sim:volume() == st.volume, when .. ": sim:volume() " .. sim:volume() .. ", stats " .. st.volume)
  assert(e < 1e-9, string.format("%s: volume %.17g, books %.17g", when, st.volume, books))
  if e > worst then worst = e end
end
books("placed")
sim:every(0.05, function() books("every") end)
function main()
  vp.wait(0.5)
  local i = r:info()
  print(string.format("region: %d particles, %d cells, in %.4g ml, out %.4g ml, %d substeps, %d iterations, %.3g ms a step over %d steps",
    i.particles, i.cells, i.inflow * 1e6, i.outflow * 1e6, i.substeps, i.iterations, i.step_ms, i.steps))
  assert(i.inflow > 1e-7 and i.outflow > 1e-7 and i.iterations > 0 and i.step_ms > 0, "ran")
  print(string.format("depth under the region %.3f mm, beyond %.3f mm", sim:depth(0.03, 0.005) * 1e3, sim:depth(0.05, 0.005) * 1e3))
  local v = sim:volume()
  r:remove()
  r:remove() -- again: nothing
  assert(sim:stats().region == nil, "removed")
  assert(math.abs(sim:volume() - v) <= 1e-12 * v, "the liquid given back")
  local ok, err = pcall(r.info, r)
  print(err)
  books("removed")
  vp.wait(0.1)
  books("after")
  local r2 = sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02} }
  assert(r2:info().id == 2 and r2:info().refine == 1, "the second")
  vp.wait(0.1)
  books("the second")
  print(string.format("worst %.3g", worst))
end
`, opts(log))
	if err := runToEnd(t, s, 10000); err != nil {
		t.Fatal(err)
	}
	out := log.text()
	t.Log(out)
	if !strings.Contains(out, "region.lua:34: region:info: region 1 was removed") {
		t.Errorf("the removed region's handle: output lacks its error")
	}
	sc := s.Scene()
	added, removed, _ := sc.Accounting()
	if v, b := sc.Volume(), added-removed-sc.Stats().Outflow; math.Abs(v-b) > 1e-9*b {
		t.Errorf("volume %.17g, books %.17g", v, b)
	}
}

// TestRegionCapillarity: a region in columns with surface tension (vp.sim's default,
// capillarity on): placed over the running channel, surface tension turned off and on
// again while it lives (sim:set), the volume the books to 1e-9 throughout; the liquid
// runs through the region as without surface tension (it takes liquid in and lets it
// out).
func TestRegionCapillarity(t *testing.T) {
	log := &printLog{}
	src := strings.Replace(regionChannel, `capillarity = "off"`, `capillarity = "on"`, 1) + regionBooks + `
function main()
  assert(sim:info().capillarity == "on", "capillarity " .. tostring(sim:info().capillarity))
  vp.wait(0.2)
  sim:set{ capillarity = "off" }
  vp.wait(0.1)
  sim:set{ capillarity = "on" }
  vp.wait(0.2)
  local i = r:info()
  print(string.format("in %.4g ml, out %.4g ml", i.inflow * 1e6, i.outflow * 1e6))
  assert(i.inflow > 1e-7 and i.outflow > 1e-7, "the channel ran through the region")
  books("end")
end
`
	s := mustLoad(t, "region.lua", src, opts(log))
	if err := runToEnd(t, s, 10000); err != nil {
		t.Fatal(err)
	}
	t.Log(log.text())
}

// TestRegionBadInput: every misuse of sim:region and what a region in place refuses is
// an error at the line of the call, naming the function and what to do.
func TestRegionBadInput(t *testing.T) {
	const place = `local r = sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02} }
`
	for _, k := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"outside", regionChannel + `sim:region{ min = {0.05, 0, 0}, max = {0.07, 0.01, 0.02} }`, 3, "sim:region: the box [0.05, 0.07] x [0, 0.01] x [0, 0.02] m reaches out of the domain [0, 0.06] x [0, 0.01] x [0, 0.03] m along x"},
		{"zero size", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.02, 0.01, 0.02} }`, 3, "sim:region: min[1] = 0.02 is not below max[1] = 0.02: the box would be empty along x"},
		{"flat", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0} }`, 3, "the box would be empty along z"},
		{"a second", regionChannel + place + `sim:region{ min = {0.002, 0, 0}, max = {0.01, 0.01, 0.02} }`, 4, "sim:region: a region is in place already (one at a time, for now): remove it first (region:remove())"},
		{"swe", `local sim = vp.sim{ size = {0.06, 0.01}, height = 0.03, dx = 0.002, capillarity = "off", method = "swe" }
sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02} }`, 2, `sim:region: method is "swe": a region couples to the pipes only`},
		{"dx not a divisor", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02}, dx = 0.0007 }`, 3, "sim:region: dx = 0.0007 is not the columns' dx (0.002 m) over a whole number"},
		{"dx too fine", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02}, dx = 0.00005 }`, 3, "sim:region: dx = 5e-05 is the columns' dx (0.002 m) over 40: at most over 32"},
		{"dx and refine", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02}, dx = 0.001, refine = 2 }`, 3, "sim:region: dx and refine say one thing two ways"},
		{"refine", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02}, refine = 0 }`, 3, "sim:region: refine is 0: it must be between 1 and 32"},
		{"too many cells", regionChannel + `sim:region{ min = {0, 0, 0}, max = {0.06, 0.01, 0.03}, refine = 16 }`, 3, "sim:region: the box is 480 x 80 x 240 = 9216000 region cells (refine 16): at most 1048576"},
		{"unknown field", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02}, size = 1 }`, 3, `sim:region: unknown field "size"`},
		{"min of two", regionChannel + `sim:region{ min = {0.02, 0}, max = {0.04, 0.01, 0.02} }`, 3, "sim:region: min has 2 values, want 3 numbers {x, y, z}"},
		{"not a table", regionChannel + `sim:region(1)`, 3, "sim:region: want a table"},
		{"above the floor", regionChannel + `sim:region{ min = {0.02, 0, 0.001}, max = {0.04, 0.01, 0.02} }`, 3, "sim:region: min[3] = 0.001 is above the floor under the box (0 m at {0.021, 0.001})"},
		{"below the liquid", regionChannel + `sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.005} }`, 3, "sim:region: the liquid under the box stands at 0.008 m (at {0.021, 0.001}), above the box's top (0.006 m): raise max[3]"},
		{"a body", regionChannel + `sim:body{ solid = vp.box{ min = {0.004, 0.002, 0.006}, max = {0.008, 0.006, 0.01} }, density = 500 }
` + place, 4, "sim:region: the scene has floating bodies"},
		{"a body after", regionChannel + place + `sim:body{ solid = vp.box{ min = {0.004, 0.002, 0.006}, max = {0.008, 0.006, 0.01} }, density = 500 }`, 4, "sim:body: a region is in place: floating bodies do not enter a region yet"},
		{"terrain", regionChannel + place + `sim:terrain(vp.box{ min = {0.042, -0.001, 0.02}, max = {0.061, 0.011, 0.031} })`, 4, "sim:terrain: region: in the new terrain cell (21, 0) lies under a solid (its underside at 0.02 m: an overhang or a roof, where passages may form) within 2 cells of the box: a region stands 3 cells off overhangs and roofs, for now"},
		{"near a roof", `local sim = vp.sim{ size = {0.06, 0.01}, height = 0.03, dx = 0.002, workers = 1, capillarity = "off" }
sim:terrain(vp.box{ min = {0.042, -0.001, 0.02}, max = {0.061, 0.011, 0.031} })
sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02} }`, 3, "sim:region: the cell at {0.043, 0.001} lies under a solid (its underside at 0.02 m: an overhang or a roof) within 2 cells of the box: a region stands 3 cells off overhangs and roofs, for now (move the box, or make it smaller)"},
		{"fill", regionChannel + place + `sim:fill{ at = {0.001, 0.001, 0.001}, level = 0.01 }`, 4, "sim:fill: a fill cannot pour into the columns (the region owns those under it) while a region is in place"},
		{"source", regionChannel + place + `sim:source{ at = {0.03, 0.005, 0.001}, rate = 1e-8 }`, 4, "sim:source: at = {0.03, 0.005, 0.001} pours into the columns under the region"},
		{"swe later", regionChannel + place + `sim:set{ method = "swe" }`, 4, `sim:set: method = "swe": a region is in place, and it couples to the pipes only`},
		{"dot call", regionChannel + place + `r.info()`, 4, "region:info: call it with a colon on a region (r:info...)"},
	} {
		t.Run(k.name, func(t *testing.T) {
			s, err := LoadSource("region.lua", []byte(k.src), opts(nil))
			if err == nil {
				err = runToEnd(t, s, 1000)
				s.Close()
			}
			wantError(t, err, "region.lua", k.line, k.want)
		})
	}
}

// TestRegionMeters: a steady flow along a channel (2 ml/s poured in at one end, out
// through the open other end) through a region: a flow meter across the region (the
// pipes between its held columns, whose fluxes the region writes from its velocities)
// and one across its downstream side (a border pipe) read what the meters before and
// after it read, within 5%, over the third second. Measured: before 1.986, inside
// 1.949, at its side 2.013, after 1.982 ml/s.
func TestRegionMeters(t *testing.T) {
	log := &printLog{}
	s := mustLoad(t, "meters.lua", `local sim = vp.sim{ size = {0.08, 0.01}, height = 0.03, dx = 0.002, workers = 1, capillarity = "off", sides = { plus_x = "open" } }
sim:fill{ at = {0.001, 0.001, 0.001}, level = 0.006 }
sim:source{ at = {0.003, 0.005, 0.001}, radius = 0.002, rate = 2e-6 }
local m = { sim:flow{ from = {0.015, 0}, to = {0.015, 0.01} }, sim:flow{ from = {0.031, 0}, to = {0.031, 0.01} },
  sim:flow{ from = {0.0405, 0}, to = {0.0405, 0.01} }, sim:flow{ from = {0.055, 0}, to = {0.055, 0.01} } }
sim:region{ min = {0.02, 0, 0}, max = {0.04, 0.01, 0.02}, refine = 2 }
local t0 = {}
sim:at(2, function() for k, x in ipairs(m) do t0[k] = x:total() end end)
function main()
  vp.wait(3)
  local names = { "before", "inside", "side", "after" }
  for k, x in ipairs(m) do
    local q = x:total() - t0[k]
    print(string.format("%s %.4g ml/s", names[k], q * 1e6))
    assert(math.abs(q - 2e-6) < 0.05 * 2e-6, names[k] .. ": " .. q)
  end
end
`, opts(log))
	err := runToEnd(t, s, 10000)
	t.Log(log.text())
	if err != nil {
		t.Fatal(err)
	}
}

// TestRegionTerrainScript: sim:terrain while a region lives changes the terrain under
// and around it (a step 2 mm high across the channel, half under the box, rising
// mid-run): the books stay exact (to 1e-9) before, through and after the change, no
// liquid is rejected, and the region's liquid lies on the new floor.
func TestRegionTerrainScript(t *testing.T) {
	log := &printLog{}
	s := mustLoad(t, "region_terrain.lua", regionChannel+regionBooks+`
function main()
  vp.wait(0.2)
  sim:terrain(vp.box{ min = {0.03, -0.001, -0.001}, max = {0.045, 0.011, 0.002} })
  books("changed")
  assert(sim:stats().rejected == 0, "rejected " .. sim:stats().rejected)
  vp.wait(0.3)
  books("after")
  print(string.format("depth over the step %.3f mm, before it %.3f mm; %d particles", sim:depth(0.035, 0.005) * 1e3, sim:depth(0.025, 0.005) * 1e3, r:info().particles))
end
`, opts(log))
	if err := runToEnd(t, s, 2000); err != nil {
		t.Fatal(err)
	}
	s.Close()
	t.Log(strings.Join(log.lines, "\n"))
	if len(log.lines) == 0 {
		t.Error("main did not finish")
	}
}

// regionCheckpointScript places a region in its set-up and keeps its handle, reads it
// from a sim:every, removes it with the handle at 0.4 s and places another from a
// sim:at at 0.5 s (its handle a callback's local), whose figures sim:stats() gives.
const regionCheckpointScript = regionChannel + `sim:source{ at = {0.005, 0.005, 0.001}, radius = 0.002, rate = 2e-7 }
sim:sink{ at = {0.055, 0.005, 0.001}, radius = 0.002, rate = 1e-7 }
local r = sim:region{ min = {0.021, 0, 0}, max = {0.039, 0.01, 0.02}, dx = 0.001 }
sim:every(0.1, function(t)
  local st = sim:stats()
  local line = string.format("t %.4f volume %.17g", t, sim:volume())
  if st.region then
    line = line .. string.format(" region %d: %d particles, in %.17g, out %.17g, volume %.17g", st.region.id, st.region.particles, st.region.inflow, st.region.outflow, st.region.volume)
  end
  if t < 0.35 then
    local i = r:info()
    line = line .. string.format(" handle: region %d, %d particles", i.id, i.particles)
  end
  print(line)
end)
sim:at(0.4, function() r:remove(); print(string.format("removed: volume %.17g", sim:volume())) end)
sim:at(0.5, function()
  local r2 = sim:region{ min = {0.011, 0, 0}, max = {0.029, 0.01, 0.02}, refine = 1 }
  print("placed region " .. r2:info().id)
end)
`

// TestRegionCheckpoint: the script above checkpointed while its set-up's region is in
// place (0.2 s) and while the one a callback placed is (0.6 s), resumed from a fresh
// load (which places the set-up's region again: the checkpoint's replaces it, or, at
// 0.6 s, takes it out) and run to 0.8 s: the same heights' bits, accounting and stats,
// and the same prints after the checkpoint (the region's figures from sim:stats() and
// from the set-up's handle, which works after the resume: r:info(), r:remove()); the
// region's particles and books the same bits.
func TestRegionCheckpoint(t *testing.T) {
	t.Run("capillarity off", func(t *testing.T) { regionCheckpoint(t, regionCheckpointScript) })
	// With surface tension the columns' capillary head (its last pass and wetted flags)
	// is saved beside the held columns.
	t.Run("capillarity on", func(t *testing.T) {
		regionCheckpoint(t, strings.Replace(regionCheckpointScript, `capillarity = "off"`, `capillarity = "on"`, 1))
	})
}

func regionCheckpoint(t *testing.T, script string) {
	for _, at := range []float64{0.2, 0.6} {
		file := filepath.Join(t.TempDir(), "region.vpc")
		log := &printLog{}
		a := mustLoad(t, "region.lua", script, opts(log))
		defer a.Close()
		dt := a.Scene().Settings().Solver.Dt
		if dt == 0 {
			dt = a.Scene().Snapshot().Dt
		}
		n := int64(math.Ceil(at / dt))
		end := int64(math.Ceil(0.8 / dt))
		advanceTo(t, a, n)
		if err := a.SaveCheckpoint(file); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(file)
		mark := len(log.snapshot())
		advanceTo(t, a, end)
		want := log.snapshot()[mark:]

		log2 := &printLog{}
		b := mustLoad(t, "region.lua", script, opts(log2))
		defer b.Close()
		top := len(log2.snapshot())
		if err := b.ResumeFile(file); err != nil {
			t.Fatal(err)
		}
		advanceTo(t, b, end)
		got := log2.snapshot()[top:]
		sameState(t, a, b)
		if strings.Join(printsOnly(got), "\n") != strings.Join(printsOnly(want), "\n") {
			t.Errorf("checkpoint at %g s: prints after it differ:\nresumed:\n%s\nuninterrupted:\n%s", at, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		ia, oka := a.Scene().RegionInfo()
		ib, okb := b.Scene().RegionInfo()
		if !oka || !okb || ia.ID != 2 || ib.ID != 2 || ia.Particles != ib.Particles || math.Float64bits(ia.Volume) != math.Float64bits(ib.Volume) ||
			math.Float64bits(ia.In) != math.Float64bits(ib.In) || math.Float64bits(ia.Out) != math.Float64bits(ib.Out) {
			t.Errorf("checkpoint at %g s: the region at the end %+v, resumed %+v", at, ia, ib)
		}
		t.Logf("checkpoint at %g s: %d bytes; after it:\n%s", at, fi.Size(), strings.Join(want, "\n"))
	}
}

// TestRegionMove: region:move moves and resizes the region in place between steps: the
// handle keeps working with the same id, the box is the new one, the volume is exact
// through each move, and the solver steps on with it. A box sim:region would refuse is
// refused with sim:region's message, and the region stays as it was.
func TestRegionMove(t *testing.T) {
	log := &printLog{}
	s := mustLoad(t, "move.lua", regionChannel+`
local r = sim:region{ min = {0.021, 0, 0}, max = {0.039, 0.01, 0.02}, dx = 0.001 }
local function close(a, b) return math.abs(a - b) <= 1e-12 * math.max(1, math.abs(b)) end
function main()
  vp.wait(0.1)
  local v = sim:volume()
  r:move{ min = {0.03, 0, 0}, max = {0.05, 0.01, 0.02} }
  local i = r:info()
  assert(i.id == 1 and close(i.min[1], 0.03) and close(i.max[1], 0.05) and i.refine == 2 and i.particles > 0, "moved")
  assert(sim:stats().region.id == 1, "stats")
  assert(math.abs(sim:volume() - v) <= 1e-12 * v, string.format("volume %.17g after the move, %.17g before", sim:volume(), v))
  vp.wait(0.1)
  v = sim:volume()
  r:move{ refine = 1 } -- the same box, coarser cells
  i = r:info()
  assert(i.refine == 1 and i.nx == 10 and close(i.min[1], 0.03), "resized")
  assert(math.abs(sim:volume() - v) <= 1e-12 * v, "volume after the resize")
  local before = r:info()
  local ok, err = pcall(r.move, r, { min = {0.05, 0, 0}, max = {0.07, 0.01, 0.02} })
  print(err)
  assert(not ok, "a box out of the domain")
  local after = r:info()
  assert(after.id == 1 and after.min[1] == before.min[1] and after.particles == before.particles, "the region stays")
  ok, err = pcall(r.move, r, { dx = 0.0007 })
  print(err)
  assert(not ok, "a dx that is no whole part of the columns'")
  -- A box over a source: refused only once the old box has given its liquid back (the
  -- region's own check): the old box is placed again, with its id.
  sim:source{ at = {0.015, 0.005, 0.001}, radius = 0.002, rate = 1e-7 }
  v = sim:volume()
  ok, err = pcall(r.move, r, { min = {0.01, 0, 0}, max = {0.02, 0.01, 0.02} })
  print(err)
  assert(not ok, "a box over a source")
  after = r:info()
  assert(after.id == 1 and close(after.min[1], 0.03) and close(after.max[1], 0.05) and after.refine == 1 and after.particles > 0, "placed back")
  assert(math.abs(sim:volume() - v) <= 1e-12 * v, "volume after the failed move")
  vp.wait(0.1)
  r:remove()
  ok, err = pcall(r.move, r, { refine = 2 })
  print(err)
  assert(not ok, "moving a removed region")
end
`, opts(log))
	if err := runToEnd(t, s, 10000); err != nil {
		t.Fatal(err)
	}
	out := log.text()
	t.Log(out)
	for _, want := range []string{
		"region:move: the box [0.05, 0.07] x [0, 0.01] x [0, 0.02] m reaches out of the domain",
		"region:move: dx = 0.0007 is not the columns' dx",
		"region:move: region 1 was removed",
		"no source or sink may pour into a region's columns",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	sc := s.Scene()
	added, removed, _ := sc.Accounting()
	if v, b := sc.Volume(), added-removed-sc.Stats().Outflow; math.Abs(v-b) > 1e-9*b {
		t.Errorf("volume %.17g, books %.17g", v, b)
	}
}
