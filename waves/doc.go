// Package waves adds small surface waves to the liquid the solver simulates: wave
// particles (Yuksel, House and Keyser, "Wave Particles") carried by the flow (Cords,
// "Moving with the Flow: Wave Particles in Flowing Liquids"). The coupling is one way and
// purely visual: a System reads the solver's per-column liquid heights and velocities
// (Flow) and never changes them; Displacement gives a height offset per column for the
// renderer to add to the surface.
//
// # Use
//
//	s, err := waves.New(cols, waves.Water())
//	...
//	s.Impact(waves.Impact{X: x, Y: y, Z: z, Amplitude: waves.LandingAmplitude(v, speed, 9.81), Time: t})
//	s.Advance(t, waves.Flow{Height: h, VX: u, VY: v})  // at each frame's simulated time
//	disp = s.Displacement(disp, flow)                   // per column, m; 0 on dry columns
//
// SI units throughout: metres, seconds. z is up.
//
// # Method
//
// An impact starts a ring of RingParticles particles at radius R (the kernel radius)
// moving outward, and a trough ring of the opposite amplitude at its centre (zero net
// volume; Settings.CrestOnly drops it). A particle moves at the group velocity of
// capillary-gravity waves of wavelength 2R on the local depth, plus the local flow
// velocity; it turns towards the side where the phase speed is lower (refraction), loses
// amplitude at Lamb's viscous rate exp(-2 nu k^2 t), splits in three when its ring has
// spread (Yuksel's subdivision), and reflects where the liquid ends, staying on its own
// layer of a multi-layer cell. Steps are of a fixed length (Settings.Step, 1/120 s by
// default) whatever the calls to Advance. The field sums each particle's separable raised
// cosine over the columns of its layer. docs/waves.md states every formula, number and
// decision.
//
// # Determinism and cost
//
// Particle states and displacements are bit-identical for any Settings.Workers and any
// way of splitting the time among Advance calls. Advance and Displacement allocate
// nothing once warm. A System keeps Workers-1 goroutines, which wait for the next job
// spinning for up to 50 us, then asleep; Close stops them (an unreachable System stops
// them too). A System is not safe for concurrent use.
package waves
