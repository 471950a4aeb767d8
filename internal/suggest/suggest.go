// Package suggest finds the name a user most likely meant when they misspell one (a flag,
// a command, a script's field): the "did you mean" of the command line and of the Lua
// binding's errors.
package suggest

// Distance is the optimal string alignment (restricted Damerau-Levenshtein) distance
// between a and b: the least bytes inserted, dropped, changed or swapped (two
// neighbours) that turn one into the other.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)  // row i-1
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Closest is the candidate name most likely meant: the nearest to name within a
// Distance of 2 (1 for names of 4 bytes or fewer, where 2 would match nearly anything),
// both compared as norm makes them (nil: as they are), the first of equally near ones;
// ok is false when none is that near.
func Closest(name string, candidates []string, norm func(string) string) (best string, ok bool) {
	if norm == nil {
		norm = func(s string) string { return s }
	}
	n := norm(name)
	limit := 2
	if len(n) <= 4 {
		limit = 1
	}
	bestD := limit + 1
	for _, c := range candidates {
		if d := Distance(n, norm(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD <= limit
}
