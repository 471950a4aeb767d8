-- vp.mesh of an open mesh: the error names the OBJ's file and line.
local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }
local m = vp.mesh("open.obj")
sim:terrain(m)
