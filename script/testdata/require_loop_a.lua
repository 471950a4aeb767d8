-- requires loop_b, which requires this module again
return require("loop_b")
