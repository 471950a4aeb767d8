// Package preview draws the liquid surface over the terrain with GLFW 3.3 and OpenGL 3.3
// core: a window that follows a running scenario, and offscreen pictures (PNG) for
// `vpbench render` and sim:screenshot (docs/preview.md).
//
// GLFW and OpenGL must live on the main OS thread: a program makes one Host in main and
// calls Host.Serve there; the runner and the UI, on other goroutines, reach it only
// through the Host's methods and the Mailbox, which hands the newest Frame to the drawing
// side without either side waiting. Nothing touches a display before the first request,
// so a program that never asks for a picture runs anywhere; offscreen rendering starts a
// private Xvfb when there is no display (Host.AutoXvfb).
//
// Besides the terrain, the bodies and the liquid (with the liquid in the air, its
// streams as ropes: surface.AirSurface), each sink is drawn on the floor as a drain
// (Frame.Sinks, sinks.go), so that the dry disc it leaves has a reason.
//
// Positions are in metres in the simulation's frame (z up); the camera orbits the
// domain's box. A build without cgo, or with the nopreview tag, has the same API and says
// that the preview is not in it (Available is false).
package preview
