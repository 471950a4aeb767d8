-- drip.lua: blood drips from a cut vessel into the pool in a wound: each drop splashes in
-- a 3D region over the pool's middle (sim:region, issue 40) and its rings run out over
-- the pool, whose columns keep blood's surface tension and its edge on the tissue.
-- 40 x 40 x 1 cells, dx = 1 mm, blood.
--
-- The wound is the surgery scene's in small: a block 15 mm high with a spherical hollow,
-- its floor 3 mm up at the middle, holding a pool of blood 4 mm deep there (its edge on
-- the hollow's slope, blood wetting tissue as in surgery.lua: 20 degrees advancing, 0
-- receding). A vessel 25 mm above the pool lets a drop of 20 microlitres (3.4 mm across)
-- go every 0.15 s (the first at 0.15 s). Over the pool's middle, 12 x 12 mm from the floor to
-- 16 mm, the liquid is a 3D region of 0.5 mm cells (refine 2: 24 x 24 x 32 cells with
-- particles, docs/method.md, "The 3D region"); each drop lands on it and enters it as a
-- ball of its particles at about 0.7 m/s, opens a crater and throws a crown up (drawn as
-- liquid in the air), and the rings run out of the box into the columns. The region's
-- own liquid has no surface tension, the pool's columns keep blood's (docs/method.md,
-- "Surface tension around a region"). Every 0.1 s a line gives the region's particles
-- in the air and the highest of them above the pool, the depth 10 mm from the middle
-- (outside the region), and the volume against the books; at the end, the highest.
-- Measured (1 s, 234 steps of 4.28 ms; a 2-vCPU VM, 2 workers): a drop lands 0.07 s
-- after it leaves; each throws a crown and then a thin jet up to 8 to 9 mm above the pool
-- (the first's at 0.31 s), 20 to 180 of the region's particles in the air; the depth 10
-- mm out swings between 2.3 and 4.3 mm (3.0 at rest) as the rings pass; the volume equals
-- the books to 7e-14; 28 to 32 ms a step (0.12-0.14x real time). The rings leave the box as a
-- rounded square for a moment: the impact raises the region's liquid over its 12 x 12 mm
-- before the columns beyond take it away (docs/method.md, "A wave": the border reflects
-- part of a wave); at the start the box's corners show dimples a tenth of a millimetre
-- deep, the liquid the hollow's curved floor takes from the columns' stepped one seeded
-- above the cells' level (docs/method.md, "A curved solid in the box").
--
--   vpbench scripts/drip.lua
--   vpbench run --headless --until 1 scripts/drip.lua
--   vpbench render --at 0.28 --png drip.png scripts/drip.lua
--
-- Parameters: region ("on", "off": the pool on the columns alone, where a drop lands as
-- a parcel spread over the cells under it), refine (the region's cells per column cell,
-- 2), every (s between drops, 0.15).

local useRegion = vp.param("region", "on")
local refine = vp.param("refine", 2)
local every = vp.param("every", 0.15)
local dx = 0.001
local cx, cy = 0.02, 0.02
local level = 0.007 -- the pool's surface, m

local sim = vp.sim{
  size = {0.04, 0.04}, height = 0.04, dx = dx, layers = 1, liquid = "blood",
  viscosity = 4e-6, contact_angle = {math.rad(20), 0},
}
sim:terrain(vp.difference(
  vp.box{ min = {0, 0, 0}, max = {0.04, 0.04, 0.015} },
  vp.sphere{ center = {cx, cy, 0.06}, radius = 0.057 }))
sim:fill{ at = {cx, cy, 0.0035}, level = level }
sim:camera{ eye = {0.02, -0.022, 0.034}, target = {0.02, 0.02, 0.006}, fov = 40 }

local info = sim:info()
if useRegion == "on" then
  if info.backend == "cpu" and info.method == "pipes" then
    sim:region{ min = {cx - 0.006, cy - 0.006, 0}, max = {cx + 0.006, cy + 0.006, 0.016}, dx = dx / refine }
  else
    print(string.format("no region: it couples to the pipes on the cpu backend only (this run: %s, %s)", info.backend, info.method))
  end
end

local drops = 0
sim:every(every, function(t)
  sim:drop{ at = {cx, cy, level + 0.025}, volume = 2e-8, velocity = {0, 0, 0} }
  drops = drops + 1
end)

local crown = { h = 0, t = 0 }
sim:every(0.005, function(t)
  local r = sim:stats().region
  if r and r.airborne > 0 and r.air_top - level > crown.h then crown.h, crown.t = r.air_top - level, t end
end)

sim:every(0.1, function(t)
  local st = sim:stats()
  local line = string.format("t = %.1f s: %d drops;", t, drops)
  local r = st.region
  if r then
    line = line .. string.format(" %4d particles in the air, highest %4.1f mm above the pool;",
      r.airborne, r.airborne > 0 and (r.air_top - level) * 1e3 or 0)
  end
  local books = st.added - st.removed - st.outflow
  print(line .. string.format(" depth 10 mm out %.3f mm; volume %.4f ml, off the books by %.2g",
    sim:depth(cx + 0.01, cy) * 1e3, st.volume * 1e6, (st.volume - books) / books))
end)

function main()
  vp.wait(1)
  print(string.format("the highest crown: %.1f mm above the pool at %.3f s", crown.h * 1e3, crown.t))
end
