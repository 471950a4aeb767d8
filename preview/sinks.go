package preview

import (
	"math"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

// Sinks' marks (docs/preview.md, "Sinks"). A sink takes liquid from a disc of columns:
// around it the liquid has a round dry hole with nothing in it to say why. Each sink
// (Frame.Sinks, scene.Scene.Sinks) is drawn on the floor as a drain: a dark hole with a
// grate, in a light metal rim, the disc's size. The mark is a decal: the terrain's own
// triangles (as drawn: the simplified copy on a software renderer) around the sink,
// facing up and near its floor, drawn again over the terrain in the decal's shader
// (sinkFS), which cuts the disc out of them by each fragment's place. So it lies on the
// floor wherever that is curved or stepped, and is drawn before the liquid, which is
// seen over it.

// sinkBand is how far above and below a sink's floor (Sink.Z) a triangle may reach and
// still be taken for the floor, in the sink's radius and in metres: the floor a sink
// picks is its column's base at its centre, and the terrain as drawn lies within a cell
// of it; a ledge or overhang higher or lower is not the floor.
const (
	sinkBandRadii = 0.5
	sinkBandAbs   = 0.0005
	// sinkMinUp: a triangle is floor when its normal's z is at least this (a wall is not).
	sinkMinUp = 0.3
)

// sinkDecal is the sinks' marks as triangles: three corners each, their position,
// normal and place on their sink's disc ((x, y) less the disc's centre, over its radius).
type sinkDecal struct {
	pos, nrm, disc []float32
}

// build makes the decal of sinks on the terrain mesh m, reusing its arrays.
func (d *sinkDecal) build(m *terrain.Mesh, sinks []scene.Sink) {
	d.pos, d.nrm, d.disc = d.pos[:0], d.nrm[:0], d.disc[:0]
	if m == nil {
		return
	}
	p, nm := m.Positions, m.Normals
	for _, s := range sinks {
		if !(s.Radius > 0) {
			continue
		}
		band := sinkBandRadii*s.Radius + sinkBandAbs
		ir := 1 / s.Radius
		for t := 0; t+2 < len(m.Indices); t += 3 {
			var c [3][3]float64
			lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			for k := range 3 {
				v := m.Indices[t+k]
				for ax := range 3 {
					c[k][ax] = float64(p[3*v+uint32(ax)])
					lo[ax], hi[ax] = min(lo[ax], c[k][ax]), max(hi[ax], c[k][ax])
				}
			}
			// Its box must meet the disc and lie in the floor's band.
			dx := max(lo[0]-s.X, 0, s.X-hi[0])
			dy := max(lo[1]-s.Y, 0, s.Y-hi[1])
			if dx*dx+dy*dy > s.Radius*s.Radius || lo[2] > s.Z+band || hi[2] < s.Z-band {
				continue
			}
			u := [3]float64{c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]}
			w := [3]float64{c[2][0] - c[0][0], c[2][1] - c[0][1], c[2][2] - c[0][2]}
			fz := u[0]*w[1] - u[1]*w[0]
			fl := math.Sqrt(sq(u[1]*w[2]-u[2]*w[1]) + sq(u[2]*w[0]-u[0]*w[2]) + fz*fz)
			if !(fl > 0) || fz < sinkMinUp*fl {
				continue
			}
			for k := range 3 {
				v := m.Indices[t+k]
				d.pos = append(d.pos, p[3*v], p[3*v+1], p[3*v+2])
				d.nrm = append(d.nrm, nm[3*v], nm[3*v+1], nm[3*v+2])
				d.disc = append(d.disc, float32((c[k][0]-s.X)*ir), float32((c[k][1]-s.Y)*ir))
			}
		}
	}
}

func sq(x float64) float64 { return x * x }
