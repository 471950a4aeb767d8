-- cross_passage.lua: a cross-shaped passage under a block (the paper's Fig. 23, left, and
-- Sec. 7): the passage that the axis-aligned extended pipes of Sec. 3.3 cannot handle and
-- the unified extended pipe can. 100 x 100 x 3 cells, dx = 1 mm, nu = 4e-6.
--
-- A block 20 mm high covers the domain except four wells, one in the middle of each side
-- (20 x 30 mm each). Under the block a cross-shaped tunnel, 6 mm wide and 5 mm high,
-- joins the four wells at floor level: the block has four openings, one into each well.
-- Wells and tunnel start flooded to 6 mm, above the tunnel's roof, so the whole cross is
-- one flooded passage from the first step. A source then pours 3 ml/s into the west well
-- for 3 s.
--
-- With extended_pipes = "unified" (the default) the passage is one pipe joining its four
-- openings: the west well's extra head drives liquid into the east, north and south wells
-- alike. With "axis" only straight runs of flooded columns are joined, so the west well
-- feeds the east well (in line with it) and the north and south wells get nothing: the
-- flow would have to turn. With "off" nothing flows at all. The script prints how much
-- each well gained. Measured at t = 3 s (9 ml poured): unified, west +2.45 ml and east,
-- north and south +2.19 ml each; axis, west +4.84, east +4.17, north and south 0.00.
--
--   vpbench scripts/cross_passage.lua
--   vpbench run --headless --until 4 scripts/cross_passage.lua --param extended_pipes=axis

local mode = vp.param("extended_pipes", "unified")
local rate = vp.param("rate", 3e-6) -- m^3/s

local sim = vp.sim{
  capillarity = vp.param("capillarity", "off"), -- the paper's method, which this scene reproduces
  size = {0.1, 0.1}, height = 0.03, dx = 0.001, dt = "auto", layers = 3, viscosity = 4e-6,
  extended_pipes = mode,
}

local c, roof, top, w = 0.05, 0.005, 0.020, 0.003
local wells = {
  west  = { min = {0.005, 0.035}, max = {0.025, 0.065} },
  east  = { min = {0.075, 0.035}, max = {0.095, 0.065} },
  south = { min = {0.035, 0.005}, max = {0.065, 0.025} },
  north = { min = {0.035, 0.075}, max = {0.065, 0.095} },
}
local block = vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, top} }
for _, name in ipairs{"west", "east", "south", "north"} do
  local r = wells[name]
  block = vp.difference(block, vp.box{ min = {r.min[1], r.min[2], -0.001}, max = {r.max[1], r.max[2], top + 0.001} })
end
local cross = vp.union(
  vp.box{ min = {0.024, c - w, -0.001}, max = {0.076, c + w, roof} }, -- west-east arm
  vp.box{ min = {c - w, 0.024, -0.001}, max = {c + w, 0.076, roof} }) -- south-north arm
sim:terrain(vp.difference(block, cross))

sim:fill{ at = {0.015, 0.05, 0.001}, level = 0.006 }
sim:source{ at = {0.015, 0.05, 0.025}, radius = 0.005, rate = rate, start = 0, stop = 3 }

-- The liquid volume in a well, ml.
local function well_volume(r)
  local v = 0
  for x = r.min[1] + 0.0005, r.max[1], 0.001 do
    for y = r.min[2] + 0.0005, r.max[2], 0.001 do
      v = v + sim:depth(x, y) * 1e-6
    end
  end
  return v * 1e6
end

-- What each well held after the fill: 20 x 30 mm, 6 mm deep.
local start = {}
for name, r in pairs(wells) do
  start[name] = (r.max[1] - r.min[1]) * (r.max[2] - r.min[2]) * 0.006 * 1e6
end

sim:every(1.0, function()
  local g = {}
  for _, name in ipairs{"west", "east", "north", "south"} do
    g[#g + 1] = string.format("%s %+.2f", name, well_volume(wells[name]) - start[name])
  end
  print(string.format("t = %.1f s (%s): ml gained: %s; %d extended pipes",
    sim:time(), mode, table.concat(g, ", "), sim:stats().extended))
end)
