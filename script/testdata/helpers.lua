-- A module beside the scripts that require it: require("helpers").
local M = {}

M.loaded = (M.loaded or 0) + 1

-- slab returns a box of the given thickness over the whole x-y extent.
function M.slab(sx, sy, z0, z1)
  return vp.box{ min = {0, 0, z0}, max = {sx, sy, z1} }
end

return M
