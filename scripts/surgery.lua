-- surgery.lua: bleeding onto a vertebra during spine surgery, with suction. The paper's
-- surgery scene (Fig. 1, Table 1 row "Surgery"): 200 x 200 x 5 cells, dx = 0.5 mm,
-- dt = 3 ms, nu = 4e-6 (blood). With surface tension (blood: 0.056 N/m), blood that wets
-- the tissue (advancing angle 20 degrees, receding 0: --param contact_angle=...) pools
-- with an edge instead of thinning to a film of microns; --param capillarity=off gives
-- the paper's method.
--
-- The paper's vertebra is a scanned model; this one is procedural, built from the solids
-- of the vp module, with the spine running along y (the patient lies prone, the surgeon
-- looks down on the back of the vertebra):
--   wound      a block 20 mm high with a spherical hollow, its floor 3 mm up at the lowest
--   body       a cylinder 20 mm across and 30 mm long lying along y, 1 mm off the floor
--   arch       a ring (a difference of two cylinders) on top of the body: its hole, the
--              vertebral foramen, is a tunnel 13 mm across running along y
--   spinous    a box tilted 25 degrees towards the tail, rising from the top of the arch
--   transverse two processes reaching 30 mm out on each side, overhanging the floor
--   articular  two short pegs on the arch
-- Blood can seep under the body. Cells hold up to four columns (under the body, in the
-- foramen, between the arch and the spinous process, above).
--
-- The story (simulated seconds):
--   0.2 - 1.4 s  a vessel next to the arch bleeds 2 ml/s (2.4 ml in all); the blood runs
--                off the arch and the processes, under the overhangs and into the wound;
--                the gap under the body floods (a flooded passage: extended pipes)
--   1.0 s        the suction tip goes in at the bottom of the wound (a sink, 1 ml/s)
--   1.5 s        the blood thickens (nu 4e-6 -> 1e-5 m^2/s, changed mid-run)
-- A line is printed every 0.5 s. By t = 2 s the suction has taken 0.97 ml, 1 ml lies
-- under the overhangs and nearly all the rest on the wound's floor.
--
-- Where the blood runs off the arch's and processes' edges faster than a film clings to
-- them, it falls as drops (falling = "particles", the default; docs/solver.md, "Liquid
-- that falls"); --param falling=off gives the paper's method.
--
--   vpbench scripts/surgery.lua
--   vpbench run --headless --until 3 scripts/surgery.lua

local dx = vp.param("dx", 0.0005)

local sim = vp.sim{
  capillarity = vp.param("capillarity", "on"),
  -- Blood wets living tissue: a small advancing angle, and a film that never recedes.
  contact_angle = {math.rad(vp.param("contact_angle", 20)), 0},
  size = {0.1, 0.1}, height = 0.06, dx = dx, dt = 0.003, layers = 5,
  viscosity = 4e-6, damping = 0.5, falling = vp.param("falling", "particles"),
}

local cx, cy = 0.05, 0.05

-- The wound: the floor is the bottom of a sphere 87 mm in radius, lowest (3 mm) at the
-- centre, rising to the block's top (20 mm) 52 mm away.
local wound = vp.difference(
  vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.02} },
  vp.sphere{ center = {cx, cy, 0.09}, radius = 0.087 })

-- The vertebral body: 20 mm across, 30 mm long, lying along y with its underside 1 mm
-- above the floor of the wound, so blood can seep under it.
local body = vp.cylinder{ base = {cx, cy - 0.015, 0.014}, axis = {0, 1, 0}, radius = 0.010, length = 0.030 }

-- The arch: a ring 22 mm across with a 13 mm hole, 20 mm long, centred 4 mm above the top
-- of the body. The hole (the foramen) is closed below by the body: a tunnel along y.
local arch = vp.difference(
  vp.cylinder{ base = {cx, cy - 0.010, 0.028}, axis = {0, 1, 0}, radius = 0.011, length = 0.020 },
  vp.cylinder{ base = {cx, cy - 0.011, 0.028}, axis = {0, 1, 0}, radius = 0.0065, length = 0.022 })

-- The spinous process: a 5 x 14 x 16 mm box, built at the origin, tilted 25 degrees about
-- x (its top towards -y, the tail), then moved onto the top of the arch.
local spinous = vp.box{ min = {-0.0025, -0.007, -0.008}, max = {0.0025, 0.007, 0.008} }
  :rotate{ axis = {1, 0, 0}, angle = math.rad(25) }
  :translate{cx, cy - 0.002, 0.045}

-- The transverse processes: bars 10 mm wide and 4 mm thick reaching from inside the
-- arch's wall (8 mm from its axis, so the foramen stays open) to 30 mm out on each side,
-- tipped up 8 degrees. Each is built along +x at the origin, tipped (about y), turned to
-- its side (about z), then moved into place.
local function process(side)
  return vp.box{ min = {0.008, -0.005, -0.002}, max = {0.030, 0.005, 0.002} }
    :rotate{ axis = {0, 1, 0}, angle = -math.rad(8) }
    :rotate{ axis = {0, 0, 1}, angle = side > 0 and 0 or math.pi }
    :translate{cx, cy + 0.002, 0.028}
end

-- The superior articular processes: two pegs on the arch.
local function peg(x)
  return vp.cylinder{ base = {x, cy + 0.006, 0.032}, axis = {0, 0, 1}, radius = 0.0025, length = 0.010 }
end

local vertebra = vp.union(body, arch, spinous, process(1), process(-1), peg(cx - 0.008), peg(cx + 0.008))
sim:terrain(vp.union(wound, vertebra))
sim:set{ liquid = "blood" } -- the preview's colour

-- The bleeding vessel, right of the arch, just above it.
sim:source{ at = {cx + 0.008, cy - 0.004, 0.050}, radius = 0.002, rate = 2e-6, start = 0.2, stop = 1.4 }

sim:at(1.0, function()
  -- The suction tip, at the bottom of the wound beside the body, where the blood pools.
  sim:sink{ at = {cx + 0.013, cy - 0.008, 0.006}, radius = 0.003, rate = 1e-6 }
  print("t = 1.0 s: suction on")
end)

sim:at(1.5, function()
  sim:set{ viscosity = 1e-5 }
  print("t = 1.5 s: the blood thickens, nu = 1e-5 m^2/s")
end)

sim:every(0.5, function()
  local st = sim:stats()
  print(string.format("t = %.1f s: blood %.2f ml (bled %.2f, sucked %.2f), %d wet columns",
    sim:time(), st.volume * 1e6, st.added * 1e6, st.removed * 1e6, st.wet))
end)
