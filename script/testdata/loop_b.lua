-- part of a require loop (require_loop.lua)
return require("require_loop_a")
