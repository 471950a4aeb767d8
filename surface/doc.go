// Package surface builds the liquid surface of the extended virtual pipes method: the
// multi-layer surface mesh of paper Sec. 4 and the meniscus shading of Sec. 5, as
// docs/method.md states them ("Surface", "Meniscus shading").
//
//	b, err := surface.NewBuilder(cols, terrainMesh, surface.DefaultSettings())
//	m := b.Build(snapshot.Height) // every frame; m is b's, valid until the next Build
//	m.WritePLY(w)
//
// # Units and axes
//
// SI: metres, radians. z is up. Column i of cell (x, y) has its vertex at the cell
// centre ((x+0.5) dx, (y+0.5) dx). Heights h are absolute (gpusim.Snapshot.Height), one
// per column; a column is wet when h > b (its base) and dry otherwise (NaN counts as
// dry); h is clamped to [b, max].
//
// # What a frame does
//
//  1. Links (Sec. 4.1), 8-neighbourhood, recomputed every frame: columns i and j of
//     neighbouring cells are linked iff lo_j < h_i < max_j and lo_i < h_j < max_i, for
//     wet-wet and wet-dry pairs (a dry column's h is its base).
//  2. Boundaries (Sec. 4.3): a dry column linked to a wet one is a dry vertex at the mean
//     surface height of its linked wet neighbours. Where a wet column i has no link
//     towards a neighbour cell whose column j holds h_i in (lo_j, max_j) but max_i < b_j
//     (i faces j's wall, under an overhang), an extra vertex stands at j's cell centre,
//     linked to i and to i's linked wet neighbours that are next to j's cell and have no
//     link into it; its height is their mean.
//  3. Triangles (Sec. 4.2), per quartet of cells (x,y) (x+1,y) (x,y+1) (x+1,y+1): a group
//     of four mutually linked vertices gives 2 triangles, split along the diagonal whose
//     ends are both wet or both not, else whose ends have the larger height sum (a-d on
//     a tie); of the other vertices, each group of three mutually linked ones gives 1
//     triangle; pairs give nothing. Only triangles with a wet corner are kept, clipped
//     by the contour (below: Contour): the liquid ends between cells.
//  4. Heights (Sec. 4.4): a wet vertex sits at max(h, hmin) clamped to max, hmin =
//     b + max(0.05 dx, l) with l from the terrain mesh (below).
//  5. Normals from the surface heights, then the meniscus tilt, then the dry and extra
//     vertices' normals (mean of their linked wet neighbours'), then the camera cap;
//     the contact vertices take their wet vertex's normal.
//  6. Opacity min((h - b) / DepthMax, 1) for a wet vertex, from the true depth (not the
//     raised height); 0 for dry and extra vertices; a contact vertex's is its wet
//     vertex's.
//  7. The liquid's sides along the domain's sides (Settings.Sides; below: Sides).
//
// # Invariants of a Mesh
//
// Vertices: the wet columns in column order, then the dry vertices, then the extra
// vertices, then the contact vertices, then the sides' vertices (a vertex may be in no
// triangle). The surface's triangles come first in Indices, the sides' after them
// (Mesh.SideIndex). Every surface triangle has a wet corner, its three corners (a
// contact vertex read as the boundary vertex whose link it lies on) are mutually linked
// and lie in one quartet, and it is counter-clockwise seen from above. A contact vertex
// lies on its link, past minContact of the way from its wet vertex, no higher than it.
// Normals are unit; with Settings.Camera set none of the surface's faces away from the
// camera (n . (camera - p) >= 0; the sides' faces keep their outward normals). Opacity
// is in [0, 1]. A wet vertex lies in [b, max] of its column. No crack: in every
// quartet, each axis-aligned pair of a group of three mutually linked wet columns is an
// edge of a triangle of that quartet. A Build allocates nothing once its buffers have
// grown to the frame's size. The result does not depend on the number of goroutines.
//
// # Decisions (the papers leave these open or are ambiguous)
//
// Link range. The link test reads a column's range as [lo, max] with lo the top of the
// free interval below it in its cell (terrain.Columns.Max of the column below), or -Inf
// for a cell's lowest column: the range includes the solid the column rests on, as in
// the paper's Fig. 2 (and Kellomaki's layers). terrain.Columns.Min (== Base for every
// extracted column) is not read: with lo = Base a wet column could never link to a dry
// one on the same flat floor (the strict b_j > lo_i fails), a dry column on top of a
// wall could never link to the liquid at its foot (Sec. 4.3's "dry columns with a base
// significantly higher"), and the extra-vertex condition min_j < h_i, max_i < b_j could
// never hold.
//
// Boundary pairs. Two boundary vertices (dry or extra) in neighbouring cells are linked
// when some wet column is linked to both (and, for two dry columns, they pass the link
// test). The paper computes links for wet-wet and wet-dry pairs only; with that, the
// quartet rules' "both outside" diagonal priority and "only triangles with a wet
// vertex" could never apply, and the quartets along a wall or a dry edge would get one
// triangle of two (a saw-tooth crack between the liquid and the wall). linkBoundaryPairs
// in boundary.go switches this off.
//
// Overlapping groups of three. Two groups of three that share an axis edge overlap: the
// one whose third vertex is wet is kept; if both are wet both are kept (the surface
// folds: their third vertices are not linked); if neither is, the diagonal rule picks.
// One extra vertex per wall column; when two columns of one cell face the same wall, the
// first (lower) keeps the link.
//
// Minimum heights. eps = 0.01 dx. A terrain vertex belongs, in each cell of its quartet
// (the four cell centres around it, clamped to the grid at the domain's sides), to the
// column terrain.Columns.ColumnAt gives: the one whose free interval holds its height,
// else the one resting on the solid that holds it. Vertices whose normal points down
// (n_z < 0) are skipped, and so are those with a cell of the quartet without a column.
// The global minimum g = 0.05 dx is taken into account in the solve, as the paper says
// (against the large corrections of vertices next to a column centre): l_k = g + d_k,
// d minimising sum w_k d_k^2 subject to bilinear(b_k + g + d_k) = h_v + eps (closed
// form: R = h_v + eps - sum beta_k (b_k + g), d_k = R (beta_k / w_k) / sum beta_m^2 /
// w_m; w_k = dx / (h_v - b_k) for b_k <= h_v, 1e10 above); a vertex with R <= 0 needs
// nothing; one that would put b_k + l_k more than dx above the quartet's highest base is
// discarded (the paper's test), and so is one that would raise a column by more than dx
// (l_k > dx, ours): such a vertex is not a bump of the floor under shallow liquid but a
// wall or an overhang's face beside the column, and the paper's test alone kept it
// whenever a higher column stood in the quartet, so that a column at the foot of a wall
// was lifted nearly to the wall's top and, whenever wet, stood as a translucent sheet up
// the wall ("curtains": in the surgery scene around the vertebra, in front of the
// waterfall scene's shelf); l of a column is the maximum over its vertices.
//
// Contour (contour.go; docs/preview.md, "The liquid's edge"). The paper ends the
// surface at the dry vertices, a cell past the last wet column at full height: a cliff
// a cell wide, a staircase of cells. Each link from a first-ring wet vertex v to a dry
// vertex whose floor lies below v's surface (a floor link) has a contact vertex a
// fraction t = d / (d + L tan alpha) of the way (at least minContact = 0.05, at most 1;
// d v's depth, L the link's length, alpha the contact angle, at most 80 degrees):
// marching squares over the depth, the dry end taking the depth -L tan alpha. It stands
// on the floor (interpolated between the two bases, plus the global minimum depth, at
// most v's surface): the surface falls to it. A diagonal link's contact is moved onto
// the segment between its quartet's two axis crossings (as marching squares draws the
// contour there), so that a straight edge is not notched at every cell. Where the floor
// steps by more than L, t is at most 1/2 and the contact stands on v's floor (a ledge's
// edge: no sheet hung down its face). A link to a wall (a dry column whose floor is at
// or above v's surface, or an extra vertex) keeps the boundary vertex, which then stands
// at the mean surface height of the wet vertices it walls. The quartets' triangles are
// clipped as they are emitted: a triangle with a boundary corner keeps its wet corners
// and the crossings on its wet-to-boundary edges (one wet corner: one triangle; two: a
// quadrilateral split along the diagonal that keeps the larger smallest area). Contacts
// are numbered per link in first-ring order, placed in parallel (each writes its own),
// so the mesh does not depend on the number of workers.
//
// Convex edges (Settings.ConvexTilt, default false). With the contour the surface falls
// to the floor in its geometry, so the paper's tilt of a convex band (psi < 0) is off
// and the contacts take their wet vertex's normal: tilted 5 to 20 degrees over the band,
// the normals mirrored the preview's ring softbox as a pale rim inside every edge, which
// read as a torn edge (docs/preview.md has the measures). Concave bands (psi > 0: a wall)
// keep the paper's tilt and cap.
//
// Sides (sides.go, Settings.Sides, default true). The cell centres stop half a cell short
// of the domain's sides. For each wet vertex of a border cell the surface runs on flat to
// the side's plane (its normal) and a vertical face goes down from there to the
// column's floor (the side's outward normal), both following the surface along the side
// to the next border wet vertex or to where the surface stops (a contact, or a wall);
// the faces are counter-clockwise from outside. Mesh.SideTop is the highest border
// surface per side (the preview raises the walls' glass to it), Mesh.SideIndex where
// each side's triangles lie (the preview draws them along walled sides only).
//
// Falls (Settings.FallDrop). Where the solver lets liquid fall as particles, two wet
// columns are not linked when one's surface lies more than FallDrop below the other's
// floor: the liquid between them is in the air. The script layer sets FallDrop to the
// solver's release threshold while falling is "particles".
//
// Drops (Mesh.AppendDrops). The particles in the air follow the surface's vertices and
// triangles as icosahedra of their volume's radius (radial normals, outward faces,
// opacity radius/DepthMax); the invariants above are the surface's, before the drops.
//
// Liquid in the air (AirSurface; docs/preview.md, "Liquid in the air"). What the scene
// draws instead of AppendDrops: the drops as one liquid, the surface F = W(1/2) of the
// field F = sum_i W(q_i), W(q) = (1 - q^2)^3 for q < 1, q_i the distance to drop i in
// units of its kernel, an ellipsoid twice its radius and stretched along its velocity
// to 1 + |v| tau / (2 r) times its length, as much thinner (volume kept; tau 2 ms, at
// most 3). Marching cubes on a sparse lattice of spacing about the median radius (tiles
// of 32^3 cells where drops reach, a table whose cube faces are cut on their own: closed,
// outward, no cracks), vertices shared across tiles, normals from the field's gradient,
// opacity 1; the kernels made up for the facets' lost volume; a drop whose kernel meets
// no other's drawn as its ellipsoid from a template. Drops closer than about 2.5 radii
// merge, a stream is a rope, far drops stay drops. The mesh does not depend on the
// number of workers; Append allocates nothing once warm.
//
// Streams (airsurface_streams.go; docs/preview.md, "Streams: ropes, not beads"). The
// parcels that follow one another on one ballistic path (the same horizontal velocity
// and apex, one leaving T = dv_z / g after the other, T up to AirSettings.StreamTime)
// are one stream, left out of the lattice and drawn as a closed tube along their path
// (cubic Hermite links through the parcels with their velocities), its radius a jet's
// carrying their flow at the local speed, capped at both ends; beside another stream of
// the same sheet, as a flat strip of it, so that side by side they make one curtain.
//
// Normals. Central differences of the surface heights over the axis links (E-W, N-S),
// one-sided where one side has no link, flat where neither has: n = (-dz/dx, -dz/dy,
// 1) normalised. Triangles are wound counter-clockwise seen from above.
//
// Meniscus. First ring: wet vertices linked to a dry or an extra vertex; their NBC is
// the nearest such (axis before diagonal). The band: wet vertices within
// ceil(MeniscusLength/dx) - 1 link steps of the ring. Dead reckoning over the links
// (a vertex takes a linked vertex's NBC when that one's distance plus the step beats its
// own, then the Euclidean distance between cell centres to that NBC), sweeping the band
// in breadth-first order (Gauss-Seidel) until a sweep changes nothing, at most
// ceil(MeniscusLength/dx) sweeps. Direction to the boundary u: minus the central
// difference of the distance over the axis links (boundary vertices count 0, vertices
// outside the band are missing: one-sided), the direction to the NBC if that vanishes.
// Solid tilt beta = atan2(b_NBC - b_i, d) (b of the wall column for an extra vertex);
// psi = beta - ContactAngle, clamped to +-90 degrees. The normal turns by psi (1 -
// d/MeniscusLength) about the horizontal axis perpendicular to u, a positive angle away
// from the boundary (a surface rising towards it: concave). ContactAngle defaults to 30
// degrees: a flat floor (beta = 0) gives a convex edge, a vertical wall a concave one.
// A convex band is tilted only with Settings.ConvexTilt (above: Convex edges).
//
// Convex cap (Settings.Camera). Per band vertex, with v the unit vector to the camera:
// when the contact normal (turned by psi) would pass orthogonal to v, psi is cut to the
// first angle where it is orthogonal, then interpolated as above. Last, every normal with
// n . v < 0 (a steep surface seen from below its tangent plane, say) is turned towards v
// to just past orthogonal, so that none faces away.
//
// # Cost and parallelism
//
// NewBuilder precomputes what depends only on the terrain: link ranges, where each
// column's link search starts in each neighbour cell, the minimum heights. A frame is
// one pass over the columns, then passes over the wet vertices and the quartets of
// cells holding one; per-vertex state is stored in vertex order, so the cost follows the
// wet part of the terrain. Passes with enough work are split over up to GOMAXPROCS
// goroutines (at most 8), each writing only what its items own and joining lists in a
// fixed order: the result is bit-identical for any number of goroutines. The link test
// is symmetric, so it runs in four directions and writes each link both ways. The
// meniscus's dead reckoning is sequential: it runs on one goroutine while the others
// triangulate, and whoever is done first sets normals (docs/benchmarks.md has the
// figures).
package surface
