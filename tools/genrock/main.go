// Command genrock writes scripts/models/rock.stl, the model scripts/rock.lua imports: a
// smooth, lumpy rock 60 mm across, as a binary STL in millimetres with +y up, the way
// scans and CAD exports usually come (so the scenario exercises vp.mesh's scale, up and
// place). It is vpbench's own work, free to use.
//
//	go run ./tools/genrock -out scripts/models/rock.stl
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
)

type vec [3]float64

func norm(v vec) vec {
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	return vec{v[0] / l, v[1] / l, v[2] / l}
}

func mid(a, b vec) vec { return norm(vec{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}) }

// icosphere is the unit icosphere subdivided level times: vertices and triangles
// counter-clockwise seen from outside.
func icosphere(level int) ([]vec, [][3]int) {
	t := (1 + math.Sqrt(5)) / 2
	vs := []vec{{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}}
	for i := range vs {
		vs[i] = norm(vs[i])
	}
	fs := [][3]int{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}}
	for range level {
		cache := map[[2]int]int{}
		middle := func(a, b int) int {
			k := [2]int{min(a, b), max(a, b)}
			if i, ok := cache[k]; ok {
				return i
			}
			vs = append(vs, mid(vs[a], vs[b]))
			cache[k] = len(vs) - 1
			return len(vs) - 1
		}
		var next [][3]int
		for _, f := range fs {
			a, b, c := middle(f[0], f[1]), middle(f[1], f[2]), middle(f[2], f[0])
			next = append(next, [3]int{f[0], a, c}, [3]int{f[1], b, a}, [3]int{f[2], c, b}, [3]int{a, b, c})
		}
		fs = next
	}
	return vs, fs
}

func main() {
	out := flag.String("out", "scripts/models/rock.stl", "the STL file to write")
	level := flag.Int("level", 4, "icosphere subdivisions (4: 5,120 triangles)")
	flag.Parse()
	vs, fs := icosphere(*level)
	// The rock, in millimetres with +y up: radius 30 mm in x and z, 16 mm tall in y,
	// with smooth lumps; flattened a little underneath so it sits on a table.
	pos := make([]vec, len(vs))
	for i, v := range vs {
		x, y, z := v[0], v[1], v[2] // y is up
		lump := 1 + 0.12*math.Sin(3*x+1)*math.Cos(2*z) + 0.08*math.Sin(5*z+2*x) + 0.05*math.Cos(7*x-3*z)
		r := 30 * lump
		h := 16 * lump
		if y < -0.6 {
			y = -0.6 + 0.25*(y+0.6) // a flatter base: the bottom squeezed, still monotone
		}
		pos[i] = vec{r * x, h * y, r * z}
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	header := make([]byte, 80)
	copy(header, "vpbench rock: millimetres, +y up (tools/genrock)")
	buf := append([]byte{}, header...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(fs)))
	put := func(v vec) {
		for _, c := range v {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(c)))
		}
	}
	for _, t := range fs {
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		u := vec{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
		w := vec{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
		put(norm(vec{u[1]*w[2] - u[2]*w[1], u[2]*w[0] - u[0]*w[2], u[0]*w[1] - u[1]*w[0]}))
		put(a)
		put(b)
		put(c)
		buf = append(buf, 0, 0)
	}
	if _, err := f.Write(buf); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d triangles\n", *out, len(fs))
}
