-- fountain.lua: a garden fountain in a round basin, with leaves floating on the ripples.
--
-- The basin: a bowl 90 mm across (the bottom of a sphere 70 mm in radius), 18 mm deep,
-- with a stone pedestal 10 mm across in its middle rising just above the water; water
-- 12 mm deep. The fountain: a spray (sim:spray, papers' fountain: parcels thrown within a
-- cone, each falling under gravity) of 3 ml/s at 0.55 m/s from the pedestal's top,
-- within 0.25 rad of the vertical; its drops land in a ring around the pedestal, join the
-- water and start rings of waves (waves = "on"), and the water they bring leaves through
-- a drain under the pedestal at the same rate. Six leaves (thin discs 10 mm across and
-- 0.6 mm thick, 350 kg/m^3: rigid bodies, docs/bodies.md) float on the water, knocked
-- about by the ripples and the landing drops, never through the pedestal, the bowl or
-- each other.
--
--   vpbench scripts/fountain.lua
--   vpbench render --at 3 --png fountain.png scripts/fountain.lua
--
-- Parameters: dx, leaves, rate (m^3/s), waves ("off": no rings).

local dx = vp.param("dx", 0.0005)
local leaves = vp.param("leaves", 6)
local rate = vp.param("rate", 3e-6)

local sim = vp.sim{
  size = {0.1, 0.1}, height = 0.05, dx = dx, layers = 1, dt = "auto", viscosity = 1e-6,
  liquid = "water", waves = vp.param("waves", "on"), wave_amplitude = 2, wave_particles = 3000,
}

local cx, cy = 0.05, 0.05
local basin = vp.difference(
  vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.02} },
  vp.sphere{ center = {cx, cy, 0.072}, radius = 0.07 })
local pedestal = vp.cylinder{ base = {cx, cy, 0}, axis = {0, 0, 1}, radius = 0.005, length = 0.016 }
sim:terrain(vp.union(basin, pedestal))
sim:fill{ at = {cx + 0.02, cy, 0.004}, level = 0.014 }

sim:spray{ at = {cx, cy, 0.0165}, direction = {0, 0, 1}, speed = 0.55, spread = 0.25, rate = rate, seed = 7 }
sim:sink{ at = {cx + 0.009, cy, 0.003}, radius = 0.003, rate = rate }

math.randomseed(3)
local leaf = {}
for k = 1, leaves do
  local a = 2 * math.pi * (k - 1) / leaves + 0.4 * math.random()
  local r = 0.018 + 0.012 * math.random()
  local green = {0.25 + 0.2 * math.random(), 0.45 + 0.2 * math.random(), 0.12}
  leaf[k] = sim:body{
    solid = vp.cylinder{ base = {0, 0, -0.0003}, axis = {0, 0, 1}, radius = 0.005, length = 0.0006 },
    density = 350, at = {cx + r * math.cos(a), cy + r * math.sin(a), 0.0148}, color = green,
    rotate = { axis = {math.cos(a), math.sin(a), 0}, angle = 0.2 },
  }
end

sim:every(0.5, function()
  local st = sim:stats()
  local moving = 0
  for _, b in ipairs(leaf) do
    local vx, vy = b:velocity()
    moving = moving + math.sqrt(vx * vx + vy * vy)
  end
  print(string.format("t = %.1f s: %.1f ml in the basin, %.2f ml in the air, %d wave particles, leaves drifting %.1f mm/s on average",
    sim:time(), st.volume * 1e6, st.airborne * 1e6, st.waves, 1e3 * moving / #leaf))
end)
