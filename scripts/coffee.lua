-- coffee.lua: coffee spilling from a knocked-over mug onto a table, and off its edge. The
-- paper's motivating example (Sec. 1: "spilled coffee"), in its setting: a 10 x 10 cm
-- domain, dx = 0.5 mm, dt = 3 ms. Coffee is mostly water: nu = 1e-6 m^2/s, surface
-- tension 0.065 N/m (liquid = "coffee").
--
-- The table is smaller than the domain: a top 16 mm above the floor, from x = 4 to 80 mm
-- and y = 6 to 94 mm. The mug lies on its side on it, its mouth towards +x (the table's
-- edge 22 mm ahead): a cylinder 40 mm across and 48 mm long, hollowed by a second cylinder
-- 33 mm across (3.5 mm walls and bottom, open at x = 58 mm), sunk 0.5 mm into the table
-- top, its handle a ring pointing up. The coffee left in the mug runs out: a source inside
-- the mug, near its bottom, releases 20 ml/s for 1 s. It crosses the mug's lip, falls 3 mm
-- to the table and spreads as a puddle that stops about 1.3 mm thick (surface tension:
-- 2 l_c sin(theta/2), docs/method.md), seeping into the wedge under the curved mug; what
-- the puddle cannot hold runs off the table's edge and drips to the floor in drops
-- (Tate's law), where it spreads and leaves the domain through its open sides. Cells hold
-- up to four columns (under the mug, inside it, through the handle, above).
--
--   vpbench scripts/coffee.lua
--   vpbench run --headless --until 4 scripts/coffee.lua --param spill=1e-5
--   vpbench run --headless --until 4 scripts/coffee.lua --param capillarity=off

local dx = vp.param("dx", 0.0005)
local spill = vp.param("spill", 1e-5) -- m^3/s for 1 s

local sim = vp.sim{
  size = {0.1, 0.1}, height = 0.07, dx = dx, dt = 0.003, layers = 4, viscosity = 1e-6,
  falling = vp.param("falling", "particles"),
  capillarity = vp.param("capillarity", "on"), sides = "open",
  contact_angle = {math.rad(30), math.rad(vp.param("receding", 10))}, -- degrees: advancing, receding
  waves = vp.param("waves", "off"), wave_particles = 2000, -- --param waves=on: ripples where the drips land
}

local table_top = 0.016
local floor = vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} }
local tabletop = vp.box{ min = {0.004, 0.006, 0}, max = {0.080, 0.094, table_top} }

local y0 = 0.05                    -- the mug's axis runs along x at y = 50 mm
local R, wall = 0.020, 0.0035      -- outer radius, wall thickness
local z0 = table_top + R - 0.0005  -- the axis' height: the mug sinks 0.5 mm into the table
local x0, len = 0.010, 0.048       -- the bottom's outer face, the mug's length
local mug = vp.difference(
  vp.cylinder{ base = {x0, y0, z0}, axis = {1, 0, 0}, radius = R, length = len },
  vp.cylinder{ base = {x0 + wall, y0, z0}, axis = {1, 0, 0}, radius = R - wall, length = len })
local handle = vp.difference(
  vp.cylinder{ base = {x0 + len / 2, y0 - 0.003, z0 + R + 0.006}, axis = {0, 1, 0}, radius = 0.010, length = 0.006 },
  vp.cylinder{ base = {x0 + len / 2, y0 - 0.004, z0 + R + 0.006}, axis = {0, 1, 0}, radius = 0.007, length = 0.008 })
sim:terrain(vp.union(floor, tabletop, mug, handle))
sim:set{ liquid = "coffee" } -- its colour, surface tension and density

-- What is left in the mug pours out: 20 ml released near the bottom, inside.
sim:source{ at = {x0 + 0.015, y0, z0}, radius = 0.008, rate = spill, start = 0, stop = 1 }

-- Where the coffee is: on the table top (columns whose floor is the table, the mug's
-- outside included) and on the floor, by sim:volume's regions; in the air; gone through
-- the domain's open sides.
local function where()
  return sim:volume{ floor_above = table_top - 0.001 }, sim:volume{ floor_below = table_top - 0.001 }
end

sim:every(0.5, function()
  local top, floor_v = where()
  local st = sim:stats()
  print(string.format("t = %.1f s: spilled %.1f ml: %.1f ml on the table, %.1f ml on the floor, %.2f ml in the air, %.1f ml gone off the floor's edges",
    sim:time(), st.added * 1e6, top * 1e6, floor_v * 1e6, st.airborne * 1e6, st.outflow * 1e6))
end)
