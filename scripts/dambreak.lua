-- dambreak.lua: a dam breaks in a glass channel: the scene that shows what the shallow
-- water equations (method = "swe", this scene's default) get right and the virtual pipes
-- cannot. 200 x 30 x 1 cells, dx = 1 mm, water.
--
-- A channel 20 cm long and 3 cm wide holds water 10 mm deep behind a gate 5 cm from its
-- west end; the rest is dry. At t = 0.2 s the gate lifts (the terrain changes mid-run) and
-- the water runs east, strikes the east wall and runs back as a bore. Ritter's solution
-- for a dam break onto a dry bed puts the point where the water is 0.5 mm deep at
-- (2 - 3 sqrt(0.05)) sqrt(g h) t from the gate, 0.42 m/s here. The script prints the
-- front's distance from the gate beside Ritter's every 0.05 s until the strike.
-- Measured: the SWE 39 mm at 0.103 s after the gate (Ritter 43) and 94 mm at 0.253 s
-- (105): water's viscosity slows the tip, a fraction of a millimetre thick; with
-- --param viscosity=0 the front is Ritter's within a cell or two (42 and 108 mm). With
-- --param method=pipes the front creeps, 11 and 26 mm: the pipes carry no momentum and
-- their waves run at sqrt(g dx), not sqrt(g h).
--
--   vpbench scripts/dambreak.lua
--   vpbench run --headless --until 0.6 scripts/dambreak.lua --param method=pipes

local method = vp.param("method", "swe")
local depth = vp.param("depth", 0.010) -- m, behind the gate
local g = 9.81

local sim = vp.sim{
  size = {0.2, 0.03}, height = 0.03, dx = 0.001, layers = 1, method = method,
  liquid = "water", viscosity = vp.param("viscosity", 1e-6), damping = 1, capillarity = "off", falling = "off",
}

local floor = vp.box{ min = {0, 0, 0}, max = {0.2, 0.03, 0.002} }
local gateX = 0.05
local gate = vp.box{ min = {gateX, 0, 0}, max = {gateX + 0.002, 0.03, 0.03} }
sim:terrain(vp.union(floor, gate))
sim:fill{ at = {0.02, 0.015, 0.003}, level = 0.002 + depth }

local open, opened = 0.2, nil
sim:at(open, function() sim:terrain(floor); opened = sim:time() end)

-- The front: the farthest point east of the gate where the water is 0.5 mm deep along the
-- channel's middle.
local function front()
  local far = 0
  for i = 0, 147 do
    local x = gateX + 0.002 + (i + 0.5) * 0.001
    if sim:depth(x, 0.015) > 0.0005 then far = x - gateX end -- the water stood up to the gate's west face
  end
  return far
end

local c0 = math.sqrt(g * depth)
for k = 1, 5 do
  local t = 0.05 * k
  sim:at(open + t, function()
    -- Ritter's profile is 0.5 mm deep where (2 c0 - x/t)^2 = 9 g * 0.0005, at the time
    -- since the gate lifted (the step it lifted in).
    local since = sim:time() - opened
    local ritter = since * (2 * c0 - 3 * math.sqrt(g * 0.0005))
    print(string.format("t = %.3f s after the gate: front %3.0f mm from it, Ritter %3.0f mm (%s)",
      since, front() * 1e3, math.min(ritter, 0.15) * 1e3, method))
  end)
end
