-- soak.lua: ten simulated minutes of the surgery scene kept busy, for the soak benchmark
-- (tools/soak/run.sh; docs/benchmarks.md, "Soak"). Not part of the library: it runs far
-- longer than a scene should. Every 10 s the vessel bleeds 8 ml over 4 s, a jug pours 1 ml
-- from above in 1 s (falling drops), and the suction takes 9 ml from 5 s to 9 s, so the
-- blood neither grows nor runs dry; every 30 s a retractor moves between two places in the
-- wound (a terrain change), pushing the blood that lies where it goes. Surface tension on
-- (vp.sim's default).

-- The wound and the vertebra below are surgery.lua's (a copy: require loads modules from the
-- script's own folder only).
local dx = vp.param("dx", 0.0005)
local sim = vp.sim{
  size = {0.1, 0.1}, height = 0.06, dx = dx, dt = 0.003, layers = 5,
  viscosity = 4e-6, damping = 0.5,
  contact_angle = {math.rad(20), 0},
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

-- The retractor: a 6 x 20 x 14 mm blade standing in the wound, at one of two places.
local function retractor(k)
  local x = k % 2 == 0 and cx - 0.030 or cx - 0.022
  return vp.box{ min = {x, cy - 0.010, 0.004}, max = {x + 0.006, cy + 0.010, 0.026} }
end
local placed = 0
sim:terrain(vp.union(wound, vertebra, retractor(placed)))
sim:set{ liquid = "blood" }

local vessel = sim:source{ at = {cx + 0.008, cy - 0.004, 0.050}, radius = 0.002, rate = 0 }
local suction = sim:sink{ at = {cx + 0.013, cy - 0.008, 0.006}, radius = 0.003, rate = 0 }
local jug = sim:source{ at = {cx - 0.010, cy + 0.020, 0.055}, radius = 0.002, rate = 0, falls = true }

-- The 10 s cycle, from t = 0: rates switched at its marks (sim:at, rescheduled).
local function cycle(t0)
  sim:at(t0, function() vessel:set_rate(2e-6); jug:set_rate(1e-6) end)
  sim:at(t0 + 1, function() jug:set_rate(0) end)
  sim:at(t0 + 4, function() vessel:set_rate(0) end)
  sim:at(t0 + 5, function() suction:set_rate(2.25e-6) end) -- takes what the 10 s poured
  sim:at(t0 + 9, function() suction:set_rate(0) end)
  sim:at(t0 + 10, function() cycle(t0 + 10) end)
end
cycle(0)

sim:every(30, function()
  placed = placed + 1
  sim:terrain(vp.union(wound, vertebra, retractor(placed)))
end)

sim:every(30, function()
  local st = sim:stats()
  print(string.format("soak t = %.0f s: volume %.4f ml (added %.4f, removed %.4f, rejected %.4f), %d particles, %d wet columns, balance %.2e",
    sim:time(), st.volume * 1e6, st.added * 1e6, st.removed * 1e6, st.rejected * 1e6, st.particles, st.wet,
    -- The retractor's moves book the liquid that finds no room as rejected: here the
    -- only rejections (the sources pour into open space), so they leave the volume too.
    (st.volume + st.rejected - (st.added - st.removed - st.outflow)) / math.max(st.added, 1e-12)))
end)
