// Package scripts is vpbench's scenario library: Lua scenes a user can read, run and copy,
// one file each, each opening with a comment on what it shows and which figure or table
// of the paper it reproduces. They use only the scripting contract (docs/scripting.md) plus
// two extensions: vp.param, so one script covers several runs (`--param nu=4e-5`), and the
// preview's liquid colour (sim:set{liquid = ...}).
//
//	demo.lua           the built-in demo: a source pouring onto a 10 degree incline
//	viscosity.lua      liquid released on an incline, nu as a parameter (Fig. 17, Table 1)
//	bowl.lua           liquid poured into a spherical bowl: boundaries, wet/dry edges
//	three_layers.lua   liquid falling through two trays with holes (Fig. 19, Table 1)
//	passages.lua       four tunnels through a ring that flood (Fig. 20, Table 1)
//	cross_passage.lua  a cross-shaped flooded passage: unified against axis pipes (Fig. 23)
//	surgery.lua        bleeding onto a procedural vertebra, with suction (Fig. 1, Table 1)
//	coffee.lua         coffee spilling from a mug lying on its side onto a table
//	rock.lua           paint poured over an imported model (models/rock.stl)
//
// FS embeds the library into the vpbench binary (`vpbench bench` runs it) and Demo is
// demo.lua, the scene `vpbench` runs without a file. The package's tests run every scene
// headless through the script package and check that it does what its comment says;
// README.md in this folder says how to run them.
package scripts
