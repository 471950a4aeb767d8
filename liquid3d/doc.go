// Package liquid3d is a local 3D region of liquid: a box of cubic cells on a MAC grid
// (staggered velocities on the faces) with particles that carry the liquid, for where
// the liquid overturns (a pour, a splash, a wave breaking) inside the heightfield
// columns (docs/method.md, "The 3D region").
//
// The particles carry velocity and an affine velocity matrix (APIC) and a volume; the
// liquid's volume is the sum of their volumes, exactly: particles are never made or
// dropped except through AddParticles, Fill, the columns sides' inflow (Inflow) and the
// open and columns sides (TakeOutflow). A step moves the particles' momentum to the
// faces, adds gravity (and viscosity), makes the velocities divergence-free (the
// pressure projection: a conjugate gradient preconditioned with MIC(0); a ghost-fluid
// condition at the free surface, whose position comes from the particles' volume about
// each cell), extrapolates the velocities into the air, gives the particles their new
// velocities and moves them, in substeps a CFL number long. Solids come from a
// terrain.Solid sampled at the cells' corners: faces are open in the share the solid
// leaves them (free slip), particles are pushed out of it. Each side of the box is a
// wall, open, or (the four vertical ones) columns: heightfield columns beyond it, whose
// levels and velocities (SetSideColumns) prescribe the velocity of the side's faces
// below the levels and feed the liquid that flows in as particles (Inflow); above the
// levels the side is open.
//
// Work is split over workers (internal/parallel) so that the results are the same bits
// whatever their number.
package liquid3d
