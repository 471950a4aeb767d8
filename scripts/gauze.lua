-- gauze.lua: a swab dropped onto the blood pooling in the surgery scene's wound floats,
-- soaks up blood, and drifts towards the suction as the blood flows there.
--
-- The wound of surgery.lua (the floor the bottom of a sphere 87 mm in radius, lowest,
-- 3 mm up, at the centre) and its vertebral body (a cylinder 20 mm across lying along y,
-- 1 mm over the floor, the blood seeping under it), with a pool of blood 4 mm deep at
-- the lowest point. A vessel at the pool's -y end, beside the body, bleeds 1.5 ml/s; the
-- suction tip at its +y end takes as much: the blood runs along the body towards it.
--
-- The swab: a square of cotton gauze 10 x 10 x 3 mm (a rigid body, docs/bodies.md), dry
-- at 250 kg/m^3, let go 8 mm above the pool at t = 0.3 s, near the bleeding. It lands, bobs, floats with a
-- quarter of its thickness under (the pool between the body and the wound's wall is
-- about 16 mm wide at its level: a 14 mm swab could land wedged on the slopes of both,
-- perched out of the blood, as the flow's smallest change decided), and the level of the pool rises by its weight's worth of
-- blood. From t = 1.5 s it soaks: its density climbs to 900 kg/m^3 over a second
-- (sim:every and body:set), it sinks deeper, and it turns red; all the while the current
-- carries it.
-- A line a half second gives its place, depth and speed.
--
--   vpbench scripts/gauze.lua
--   vpbench run --headless --until 4 scripts/gauze.lua
--   vpbench render --at 3 --png gauze.png scripts/gauze.lua
--
-- Parameters: dx, swabs (how many, dropped one after another), soak ("off": stays dry).

local dx = vp.param("dx", 0.0005)
local swabs = vp.param("swabs", 1)
local soak = vp.param("soak", "on")

local sim = vp.sim{
  size = {0.1, 0.1}, height = 0.06, dx = dx, dt = 0.003, layers = 3,
  viscosity = 4e-6, damping = 0.5, liquid = "blood",
}

local cx, cy = 0.05, 0.05
local wound = vp.difference(
  vp.box{ min = {0, 0, 0}, max = {0.1, 0.1, 0.02} },
  vp.sphere{ center = {cx, cy, 0.09}, radius = 0.087 })
local vertebral_body = vp.cylinder{ base = {cx, cy - 0.015, 0.014}, axis = {0, 1, 0}, radius = 0.010, length = 0.030 }
sim:terrain(vp.union(wound, vertebral_body))

sim:camera{ eye = {0.005, 0.0, 0.06}, target = {0.042, 0.05, 0.004} } -- the pool and the swab, close

sim:fill{ at = {cx - 0.02, cy, 0.004}, level = 0.007 }
sim:source{ at = {cx - 0.02, cy - 0.018, 0.012}, radius = 0.003, rate = 1.5e-6 }
sim:sink{ at = {cx - 0.02, cy + 0.016, 0.005}, radius = 0.003, rate = 1.5e-6 }

local dry, wet = 250, 900
local gauze = {}
for k = 1, swabs do
  sim:at(0.3 * k, function()
    local x, y = cx - 0.02 + 0.003 * (k % 2), cy - 0.003 + 0.004 * (k - 1)
    gauze[#gauze + 1] = sim:body{
      solid = vp.box{ min = {-0.005, -0.005, -0.0015}, max = {0.005, 0.005, 0.0015} },
      density = dry, at = {x, y, 0.015}, color = {0.95, 0.95, 0.92},
      rotate = { axis = {0, 0, 1}, angle = 0.3 * k },
    }
  end)
end

if soak == "on" then
  sim:every(0.1, function()
    local t = sim:time()
    if t < 1.5 or t > 2.55 then return end
    local s = math.min((t - 1.5) / 1, 1)
    for _, b in ipairs(gauze) do
      b:set{ density = dry + (wet - dry) * s, color = {0.95 - 0.45 * s, 0.95 - 0.85 * s, 0.92 - 0.82 * s} }
    end
  end)
end

sim:every(0.5, function()
  local st = sim:stats()
  for _, b in ipairs(gauze) do
    local x, y, z = b:position()
    local vx, vy = b:velocity()
    local i = b:info()
    print(string.format("t = %.1f s: swab %d at (%.1f, %.1f) mm, %.0f%% under, drifting %.1f mm/s; blood %.2f ml",
      sim:time(), i.id, x * 1e3, y * 1e3, 100 * i.submerged / i.volume, math.sqrt(vx * vx + vy * vy) * 1e3, st.volume * 1e6))
  end
end)
