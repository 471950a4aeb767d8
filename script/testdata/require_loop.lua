local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }
local a = require("require_loop_a")
