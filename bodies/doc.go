// Package bodies is vpbench's rigid bodies in the liquid: things that float (a swab on
// blood, a leaf on a creek, a toy boat) or sink, carried by the flow, righting
// themselves, touching the terrain and each other, and pushing the liquid back
// (docs/bodies.md for the model and its decisions).
//
// # Model
//
// A body is a solid (any terrain.Solid) of uniform density, sampled once on a lattice
// of points in its own frame (Shape): each point is a cell of the lattice that lies
// inside the solid, with the cell's volume. Mass, centre of mass and inertia are the
// points' sums, so that weight and buoyancy are computed from the same volume. Each
// update (World.Step) the points are placed in the world; each one in the liquid:
//
//   - is pushed up by the weight of the liquid it displaces (Archimedes), rho g V f,
//     where f in [0, 1] is its submerged share: the column's surface height h against
//     the point's height, smoothed over the point's vertical extent;
//   - is dragged towards the liquid's velocity at its height (the column's depth-averaged
//     velocity times the half-parabolic profile of a viscous film, 1.5x at the surface),
//     by rho_l V (f Drag + (1 - f) AirDrag) (u - v);
//   - adds its submerged volume f V to its column's displacement.
//
// Forces at the points give the torques: a body rights itself and rocks. Drag and the
// buoyancy's stiffness are integrated implicitly (a thin, light body is a stiff spring
// on the surface), gravity and the rest explicitly. Contacts keep the body's boundary
// points out of the terrain (the columns' solid space, as the liquid sees it) and out of
// other bodies (their solids' distance), with impulses (restitution, Coulomb friction)
// and a position correction.
//
// # Two-way coupling
//
// The columns' displacements are what the solver lifts its floors by
// (gpusim.Sim.LiftFloors): the body's submerged volume becomes solid under the column's
// liquid, the column's head grows by it, and the liquid flows away until the level
// around the body has risen by the displaced volume. Because the displacement is
// measured against the surface it raised, the update is an integral controller that
// settles where the liquid under the body meets its bottom and the column's surface
// meets the level around: there the buoyancy is Archimedes'. The liquid's volume is
// untouched by a lift.
//
// # Units and invariants
//
// SI throughout: metres, seconds, kilograms, newtons. The results do not depend on the
// number of workers (the bodies update on one goroutine, in the order they were made)
// nor on how a run is cut into frames (the scene updates them every fixed number of
// solver steps).
package bodies
