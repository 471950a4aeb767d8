-- vp.mesh of an open mesh (a tetrahedron with a face missing): accepted, with a warning
-- naming the line and the open edges; its inside comes from the winding number.
local sim = vp.sim{ size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }
local m = vp.mesh("open.obj")
sim:terrain(m)
