package surface

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vpbench/vpbench/terrain"
)

// randomLayers makes an nx x ny terrain of 1 to layers columns a cell, each column's
// base and top random (mm, rising column over column), and random heights: dry, wet,
// or full to the top, so that links are found between every kind of pair.
func randomLayers(t testing.TB, rng *rand.Rand, nx, ny, layers int) (*terrain.Columns, []float32) {
	cells := make([][]terrain.Interval, nx*ny)
	for i := range cells {
		n := 1 + rng.IntN(layers)
		z := rng.Float64() * 2
		for k := range n {
			base := z
			top := base + 0.5 + rng.Float64()*3
			if k == n-1 {
				top = 30
			}
			cells[i] = append(cells[i], iv(base, top))
			z = top + 0.3 + rng.Float64()*2
			if z > 27 {
				break
			}
		}
	}
	c := grid(t, nx, ny, cells...)
	h := make([]float32, c.NumColumns())
	for i := range h {
		b, m := float64(c.Base[i]), math.Min(float64(c.Max[i]), 29*mm)
		switch r := rng.Float64(); {
		case r < 0.3:
			h[i] = c.Base[i]
		case r < 0.4:
			h[i] = c.Max[i] // full
		default:
			h[i] = float32(b + rng.Float64()*(m-b)*0.8)
		}
	}
	return c, h
}

// TestLinksMatchTheirDefinition checks every link of every wet vertex, on random
// multi-layer states, against the paper's test done by brute force: wet column i links
// the column j of a neighbour cell when each one's surface height lies inside the other's
// link range (lo, max) (lo: the top of the column below, -inf for the lowest; the height
// of a dry column is its base). The link is then to j's vertex, wet or dry; where no
// column links, the slot is empty or holds an extra vertex (a wall i faces).
func TestLinksMatchTheirDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 12 {
		c, h := randomLayers(t, rng, 9+round%4, 8+round%3, 1+round%4)
		for _, workers := range []int{1, 3} {
			b, err := newBuilderWorkers(c, nil, DefaultSettings(), workers)
			if err != nil {
				t.Fatal(err)
			}
			b.pool.force = workers > 1
			b.Build(h)
			checkLinks(t, b, c, h, round)
			b.pool.stop()
		}
	}
}

func checkLinks(t *testing.T, b *Builder, c *terrain.Columns, h []float32, round int) {
	t.Helper()
	lo := func(k int) float32 {
		x, y := b.cellOf(int32(k))
		if first, _ := c.Cell(int(x), int(y)); k > first {
			return c.Max[k-1]
		}
		return float32(math.Inf(-1))
	}
	hc := func(k int) float32 {
		if h[k] > c.Base[k] {
			return min(h[k], c.Max[k])
		}
		return c.Base[k]
	}
	links, dry := 0, 0
	for v, i := range b.wetList {
		x, y := b.cellOf(i)
		for d := range 8 {
			got := b.L(int32(v), d)
			nx, ny := int(x+dirX[d]), int(y+dirY[d])
			want := int32(-1)
			if nx >= 0 && ny >= 0 && nx < c.Nx && ny < c.Ny {
				first, end := c.Cell(nx, ny)
				for j := first; j < end; j++ {
					if lo(j) < hc(int(i)) && hc(int(i)) < c.Max[j] && lo(int(i)) < hc(j) && hc(j) < c.Max[i] {
						want = b.vertexOfNode(int32(j))
						if want < 0 {
							t.Fatalf("round %d: column %d links column %d, which has no vertex", round, i, j)
						}
					}
				}
			}
			extra := got >= int32(len(b.wetList)+len(b.dryList))
			switch {
			case want >= 0 && got != want:
				t.Fatalf("round %d: vertex %d (column %d) direction %d: link %d, the definition says %d", round, v, i, d, got, want)
			case want < 0 && got >= 0 && !extra:
				t.Fatalf("round %d: vertex %d (column %d) direction %d: link %d where no column links", round, v, i, d, got)
			}
			if want >= 0 {
				links++
				if !b.isWet(want) {
					dry++
				}
			}
		}
	}
	if links == 0 || dry == 0 {
		t.Fatalf("round %d: %d links, %d to dry columns: the random state tests too little", round, links, dry)
	}
}
