-- demo.lua: the built-in demo. A source pours onto a 10 degree incline with a low rim at
-- its foot; the liquid runs down the slope and pools against the rim.
--
-- `vpbench` with no file runs this script (it is built into the binary). It is the same
-- scene as vpbench's first, hard-coded demo: a 10 x 10 cm domain, 200 x 200 cells of
-- 0.5 mm, one layer, dt chosen automatically (3.03 ms at this dx), nu = 4e-6, and a 5 ml/s
-- source at (0.085, 0.05) for 2 s, so 10 ml in all. It is no figure of the paper; the
-- paper's own incline is viscosity.lua. Surface tension is on (vp.sim's default): the
-- water runs down as a tongue with a front that stops and pools against the rim, about
-- 1.4 mm thick where it rests (--param capillarity=off: a film spreads over the whole
-- slope, the paper's method).
--
--   vpbench                                           the terminal UI
--   vpbench run --headless --until 4 scripts/demo.lua
--   vpbench run --headless --until 4 scripts/demo.lua --param nu=4e-5 --param dx=0.001
--
-- Parameters (--param name=value): nu, dx, cross_section ("paper" or "film"),
-- extended_pipes ("unified", "axis" or "off"), every (seconds between progress lines).

local dx = vp.param("dx", 0.0005)
local nu = vp.param("nu", 4e-6)
local every = vp.param("every", 0.5)

local sim = vp.sim{
  capillarity = vp.param("capillarity", "on"),
  size = {0.1, 0.1}, height = 0.04, dx = dx, dt = "auto", layers = 1,
  viscosity = nu,
  cross_section = vp.param("cross_section", "paper"),
  extended_pipes = vp.param("extended_pipes", "unified"),
}

-- The incline: solid below a plane through (0, 0, 4 mm) rising 10 degrees along x.
local angle = math.rad(10)
local slope = vp.plane{ point = {0, 0, 0.004}, normal = {-math.sin(angle), 0, math.cos(angle)} }
-- The rim at the foot of the slope: 4 mm wide, 12 mm high, across the whole domain.
local rim = vp.box{ min = {0, 0, 0}, max = {0.004, 0.1, 0.012} }
sim:terrain(vp.union(slope, rim))

-- 5 ml/s for 2 s, poured from above near the top of the slope.
sim:source{ at = {0.085, 0.05, 0.035}, radius = 0.004, rate = 5e-6, start = 0, stop = 2 }

print(string.format("%8s %10s %8s", "time s", "volume ml", "wet"))
sim:every(every, function()
  local st = sim:stats()
  print(string.format("%8.3f %10.3f %8d", sim:time(), st.volume * 1e6, st.wet))
end)
