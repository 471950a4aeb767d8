// Package terrain describes the solid the liquid flows over and turns it into what the
// solver and the renderer need: the column decomposition (Columns, Extract) and a
// triangle mesh of the surface (SurfaceMesh).
//
// # Units and axes
//
// SI throughout: lengths in metres. z is up. The domain (Domain) is the box
// [0, SizeX] x [0, SizeY] x [0, Height] cut into square cells of side Dx; cell (x, y) has
// its centre at ((x+0.5) Dx, (y+0.5) Dx). Domain.Grid rounds the sizes to whole cells.
//
// # Solids
//
// A Solid is a signed distance field: Dist(p) < 0 inside the solid, > 0 in free space
// (where liquid may be), 0 on the surface, which counts as solid. Box, Sphere, Cylinder
// and Plane give exact distances; Heightfield gives the vertical distance z - fn(x, y);
// LoadOBJ / ParseOBJ and LoadSTL read a triangle mesh, closed or open (see Meshes below); Union, Intersection, Difference,
// Translate, Rotate and Scale combine, move and resize them. Every constructor validates its arguments
// and names the bad one in its error. Bound (BoundOf, IsLipschitz) says how much Dist
// tells beyond its sign: Lipschitz (|Dist| never exceeds the distance to the surface),
// VerticalBound (the same along vertical lines only: heightfields) or SignOnly (a Solid
// of unknown origin); extraction takes longer steps the stronger the bound. Dist must be
// continuous and safe for concurrent use (Serialized wraps one that is not, such as a
// heightfield calling into Lua). A NaN distance or a panic in Dist is reported by Extract
// and SurfaceMesh as an error naming the point, never a crash. Both evaluate Dist only
// inside the domain box. ColumnsSolid turns columns back into a solid (blocky, SignOnly,
// not continuous across cells): Extract of it on its grid gives the columns back.
//
// # Meshes
//
// A closed mesh is solid inside by ray parity, whatever its winding. An open one (a scan
// with holes) is solid where its generalized winding number is at least 1/2, evaluated
// over the mesh's BVH with far nodes as dipoles (winding.go); MeshOpenEdges tells the
// caller to warn, and a mesh that encloses nothing is an error.
//
// Triangle meshes come from Wavefront OBJ (ReadOBJ, ParseOBJ, LoadOBJ) and STL files,
// binary or ASCII (ReadSTL, LoadSTL); LoadModel picks the format by the extension (.stl
// in any case: STL, anything else: OBJ). A file is first read into a Model, whose
// vertices can be transformed (units, up axis, placement) and measured (Bounds) before
// Model.Solid builds the solid: transforming the vertices is exact and costs nothing at
// evaluation time. An STL file is binary when its size is exactly 84 + 50 n bytes for
// the triangle count n in its header, even if the header begins with "solid" (many
// exporters write that); otherwise it must be ASCII ("solid", "facet", "outer loop",
// "vertex" lines, "endloop", "endfacet", "endsolid"). STL has no unit: coordinates are
// taken as metres unless the caller scales them. Errors name the file and the line (OBJ,
// ASCII STL) or the triangle counting from 1 (binary STL): a truncated file, a count that
// disagrees with the size, a coordinate that is NaN or infinite, no triangles, a model
// too large for the available memory (checked before allocating), every face of zero
// area, and an open mesh (an edge not shared by exactly two triangles; vertices at the
// same position are merged first, so STL's split vertices close). Facet normals and
// face winding are ignored: inside is decided by ray parity (see ParseOBJ).
//
// # Columns
//
// Extract casts a ray up each cell centre; every free interval along it is a column
// [Min, Max] with Base = Min (see docs/method.md, "State"). The domain floor z = 0 is a solid
// of zero thickness. Solids that can list their intervals along a line (every kind but
// a Solid of unknown type, an open mesh and a heightfield under a rotation that tilts
// the vertical, and combinations without those) give them exactly, at a fraction of the cost of
// marching their Dist up the line, which the others do. Interval ends are accurate to
// RootTolerance*Dx; free intervals thinner than SliverWidth*Dx are dropped; features
// thinner than MarchStep*Dx along the vertical may be missed. A cell with more free intervals than the layer limit keeps the
// topmost ones and counts the rest in Columns.Dropped. Columns invariants: within a
// column Min <= Base < Max; a cell's columns are sorted bottom to top and disjoint;
// 0 <= Min and Max <= Height; at most Layers per cell (Columns.Validate). MemoryEstimate
// and CheckMemory bound the columns' memory before anything is allocated (the solver's
// share is gpusim.MemoryEstimate's to add).
//
// # Surface mesh
//
// SurfaceMesh runs marching cubes of the distance field on a lattice of spacing Dx
// through the cell centres (the signs along each lattice column from the solid's
// intervals where it lists them, Dist evaluated only next to the surface) and returns an indexed mesh (float32 positions and unit
// normals pointing out of the solid, uint32 triangles wound counter-clockwise seen from
// outside). It meshes the solid together with a floor slab [-Dx, 0] cut to the domain
// box, so the mesh is closed and the domain floor shows where nothing covers it.
//
// # Determinism
//
// Extract and SurfaceMesh split their work over runtime.GOMAXPROCS goroutines; their
// results, and which error they report when several points fail, do not depend on the
// number of goroutines.
package terrain
