-- passages.lua: flow through flooded passages. The paper's four passages (Fig. 20, Table 1
-- row "Passages"): 100 x 100 x 3 cells, dx = 1 mm, nu = 4e-6.
--
-- A square basin 60 mm across is walled in by a ring 6 mm thick and 20 mm high. Four
-- tunnels 6 mm wide and 5 mm high pierce the ring at floor level, one in the middle of
-- each side, under the ring's roof. A source pours 10 ml/s at the centre of the basin for
-- 8 s (80 ml). What happens (dt = auto; measured by scripts_multilayer_test.go):
--   0 - 6 s    the liquid runs out through the tunnels onto the ground outside the ring;
--              the basin fills faster than the tunnels empty it and its level passes the
--              tunnels' 5 mm roofs.
--   6 - 8 s    the outside has risen to the roofs and stops there, about 24 ml outside
--              against 55 in the basin: a plain pipe cannot lift liquid above a tunnel's
--              ceiling. The tunnels stay a little below their roofs while the last of
--              the through-flow trickles out (the inflow scaling fills a column only to
--              the room it had before its outflows).
--   ~8.0 s     the tunnels are full (within 1% of a cell of their roofs): four flooded
--              passages. With extended pipes (the default, "unified": each flooded
--              passage is one pipe joining all its openings, the paper's Sec. 7) the
--              basin's surplus rushes out, about 15 ml in 2 s, and the two sides level
--              off after some sloshing. With "off" nothing more flows: the outside stays
--              at 24 ml.
--
-- Compare the three modes:
--   vpbench scripts/passages.lua
--   vpbench run --headless --until 16 scripts/passages.lua
--   vpbench run --headless --until 16 scripts/passages.lua --param extended_pipes=axis
--   vpbench run --headless --until 16 scripts/passages.lua --param extended_pipes=off
--
-- Time step: the paper runs this scene at dt = 9 ms, above the stability limit at
-- dx = 1 mm (7.1 ms); the deep basin then rings (volume and bounds still hold, and vpbench
-- warns). This script uses dt = "auto" (4.3 ms); pass --param dt=0.009 for the paper's.

local dt = vp.param("dt", 0) -- 0 = auto
if dt == 0 then dt = "auto" end
local mode = vp.param("extended_pipes", "unified")
local rate = vp.param("rate", 1e-5)  -- m^3/s
local pour = vp.param("pour", 8)     -- s

local sim = vp.sim{
  capillarity = vp.param("capillarity", "off"), -- the paper's method, which this scene reproduces
  size = {0.1, 0.1}, height = 0.03, dx = 0.001, dt = dt, layers = 3, viscosity = 4e-6,
  extended_pipes = mode,
}

local c = 0.05            -- the centre
local r0, r1 = 0.030, 0.036 -- the ring's inner and outer half-widths
local roof, wall = 0.005, 0.020
local w = 0.003           -- half the tunnels' width
local ring = vp.difference(
  vp.box{ min = {c - r1, c - r1, 0}, max = {c + r1, c + r1, wall} },
  vp.box{ min = {c - r0, c - r0, -0.001}, max = {c + r0, c + r0, wall + 0.001} })
local tunnels = vp.union(
  vp.box{ min = {c - r1 - 0.001, c - w, -0.001}, max = {c + r1 + 0.001, c + w, roof} }, -- along x
  vp.box{ min = {c - w, c - r1 - 0.001, -0.001}, max = {c + w, c + r1 + 0.001, roof} }) -- along y
sim:terrain(vp.difference(ring, tunnels))

sim:source{ at = {c, c, 0.025}, radius = 0.01, rate = rate, start = 0, stop = pour }

-- The volume inside the ring's inner square and outside its outer square, in ml.
local function inside_outside()
  local vin, vout = 0, 0
  for i = 0, 99 do
    for j = 0, 99 do
      local x, y = (i + 0.5) * 0.001, (j + 0.5) * 0.001
      local d = 0
      for _, col in ipairs(sim:columns(x, y)) do d = d + col.h - col.base end
      local ax, ay = math.abs(x - c), math.abs(y - c)
      if ax < r0 and ay < r0 then
        vin = vin + d * 1e-6
      elseif ax > r1 or ay > r1 then
        vout = vout + d * 1e-6
      end
    end
  end
  return vin * 1e6, vout * 1e6
end

sim:every(1.0, function()
  local st = sim:stats()
  local vin, vout = inside_outside()
  print(string.format("t = %4.1f s: basin %5.1f ml (%.1f mm deep), outside %5.1f ml (%.1f mm deep); %d extended pipes",
    sim:time(), vin, sim:depth(c, c) * 1e3, vout, sim:depth(0.005, 0.005) * 1e3, st.extended))
end)
