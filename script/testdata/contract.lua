-- The whole scripting contract on a small scene (script/contract_test.go runs it).
local vp = require("vp")
local helpers = require("helpers")
assert(require("helpers") == helpers, "require loads a module once")

local sim = vp.sim{ size = {0.02, 0.02}, height = 0.02, dx = 0.001, dt = "auto",
                    layers = 3, viscosity = vp.param("nu", 4e-6), damping = 0.5, gravity = 9.81,
                    cross_section = "paper", extended_pipes = "unified",
                    backend = "cpu", workers = 1 }

-- Terrain: a floor, a block with a spherical cavity that opens on both sides (an
-- overhang), a small cube mesh, a rotated post, a gentle heightfield and a plane.
local floor = helpers.slab(0.02, 0.02, 0, 0.002)
local block = vp.box{ min = {0.006, 0.0, 0.002}, max = {0.014, 0.02, 0.010} }
local cavity = vp.sphere{ center = {0.01, 0.01, 0.004}, radius = 0.005 }
local arch = vp.difference(block, cavity)
local cube = vp.mesh("cube.obj"):translate{0.017, 0.017, 0.002}
local post = vp.cylinder{ base = {0, 0, 0}, axis = {0, 0, 1}, radius = 0.0008, length = 0.004 }
post = post:rotate{ axis = {1, 0, 0}, angle = 0.1 }:translate{0.002, 0.018, 0.002}
local ground = vp.heightfield{ fn = function(x, y) return 0.0015 + 0.0002 * x / 0.02 end }
local under = vp.plane{ point = {0, 0, 0.001}, normal = {0, 0, 1} }
local scene = vp.union(floor, arch, cube, post, ground, under)
assert(tostring(scene) == "solid (union)")
sim:terrain(scene)

-- The cell under the arch has two columns: under the cavity's roof and above the block.
local cols = sim:columns(0.01, 0.01)
assert(#cols == 2, "two columns under the arch, got " .. #cols)
assert(cols[1].base < cols[1].max and cols[1].max <= cols[2].base)
print("columns", #cols)

local added = sim:fill{ at = {0.003, 0.01, 0.003}, level = 0.004 }
assert(added > 0, "fill adds liquid")
print(string.format("filled %.3g", added))

local src = sim:source{ at = {0.017, 0.008, 0.01}, radius = 0.0015, rate = 2e-8, start = 0, stop = 0.15 }
local drain = sim:sink{ at = {0.003, 0.003, 0.003}, radius = 0, rate = 1e-9, start = 0.05 }

everies = 0
sim:every(0.02, function(t)
  everies = everies + 1
end)

changed_at = nil
sim:at(0.05, function(t)
  sim:set{ viscosity = 1e-5, damping = 0.4 }
  src:set_rate(4e-8)
  changed_at = t
end)

local cancelled = sim:at(0.06, function() error("a cancelled timer fired") end)
cancelled:cancel()

function main()
  print("main starts at", sim:time())
  vp.wait(0.03)
  print(string.format("t=%.4f depth=%.3g", sim:time(), sim:depth(0.003, 0.01)))
  assert(sim:time() >= 0.03)
  vp.wait(0.1)
  assert(changed_at and changed_at >= 0.05, "sim:at fired before main's second wake-up")
  drain:stop()
  local st = sim:stats()
  assert(st.steps > 0 and st.dt > 0 and st.volume > 0 and st.added > 0 and st.removed > 0)
  assert(st.sim.frames >= 1 and st.surface and st.render)
  local info = sim:info()
  assert(info.nx == 20 and info.ny == 20 and info.layers == 3 and info.backend == "cpu")
  print(string.format("everies=%d volume=%.6g", everies, sim:volume()))
  print(pcall(sim.export_mesh, sim, "../out.obj"))
end
