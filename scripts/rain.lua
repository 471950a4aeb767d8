-- rain.lua: rain on a shallow creek that flows past a stone. Each drop that lands makes a
-- ring of waves (wave particles, docs/waves.md): the rings spread at the speed the
-- creek's depth and the water's surface tension give them, drift downstream with the
-- current, reflect off the banks and the stone, and die at the water's viscous rate.
--
-- The creek: a bed falling 1 mm over the 100 mm domain along x (a 1% slope), 50 mm wide
-- between banks that rise 6 mm on each side, a stone 16 mm across standing in its middle
-- at x = 55 mm. The water comes in at the upstream end (a 12 ml/s source 20 mm across,
-- pouring from just above the surface) and leaves through the open downstream side; the
-- creek starts full to a level of 3.5 mm. Rain: 40 drops a second of 4 microlitres (2 mm
-- across), falling from 25 mm at 1 m/s onto the creek and its banks, at places drawn from
-- the scenario's random generator (the same every run; --param seed=N for others).
--
--   vpbench scripts/rain.lua
--   vpbench render --at 2 --png rain.png scripts/rain.lua
--   vpbench run --headless --until 3 scripts/rain.lua --param rain=80
--
-- Parameters: dx, rain (drops a second), seed, waves ("off": the same water, bit for bit,
-- without the rings).

local dx = vp.param("dx", 0.0005)
local rain = vp.param("rain", 40) -- drops a second
math.randomseed(vp.param("seed", 1))

local sim = vp.sim{
  size = {0.1, 0.1}, height = 0.03, dx = dx, layers = 1, dt = "auto", viscosity = 1e-6,
  liquid = "water", sides = { plus_x = "open" }, waves = vp.param("waves", "on"),
  wave_amplitude = vp.param("wave_amplitude", 3),
}

local mid, half = 0.05, 0.025 -- the creek's axis and half width, m
local bed = vp.heightfield{ fn = function(x, y)
  local z = 0.002 - 0.01 * x -- the bed: 2 mm at the inflow, 1 mm at the outflow
  local out = math.abs(y - mid) - half
  if out > 0 then
    z = z + math.min(0.006, out * 0.5) -- the banks rise at 1 in 2, up to 6 mm
  end
  return z
end }
local stone = vp.sphere{ center = {0.055, mid, -0.002}, radius = 0.008 }
sim:terrain(vp.union(bed, stone))

sim:fill{ at = {0.02, mid, 0.0025}, level = 0.0035 }
sim:source{ at = {0.004, mid, 0.004}, radius = 0.01, rate = 1.2e-5 }

sim:every(1 / rain, function()
  local x, y = 0.005 + 0.09 * math.random(), 0.015 + 0.07 * math.random()
  sim:drop{ at = {x, y, 0.025}, volume = 4e-9, velocity = {0, 0, -1} }
end)

sim:every(0.5, function()
  local st = sim:stats()
  local vx = sim:velocity(0.03, mid)
  print(string.format("t = %.1f s: %.1f ml in the creek, %.2f ml out, current %.0f mm/s upstream of the stone, %d wave particles",
    sim:time(), st.volume * 1e6, st.outflow * 1e6, vx * 1e3, st.waves))
end)
