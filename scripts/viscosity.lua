-- viscosity.lua: liquid released on an incline, for one viscosity nu. The paper's viscosity
-- experiment (Fig. 17 a-d, Table 1 rows "Viscosity"): 200 x 200 x 1 cells, dx = 0.5 mm,
-- dt = 3 ms, nu = 0, 4e-6, 4e-5 and 0.4 m^2/s, observed at t = 3 s. As nu grows the liquid
-- flows more slowly down the incline; at nu = 0.4 it hardly moves, and the solver stays
-- stable (the viscosity factor gamma lies in [0, 1] for any nu).
--
-- About 2.8 ml of liquid waits behind a U-shaped gate near the top of a 10 degree incline.
-- At t = 0 the gate is lifted (the terrain is replaced mid-run; the liquid stays where it
-- is) and the liquid runs down towards the foot, where the domain's wall stops it. The
-- script prints where the front is each second and ends the run at t = 3 s. Measured at
-- t = 3 s (scripts_single_layer_test.go), how far the liquid's centre of mass has moved down the slope:
--   nu = 0      69 mm   front at the foot within 1 s; the liquid pools there
--   nu = 4e-6   62 mm   front at the foot within 1 s; a film stays on the slope
--   nu = 4e-5   24 mm   front 48 mm down the slope
--   nu = 0.4    0.01 mm the front has crept 1 mm: the liquid stands still, stably
--
-- One script covers the four figures: pass nu on the command line.
--
--   vpbench run --headless --until 3 scripts/viscosity.lua                    -- nu = 4e-6
--   vpbench run --headless --until 3 scripts/viscosity.lua --param nu=0
--   vpbench run --headless --until 3 scripts/viscosity.lua --param nu=4e-5
--   vpbench run --headless --until 3 scripts/viscosity.lua --param nu=0.4
--   vpbench scripts/viscosity.lua --param nu=4e-5                              -- with the UI
--
-- Other parameters: dx (cell size; `vpbench bench --plot` varies it to time the solver
-- against the grid size) and dt (the paper's 3 ms by default; at dx below 0.18 mm 3 ms is
-- above the stability limit and vpbench warns: pass --param dt=0 for the automatic step).

local nu = vp.param("nu", 4e-6)
local dx = vp.param("dx", 0.0005)
local dt = vp.param("dt", 0.003)
if dt == 0 then dt = "auto" end

local sim = vp.sim{
  capillarity = vp.param("capillarity", "off"), -- the paper's method, which this scene reproduces
  size = {0.1, 0.1}, height = 0.04, dx = dx, dt = dt, layers = 1,
  viscosity = nu, damping = 0.5,
}

-- The incline: solid below a plane rising 10 degrees along x, 4 mm high at x = 0.
local angle = math.rad(10)
local z0, slope = 0.004, math.tan(angle)
local function ground(x) return z0 + x * slope end
local incline = vp.plane{ point = {0, 0, z0}, normal = {-math.sin(angle), 0, math.cos(angle)} }

-- The gate: a U of 3 mm walls open towards the top of the domain (x = 0.1), enclosing
-- x in [0.066, 0.1], y in [0.03, 0.07].
local gate = vp.union(
  vp.box{ min = {0.063, 0.027, 0}, max = {0.066, 0.073, 0.035} },  -- the front wall
  vp.box{ min = {0.063, 0.027, 0}, max = {0.1, 0.030, 0.035} },    -- the sides
  vp.box{ min = {0.063, 0.070, 0}, max = {0.1, 0.073, 0.035} })
sim:terrain(vp.union(incline, gate))

-- Liquid behind the gate, 5 mm deep at the gate (a wedge 28 mm long, about 2.8 ml).
sim:fill{ at = {0.08, 0.05, ground(0.08) + 0.001}, level = ground(0.066) + 0.005 }

-- The front: the lowest x along the centre line y = 0.05 where the liquid is deeper than
-- 0.01 mm.
local function front()
  local x = dx / 2
  while x < 0.1 do
    if sim:depth(x, 0.05) > 1e-5 then return x end
    x = x + dx
  end
  return 0.1
end

function main()
  local start = front()
  sim:terrain(incline) -- lift the gate
  print(string.format("nu = %g m^2/s: %.2f ml released at t = %.2f s, front at x = %.1f mm",
    nu, sim:volume() * 1e6, sim:time(), start * 1e3))
  for t = 1, 3 do
    vp.wait(t - sim:time()) -- wake at t = 1, 2, 3 s (waits do not add up step roundings)
    local f = front()
    print(string.format("t = %.2f s: front at x = %.1f mm (travelled %.1f mm), %d wet columns",
      sim:time(), f * 1e3, (start - f) * 1e3, sim:stats().wet))
  end
end
