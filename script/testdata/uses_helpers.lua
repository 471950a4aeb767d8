local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }
local h = require("helpers")
local again = require("helpers")
assert(h == again)
sim:terrain(h.slab(0.01, 0.01, 0, 0.002))
assert(sim:columns(0.005, 0.005)[1].base > 0.0019)
print("helpers loaded " .. h.loaded .. " times", "slab ok")
