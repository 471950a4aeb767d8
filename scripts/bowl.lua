-- bowl.lua: liquid poured into a spherical bowl standing on a table. It shows the domain's
-- boundaries and a moving wet/dry edge on a curved wall: the stream lands on the bowl's
-- side, runs down, and pools at the bottom, where its shoreline climbs the wall as the
-- bowl fills; the table around the bowl stays dry.
--
-- No figure of the paper, but its setting (Sec. 8): a 10 x 10 cm domain, dx = 0.5 mm,
-- 200 x 200 x 1 cells (a bowl has no overhang), dt = 3 ms, nu = 4e-6.
--
-- The bowl is a cylinder 84 mm across and 25 mm high with a spherical cavity (radius
-- 48 mm) carved out of it: 20 mm deep, 78 mm across at the rim, a 3 mm wide rim. A 10 ml/s
-- stream pours 12 mm off-centre for 2 s. At t = 3 s the 20 ml still slosh (damping keeps
-- half the flux each second), but their mean surface, at 17.0 mm, is where a spherical
-- cap holding 20 ml reaches (17.03 mm): 12 mm deep, 8 mm below the rim; the table stays
-- dry.
--
-- With surface tension on (the default) the shoreline that climbs the wall is a contact
-- line: it stops where the liquid stands no higher than the wetting head above the wall.
--
--   vpbench scripts/bowl.lua
--   vpbench run --headless --until 4 scripts/bowl.lua --param rate=2e-5

local dx = vp.param("dx", 0.0005)
local rate = vp.param("rate", 1e-5) -- m^3/s

local sim = vp.sim{
  capillarity = vp.param("capillarity", "on"),
  size = {0.1, 0.1}, height = 0.04, dx = dx, dt = 0.003, layers = 1, viscosity = 4e-6,
}

local cx, cy = 0.05, 0.05
local rim = 0.025 -- the bowl's top
local body = vp.cylinder{ base = {cx, cy, 0}, axis = {0, 0, 1}, radius = 0.042, length = rim }
local cavity = vp.sphere{ center = {cx, cy, 0.053}, radius = 0.048 } -- bottom at z = 5 mm
sim:terrain(vp.difference(body, cavity))

sim:source{ at = {cx - 0.012, cy, 0.035}, radius = 0.003, rate = rate, start = 0, stop = 2 }

sim:every(0.5, function()
  local st = sim:stats()
  print(string.format("t = %.1f s: %.1f ml in the bowl, %.1f mm deep at the centre, %d wet columns",
    sim:time(), st.volume * 1e6, sim:depth(cx, cy) * 1e3, st.wet))
end)
