-- three_layers.lua: liquid falling through three layers of terrain. The paper's "Three
-- layers" scene (Fig. 19, Table 1): 100 x 100 x 3 cells, dx = 1 mm, nu = 4e-6.
--
-- Two trays hang one above the other over the floor, each overhanging the level below it,
-- each with a 3-4 mm lip and a round hole through its bottom:
--   top tray     x 20-70 mm, y 25-75 mm, bottom at z = 24-26 mm, hole at (30, 50) mm
--   middle tray  x 10-90 mm, y 10-90 mm, bottom at z = 10-13 mm, hole at (65, 50) mm
--   floor        the domain's floor, z = 0
-- Most cells hold three columns: under the middle tray, between the trays, above the top
-- tray. A source pours 5 ml/s onto the top tray for 3 s. The liquid drains through the top
-- hole onto the middle tray (the holes are not in line), runs across it to its hole, and
-- falls through to the floor, where it spreads under both trays. Measured: the middle
-- tray gets wet at 0.3 s, the floor at 1.35 s, right under the middle hole; at t = 3 s the
-- top tray holds 4.2 ml, the middle tray 8.5 ml and the floor 2.4 ml.
--
-- Time step: the paper runs this scene at dt = 9 ms, above the scheme's linear stability
-- limit at dx = 1 mm (sqrt(dx / 2g) = 7.1 ms): deep liquid rings (a column can jump by
-- centimetres in a step; volume and bounds still hold, and vpbench prints a warning). This
-- script uses dt = "auto" (0.6 of the limit, 4.3 ms) instead; pass --param dt=0.009 for
-- the paper's value.
--
--   vpbench scripts/three_layers.lua
--   vpbench run --headless --until 5 scripts/three_layers.lua --param dt=0.009

local dt = vp.param("dt", 0) -- 0 = auto
if dt == 0 then dt = "auto" end

local sim = vp.sim{
  capillarity = vp.param("capillarity", "off"), -- the paper's method, which this scene reproduces
  size = {0.1, 0.1}, height = 0.04, dx = 0.001, dt = dt, layers = 3, viscosity = 4e-6,
}

-- A tray: a plate from z0 to z0 + floor thick, with a lip of width lip rising to z0 + high,
-- and a round hole of radius r at (hx, hy) through its bottom.
local function tray(x0, y0, x1, y1, z0, floor, high, lip, hx, hy, r)
  local outer = vp.box{ min = {x0, y0, z0}, max = {x1, y1, z0 + high} }
  local inside = vp.box{ min = {x0 + lip, y0 + lip, z0 + floor}, max = {x1 - lip, y1 - lip, z0 + high + 0.001} }
  local hole = vp.cylinder{ base = {hx, hy, z0 - 0.001}, axis = {0, 0, 1}, radius = r, length = high + 0.002 }
  return vp.difference(vp.difference(outer, inside), hole)
end

local middle = tray(0.010, 0.010, 0.090, 0.090, 0.010, 0.003, 0.007, 0.003, 0.065, 0.050, 0.005)
local top = tray(0.020, 0.025, 0.070, 0.075, 0.024, 0.002, 0.005, 0.002, 0.030, 0.050, 0.004)
sim:terrain(vp.union(middle, top))

sim:source{ at = {0.055, 0.05, 0.035}, radius = 0.004, rate = 5e-6, start = 0, stop = 3 }

-- Where the liquid is: the volume in each layer, by the height of the column's base.
local function layers()
  local v = {0, 0, 0}
  for i = 0, 99 do
    for j = 0, 99 do
      for _, c in ipairs(sim:columns((i + 0.5) * 0.001, (j + 0.5) * 0.001)) do
        local d = c.h - c.base
        if d > 0 then
          local k = c.base < 0.005 and 1 or (c.base < 0.020 and 2 or 3)
          v[k] = v[k] + d * 1e-6
        end
      end
    end
  end
  return v
end

sim:every(1.0, function()
  local v = layers()
  print(string.format("t = %.1f s: top tray %.2f ml, middle tray %.2f ml, floor %.2f ml",
    sim:time(), v[3] * 1e6, v[2] * 1e6, v[1] * 1e6))
end)
