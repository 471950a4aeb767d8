package validate

import "math"

// wetShape describes the wet columns of a one-layer grid: how many separate pieces they
// form, how many dry holes they enclose, their area and their centroid.
type wetShape struct {
	Pieces, Holes int
	Area          float64 // m^2
	CX, CY        float64 // the liquid's centroid (volume-weighted), m
	Volume        float64 // m^3 on the columns
}

// shapeOf measures the wet columns (depth above dry) of an nx x ny grid of cells dx wide,
// one column a cell: pieces are 4-connected wet components, holes 8-connected dry
// components that do not reach the grid's border.
func shapeOf(nx, ny int, dx float64, depth []float64, dry float64) wetShape {
	var s wetShape
	wet := make([]bool, nx*ny)
	for i, d := range depth {
		wet[i] = d > dry
		if wet[i] {
			s.Area += dx * dx
			v := d * dx * dx
			s.Volume += v
			s.CX += v * (float64(i%nx) + 0.5) * dx
			s.CY += v * (float64(i/nx) + 0.5) * dx
		}
	}
	if s.Volume > 0 {
		s.CX /= s.Volume
		s.CY /= s.Volume
	}
	seen := make([]bool, nx*ny)
	stack := make([]int, 0, 64)
	flood := func(start int, want bool, diag bool) (border bool) {
		stack = append(stack[:0], start)
		seen[start] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%nx, i/nx
			if x == 0 || y == 0 || x == nx-1 || y == ny-1 {
				border = true
			}
			for oy := -1; oy <= 1; oy++ {
				for ox := -1; ox <= 1; ox++ {
					if (ox == 0 && oy == 0) || (!diag && ox != 0 && oy != 0) {
						continue
					}
					xx, yy := x+ox, y+oy
					if xx < 0 || yy < 0 || xx >= nx || yy >= ny {
						continue
					}
					j := yy*nx + xx
					if !seen[j] && wet[j] == want {
						seen[j] = true
						stack = append(stack, j)
					}
				}
			}
		}
		return border
	}
	for i := range wet {
		if seen[i] {
			continue
		}
		if wet[i] {
			flood(i, true, false)
			s.Pieces++
		} else if !flood(i, false, true) {
			s.Holes++
		}
	}
	return s
}

// EquivalentRadius is the radius of the disc of the shape's area, m.
func (s wetShape) EquivalentRadius() float64 { return math.Sqrt(s.Area / math.Pi) }
