package preview

// liquidRanges sets into dst the ranges [from, to) of a frame's n liquid indices that
// are drawn, merged where they meet, and returns their number: all of them, but the
// liquid's sides (surface.Mesh.SideIndex, in sideIndex) only along walled sides
// (walls). Against a wall the liquid stands as a body under the glass; at an open side
// it runs off the domain's edge, and a face there would stand in the air. An invalid
// or empty sideIndex (a frame made by hand) draws everything.
func liquidRanges(dst *[6][2]int32, sideIndex [5]int, walls [4]bool, n int) int {
	valid := sideIndex[4] <= n && sideIndex[4] > sideIndex[0]
	for s := range 4 {
		valid = valid && sideIndex[s] <= sideIndex[s+1]
	}
	if !valid {
		dst[0] = [2]int32{0, int32(n)}
		return 1
	}
	k := 0
	add := func(from, to int) {
		if to <= from {
			return
		}
		if k > 0 && int(dst[k-1][1]) == from {
			dst[k-1][1] = int32(to)
			return
		}
		dst[k] = [2]int32{int32(from), int32(to)}
		k++
	}
	add(0, sideIndex[0])
	for s, walled := range walls {
		if walled {
			add(sideIndex[s], sideIndex[s+1])
		}
	}
	add(sideIndex[4], n)
	return k
}
