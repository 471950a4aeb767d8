-- bore.lua: a dam breaks in a channel and its bore runs through a 3D region and out
-- again: the coupling of the region (sim:region, issue 40) to the columns, both ways,
-- with the volume exact. 60 x 5 x 1 cells, dx = 2 mm, water, capillarity off.
--
-- A channel 120 mm long and 10 mm wide holds water 20 mm deep behind a gate 30 mm from
-- its west end and 5 mm deep beyond it. The gate lifts at t = 0 (the set-up sets the
-- terrain again without it). Over x = 50 to 66 mm the channel is a 3D region of 1 mm
-- cells (refine 2: a grid of 16 x 10 x 30 cells with particles, docs/method.md, "The
-- 3D region"): the bore runs into it through its west side, through it, out through
-- its east side into the columns (what leaves it high above the columns' level flies
-- as drops), strikes the east wall and runs back through it. The columns under the
-- box hold the region's liquid as their heights, so the picture shows it as a
-- heightfield, continuous across the box's sides (what stands above it is drawn as
-- liquid in the air). Every 0.25 s a line gives the depths before, in and
-- beyond the region, the region's particles, what it took in and let out, its pressure
-- solve's iterations and its time a step, and the volume against the books; at the end,
-- when the bore reached each probe (2 mm above its depth at the start).
-- Measured (2 s, 331 steps of 6.06 ms; a 2-vCPU VM): the volume equals the books to
-- 4e-14 at every line; the region takes in 10.8 ml through its sides and lets out
-- 10.2 ml (it holds 0.9 to 1.9 ml, 7,000 to 15,000 particles, 51 to 58 conjugate
-- gradient iterations a step), at 8 to 10 ms a step: 3.3 s of wall time for the 2 s.
-- The bore reaches 90 mm at 0.388 s with the region and at 0.442 s without it
-- (--param region=off): the region's liquid carries its momentum over those 16 mm,
-- where the pipes' waves run no faster than sqrt(g dx) (docs/method.md, "Two
-- methods"); the shallow water equations (--method swe, which runs without the region:
-- it couples to the pipes only) bring it at 0.151 s. The pipes ring behind the bore (a
-- sawtooth of two cells' wavelength, with or without the region); in the pictures the
-- region's stretch shows none.
--
--   vpbench scripts/bore.lua
--   vpbench run --headless --until 2 scripts/bore.lua
--   vpbench render --at 0.3 --png bore.png scripts/bore.lua
--
-- Parameters: region ("on", "off": the same channel on the columns alone), refine (the
-- region's cells per column cell, 2).

local useRegion = vp.param("region", "on")
local refine = vp.param("refine", 2)
local dx = 0.002

local sim = vp.sim{
  size = {0.12, 0.01}, height = 0.04, dx = dx, layers = 1,
  liquid = "water", viscosity = 1e-6, capillarity = "off",
}

local floor = vp.box{ min = {0, 0, 0}, max = {0.12, 0.01, 0.001} }
sim:terrain(vp.union(floor, vp.box{ min = {0.03, 0, 0}, max = {0.032, 0.01, 0.04} }))
sim:fill{ at = {0.01, 0.005, 0.002}, level = 0.021 } -- 20 mm behind the gate
sim:fill{ at = {0.08, 0.005, 0.002}, level = 0.006 } -- 5 mm beyond it
sim:terrain(floor) -- the gate lifts

sim:camera{ eye = {0.035, -0.07, 0.06}, target = {0.06, 0.005, 0.008}, fov = 35 }

local info = sim:info()
if useRegion == "on" then
  if info.backend == "cpu" and info.method == "pipes" then
    sim:region{ min = {0.05, 0, 0}, max = {0.066, 0.01, 0.03}, dx = dx / refine }
  else
    print(string.format("no region: it couples to the pipes on the cpu backend only (this run: %s, %s)", info.backend, info.method))
  end
end

local probes = { {x = 0.045, name = "45 mm (before)"}, {x = 0.058, name = "58 mm (in)"}, {x = 0.09, name = "90 mm (beyond)"} }
for _, p in ipairs(probes) do p.start = sim:depth(p.x, 0.005) end
sim:every(0.005, function(t)
  for _, p in ipairs(probes) do
    if not p.at and sim:depth(p.x, 0.005) > p.start + 0.002 then p.at = t end
  end
end)

sim:every(0.25, function(t)
  local st = sim:stats()
  local line = string.format("t = %.2f s: depth %4.1f, %4.1f, %4.1f mm", t,
    sim:depth(probes[1].x, 0.005) * 1e3, sim:depth(probes[2].x, 0.005) * 1e3, sim:depth(probes[3].x, 0.005) * 1e3)
  local r = st.region
  if r then
    line = line .. string.format("; region %5d particles, %.2f ml, in %5.2f ml, out %5.2f ml, %2d iterations, %.1f ms a step",
      r.particles, r.volume * 1e6, r.inflow * 1e6, r.outflow * 1e6, r.iterations, r.step_ms)
  end
  local books = st.added - st.removed - st.outflow
  print(line .. string.format("; volume %.4f ml, off the books by %.2g", st.volume * 1e6, (st.volume - books) / books))
end)

function main()
  vp.wait(2)
  local parts = {}
  for _, p in ipairs(probes) do
    parts[#parts + 1] = string.format("%s at %s", p.name, p.at and string.format("%.3f s", p.at) or "never")
  end
  print("the bore reached " .. table.concat(parts, ", "))
end
