-- waterfall.lua: liquid that falls. Water poured onto a shelf runs off its open edge and
-- falls 33 mm as a stream of particles into a basin below; beyond the paper, whose
-- heightfield would move it sideways and down through a pipe at once (its Sec. 7 names
-- particles as the way to do better; see docs/solver.md, "Liquid that falls").
--
--   shelf   x 0-50 mm, y 30-70 mm, a plate at z = 30-33 mm with a 5 mm lip on three sides,
--           open along x = 50 mm, over the basin: the cells under it hold two columns
--   basin   the domain's floor, z = 0, with a drain (a sink) at its far end
--
-- A source pours 4 ml/s onto the shelf's back for 4 s. The water spreads over the shelf,
-- reaches the open edge at about 0.5 s and falls; the stream lands up to 15 mm beyond the
-- edge (its speed over the edge, up to 0.17 m/s, times sqrt(2 x 33 mm / g) = 82 ms of
-- flight) and spreads over the basin, also back under the shelf. A drain takes 3 ml/s
-- from t = 2 s. With surface tension (on by default), the edge pours a stream of parcels
-- no smaller than a tenth of Tate's drop (1.15 microlitres) and, once the pour stops, drips
-- drops of 11.5 microlitres: no mist. Measured: from t = 1 s the shelf holds a steady 3.0-3.1
-- ml and the stream about 0.35 ml in the air in some 240 drops (4 ml/s for 80 ms: what
-- pours over the edge is in flight; 1,750 smaller ones without surface tension); at t = 4 s
-- the basin holds 11.7 ml. The volume (shelf + air + basin, less the drain) stays exact to
-- float rounding (2.7e-14 of the water poured). --param capillarity=off: the paper's
-- method with falling particles.
--
-- Parameters: --param falling=off gives the paper's method (no particles: the heightfield
-- moves the water down the edge at once); --param fall_drop=0.005 (m) releases only over
-- drops of more than 5 mm (default: 8 cells, 4 mm).
--
--   vpbench scripts/waterfall.lua
--   vpbench run --headless --surface --until 4 scripts/waterfall.lua
--   vpbench render --at 1.5 scripts/waterfall.lua --png waterfall.png

local falling = vp.param("falling", "particles")
local fall_drop = vp.param("fall_drop", 0)

local sim = vp.sim{
  capillarity = vp.param("capillarity", "on"),
  size = {0.1, 0.1}, height = 0.05, dx = 0.0005, layers = 2, dt = "auto",
  viscosity = 1e-6, falling = falling, fall_drop = fall_drop,
  waves = vp.param("waves", "off"), wave_particles = 2000, -- --param waves=on: ripples where the stream lands
}
sim:set{ liquid = "water" }

local plate = vp.box{ min = {-0.01, 0.03, 0.030}, max = {0.05, 0.07, 0.033} }
local lips = vp.difference(
  vp.box{ min = {-0.01, 0.03, 0.030}, max = {0.05, 0.07, 0.038} },
  vp.box{ min = {0.003, 0.033, 0.029}, max = {0.06, 0.067, 0.039} })
sim:terrain(vp.union(plate, lips))

sim:source{ at = {0.012, 0.05, 0.04}, radius = 0.004, rate = 4e-6, start = 0, stop = 4 }
sim:sink{ at = {0.095, 0.05, 0.001}, radius = 0.004, rate = 3e-6, start = 2 }

-- Where the water is: on the shelf (columns standing on it, floors above 20 mm) and in the
-- basin. sim:volume with a region sums the grid's columns at once.
local function places()
  return sim:volume{ floor_above = 0.02 }, sim:volume{ floor_below = 0.02 }
end

sim:every(0.5, function()
  local shelf, basin = places()
  local st = sim:stats()
  print(string.format("t = %.1f s: shelf %.2f ml, in the air %.3f ml in %d drops, basin %.2f ml",
    sim:time(), shelf * 1e6, st.airborne * 1e6, st.particles, basin * 1e6))
end)
