package terrain

// Marching-cubes case tables.
//
// Corner c of a cube sits at offset (c&1, c>>1&1, c>>2&1) cells from its lowest corner.
// Edges 0-3 run along x from corners 0, 2, 4, 6; edges 4-7 along y from corners 0, 1, 4,
// 5; edges 8-11 along z from corners 0, 1, 2, 3. A case is the 8-bit set of solid
// corners; mcCases[case] lists its triangles as triples of edges.
//
// The 256 cases are the classic ones of Lorensen & Cline (as tabulated by Paul Bourke),
// derived here from the cube's faces instead of typed in: on each face, every crossing
// where the solid ends (walking the face's corners counter-clockwise seen from outside
// the cube) is joined to the crossing where the solid began before it. That cuts the
// solid corners of an ambiguous face apart (free space stays connected across it), the
// same decision for both cubes sharing the face, so the surface has no cracks. Joined
// segments form closed loops, each triangulated as a fan, wound counter-clockwise seen
// from free space.

// mcEdgeCorners gives each edge's two corners, the lower one first.
var mcEdgeCorners = [12][2]uint8{
	{0, 1}, {2, 3}, {4, 5}, {6, 7},
	{0, 2}, {1, 3}, {4, 6}, {5, 7},
	{0, 4}, {1, 5}, {2, 6}, {3, 7},
}

// mcCases lists the triangles of each case.
var mcCases = buildMCCases()

func buildMCCases() (cases [256][]uint8) {
	var edgeOf [8][8]int8
	for e, c := range mcEdgeCorners {
		edgeOf[c[0]][c[1]], edgeOf[c[1]][c[0]] = int8(e), int8(e)
	}
	// faces lists each face's corners counter-clockwise seen from outside the cube.
	var faces [6][4]uint8
	for a := range 3 {
		u, w := (a+1)%3, (a+2)%3
		for side := range 2 {
			f := &faces[2*a+side]
			for q, o := range [4][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				f[q] = uint8(side<<a | o[0]<<u | o[1]<<w) // counter-clockwise seen from +a
			}
			if side == 0 { // the face looks towards -a: reverse
				f[1], f[3] = f[3], f[1]
			}
		}
	}
	for cfg := range 256 {
		solid := func(c uint8) bool { return cfg>>c&1 == 1 }
		next := [12]int8{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
		for _, f := range faces {
			for q := range 4 {
				c0, c1 := f[q], f[(q+1)%4]
				if !solid(c0) || solid(c1) {
					continue // not where the solid ends
				}
				for back := 1; back < 4; back++ {
					r := (q + 4 - back) % 4
					if d0, d1 := f[r], f[(r+1)%4]; !solid(d0) && solid(d1) {
						next[edgeOf[c0][c1]] = edgeOf[d0][d1]
						break
					}
				}
			}
		}
		var tris []uint8
		var seen [12]bool
		for e := range 12 {
			if next[e] < 0 || seen[e] {
				continue
			}
			var loop []uint8
			for f := int8(e); !seen[f]; f = next[f] {
				seen[f] = true
				loop = append(loop, uint8(f))
			}
			// The loop runs with the solid on its left seen from outside the cube, so
			// its own winding faces into the solid: emit the fan reversed.
			for i := 1; i+1 < len(loop); i++ {
				tris = append(tris, loop[0], loop[i+1], loop[i])
			}
		}
		cases[cfg] = tris
	}
	return cases
}
