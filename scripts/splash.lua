-- splash.lua: a drop falls into a basin and splashes: a crown, then a jet, thrown up in a
-- 3D region (sim:region, issue 40) and drawn as liquid in the air, and the rings leaving
-- the region as the columns' waves. 40 x 40 x 1 cells, dx = 2 mm, water, capillarity off.
--
-- A basin 80 x 80 mm holds water 10 mm deep. Over its middle 32 x 32 mm, from the floor
-- to the top (80 mm), the liquid is a 3D region of 1 mm cells (refine 2: 32 x 32 x 80 cells with
-- particles, docs/method.md, "The 3D region"). A drop of 0.52 ml (10 mm across) is let
-- go 40 mm above the surface. It falls as a parcel, lands on the region's held columns
-- and enters the region as a ball of its particles moving at 0.9 m/s; the impact opens a
-- crater, throws up a crown around it, and the crater's collapse sends up a jet. The
-- region's particles standing more than two of its cells above the held columns'
-- surface are drawn as liquid in the air (docs/method.md, "The region in the picture");
-- the rest of it is drawn as the columns' heightfield. The rings run out of the box
-- into the columns, to the basin's walls and back. Every 0.02 s a line gives the
-- region's particles in the air and the highest of them above the still surface, the
-- depth 30 mm from the middle (outside the region), and the volume against the books;
-- at the end, the crown's and the jet's heights and when.
-- Measured (a 2-vCPU VM, 2 workers): the drop lands at 0.09 s; about 470 particles in
-- the air at 0.12 s, the crown up to 9.2 mm above the surface at 0.133 s; a thin jet
-- from 0.18 s that reaches the box's lid, 70 mm above the surface, by 0.26 s (taller
-- than a real drop's is likely to be: docs/method.md says why); the depth 30 mm out
-- moves by up to 3.9 mm as the rings pass; the volume equals the books to 2e-13; about
-- 90 ms a step while the region is busy (0.06x real time: the library's slowest scene).
--
--   vpbench scripts/splash.lua
--   vpbench run --headless --until 0.5 scripts/splash.lua
--   vpbench render --at 0.13 --png splash.png scripts/splash.lua
--
-- Parameters: region ("on", "off": the same basin on the columns alone, where the drop
-- lands as a parcel and makes a ring of waves only), refine (the region's cells per
-- column cell, 2), depth (the basin's water, m, 0.01), fall (the drop's height above it,
-- m, 0.04; issue 40's splash is depth = 0.02, fall = 0.05, TestSplash's second case).

local useRegion = vp.param("region", "on")
local refine = vp.param("refine", 2)
local dx = 0.002
local level = vp.param("depth", 0.01) -- the basin's water, m
local fall = vp.param("fall", 0.04)    -- the drop's height above it, m
-- The crown rises while the crater is open, the jet after it closes: 0.17 s parts them
-- at the defaults, later by as much as the drop's fall takes longer.
local crownEnd = 0.17 + math.sqrt(2 * fall / 9.81) - math.sqrt(2 * 0.04 / 9.81)

local sim = vp.sim{
  size = {0.08, 0.08}, height = 0.08, dx = dx, layers = 1,
  liquid = "water", viscosity = 1e-6, capillarity = "off",
}
sim:fill{ at = {0.001, 0.001, 0.0005}, level = level }
sim:camera{ eye = {0.04, -0.045, 0.05}, target = {0.04, 0.04, 0.012}, fov = 35 }

local info = sim:info()
if useRegion == "on" then
  if info.backend == "cpu" and info.method == "pipes" then
    sim:region{ min = {0.024, 0.024, 0}, max = {0.056, 0.056, 0.08}, dx = dx / refine }
  else
    print(string.format("no region: it couples to the pipes on the cpu backend only (this run: %s, %s)", info.backend, info.method))
  end
end

sim:drop{ at = {0.04, 0.04, level + fall}, volume = 5.2e-7, velocity = {0, 0, 0} }

local crown = { h = 0, t = 0 } -- the most above the surface before crownEnd
local jet = { h = 0, t = 0 }   -- after it
local probe = 0.07             -- 30 mm from the middle, outside the region
sim:every(0.005, function(t)
  local r = sim:stats().region
  if r and r.airborne > 0 then
    local h, rec = r.air_top - level, (t < crownEnd) and crown or jet
    if h > rec.h then rec.h, rec.t = h, t end
  end
end)

sim:every(0.02, function(t)
  local st = sim:stats()
  local line = string.format("t = %.2f s:", t)
  local r = st.region
  if r then
    line = line .. string.format(" %4d particles in the air, highest %5.1f mm above the surface;",
      r.airborne, r.airborne > 0 and (r.air_top - level) * 1e3 or 0)
  end
  local books = st.added - st.removed - st.outflow
  print(line .. string.format(" depth 30 mm out %.2f mm; volume %.4f ml, off the books by %.2g",
    sim:depth(probe, 0.04) * 1e3, st.volume * 1e6, (st.volume - books) / books))
end)

function main()
  vp.wait(0.4)
  print(string.format("the crown: %.1f mm above the surface at %.3f s; the jet: %.1f mm at %.3f s",
    crown.h * 1e3, crown.t, jet.h * 1e3, jet.t))
end
