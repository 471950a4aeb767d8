package surface

import "math"

// AirSurface's kernels (airsurface.go): the splat, the drops' planes' ranges, the rows'
// masks and the lone drops' template. The Go ones here are the reference; on amd64 the
// same in AVX2 assembly (airsurface_splat_amd64.s) give the same bits
// (TestAirSplatAVX2MatchesGo), and write nothing outside their output
// (TestAirKernelsGuards). Which run is a value, airKernels, that each AirSurface holds
// (docs/kernels.md).

// airKernels is a choice of AirSurface's kernels (newAirKernels): the AVX2 ones
// (vector) or their Go twins, the zero value. Its methods (splat, rowMask, planes,
// lone; in airsurface_splat_amd64.go and airsurface_splat_other.go) dispatch once a
// call.
type airKernels struct {
	vector bool
}

// airSplatArgs is a drop's kernel in a tile's buffer: o, the buffer's coordinates of
// the low corner of the drop's box; lo..hi, the part of the box in the buffer; the
// kernel's matrix (xx yy zz xy xz yz) and its centre less the box's low corner.
type airSplatArgs struct {
	o, lo, hi [3]int32
	m         [6]float32
	c         [3]float32
}

// airSplatGo adds the kernel to the buffer's planes lo[2], lo[2] + 1, ...: in plane
// lo[2] + j, to the rows and columns the plane's range pl[j] gives (airDrop.pc), within
// lo..hi; and marks the rows it writes in written.
func airSplatGo(field []float32, written *[airRowWords]uint64, pl []uint32, a *airSplatArgs) {
	for j, r := range pl {
		y0, y1 := max(int32(r&255)+a.o[1], a.lo[1]), min(int32(r>>8&255)+a.o[1], a.hi[1])
		x0, x1 := max(int32(r>>16&255)+a.o[0], a.lo[0]), min(int32(r>>24)+a.o[0], a.hi[0])
		if y0 <= y1 && x0 <= x1 {
			airSplatPlane(field, written, a.lo[2]+int32(j), y0, y1, x0, x1, a)
		}
	}
}

// airSplatPlane adds the kernel to rows y0..y1, points x0..x1, of plane z of the
// buffer, and marks the rows in written. Along a row, q^2 = (mxx dx + rb) dx + rc, rb
// and rc from the row's dy and the plane's dz (airPlaneGo).
func airSplatPlane(field []float32, written *[airRowWords]uint64, z, y0, y1, x0, x1 int32, a *airSplatArgs) {
	dz := float32(z-a.o[2]) - a.c[2]
	p := airPlaneParams{cx: a.c[0], cy: a.c[1], mxx: a.m[0], mxy: a.m[3], myy: a.m[1],
		bz: a.m[4] * dz, cyz: 2 * a.m[5] * dz, czz: a.m[2] * dz * dz}
	airPlaneGo(field[z*airDim2+y0*airDim+x0:z*airDim2+y1*airDim+x1+1], int(y1-y0+1), int(x1-x0+1), x0-a.o[0], y0-a.o[1], &p)
	r0, r1 := z*airDim+y0, z*airDim+y1 // bits r0..r1 of written
	w0, w1 := r0>>6, r1>>6
	m0, m1 := ^uint64(0)<<(r0&63), ^uint64(0)>>(63-r1&63)
	if w0 == w1 {
		written[w0] |= m0 & m1
	} else {
		written[w0] |= m0
		written[w1] |= m1 // rows span at most 35 bits: two words
	}
}

// airPlaneParams are a plane's numbers for airPlaneGo: the drop's centre (less its
// box's low corner) in x and y, its matrix's xx, xy and yy, and mxz dz, 2 myz dz and
// mzz dz^2.
type airPlaneParams struct {
	cx, cy, mxx, mxy, myy, bz, cyz, czz float32
}

// airPlaneGo adds a drop's kernel to rows rows of n points of a plane, row r at
// f[r*airDim:]: at point j of row r, dx = float32(xs + j) - cx and dy = float32(ys + r) -
// cy, q^2 = (mxx dx + rb) dx + rc with rb = 2 (mxy dy + bz) and rc = (myy dy + cyz) dy +
// czz, it adds max(0, 1 - q^2)^3.
func airPlaneGo(f []float32, rows, n int, xs, ys int32, p *airPlaneParams) {
	for r := range rows {
		dy := float32(ys+int32(r)) - p.cy
		b, c := 2*(p.mxy*dy+p.bz), (p.myy*dy+p.cyz)*dy+p.czz
		row := f[r*airDim : r*airDim+n]
		for j := range row {
			dx := float32(xs+int32(j)) - p.cx
			v := 1 - ((p.mxx*dx+b)*dx + c)
			bits := math.Float32bits(v)
			v = math.Float32frombits(bits &^ uint32(int32(bits)>>31)) // 0 beyond the kernel: no branch
			row[j] += v * v * v
		}
	}
}

// airRowPad is how many values a tile buffer holds past its points: airRowMaskAVX2
// reads five vectors of eight from a row's start.
const airRowPad = 5*8 - airDim

// airRowMaskGo returns the inside points of the row of field at row*airDim (F >= iso),
// bit x for point x.
func airRowMaskGo(field []float32, row int32) uint64 {
	var m uint64
	for x, f := range field[row*airDim : row*airDim+airDim] {
		// F >= iso: the difference's sign bit clear (exact: no rounding turns it).
		m |= uint64(^math.Float32bits(f-airIso)>>31) << x
	}
	return m
}

// airPlanesArgs are a drop's numbers for its planes' ranges (planes): its centre less
// its box's low corner, its pk (airDrop) and its box's width less one in x and y.
type airPlanesArgs struct {
	c      [3]float32
	pk     [5]float32
	wx, wy int32
}

// airPlanesGo sets dst[z] to the range of plane z of a drop's box (airDrop.pc): with dz
// = z - cz and t = 1 - dz^2/nzz, the rows from ceil(yc - hy) to floor(yc + hy) and the
// columns from ceil(xc - hx) to floor(xc + hx), clamped to the box, where xc = cx +
// nxz/nzz dz and hx = sqrt(Ax t) (so for y); 1 (none) where t <= 0 or either is empty.
func airPlanesGo(dst []uint32, a *airPlanesArgs) {
	inzz, nxz, nyz, sax, say := a.pk[0], a.pk[1], a.pk[2], a.pk[3], a.pk[4]
	for z := range dst {
		dz := float32(z) - a.c[2]
		r := uint32(1)
		if t := 1 - dz*dz*inzz; t > 0 {
			st := float32(math.Sqrt(float64(t)))
			hx, hy := sax*st, say*st
			xc, yc := a.c[0]+nxz*dz, a.c[1]+nyz*dz
			x0, x1 := max(int32(airCeil(xc-hx)), 0), min(int32(airFloor(xc+hx)), a.wx)
			y0, y1 := max(int32(airCeil(yc-hy)), 0), min(int32(airFloor(yc+hy)), a.wy)
			if x0 <= x1 && y0 <= y1 {
				r = uint32(y0) | uint32(y1)<<8 | uint32(x0)<<16 | uint32(x1)<<24
			}
		}
		dst[z] = r
	}
}

func airCeil(x float32) float32  { return float32(math.Ceil(float64(x))) }
func airFloor(x float32) float32 { return float32(math.Floor(float64(x))) }

// airLoneArgs are a lone drop's numbers for airLoneGo (lonePut): its centre, its
// ellipsoid's semi-axes along and across its direction u, and its normals' parts along
// and across.
type airLoneArgs struct {
	x, y, z, ra, rb, na, nb float32
	u                       [3]float32
}

// airLoneGo writes the template (airLoneVerts) mapped onto the drop's ellipsoid into pos
// and nor, with the ellipsoid's normals.
func airLoneGo(pos, nor []float32, p *airLoneArgs) {
	u, ra, rb, na, nb := p.u, p.ra, p.rb, p.na, p.nb
	pos, nor = pos[:3*len(airLoneVerts)], nor[:3*len(airLoneVerts)]
	for j := range airLoneVerts {
		t := &airLoneVerts[j]
		ut := u[0]*t[0] + u[1]*t[1] + u[2]*t[2] // 0 at rest
		pos[3*j] = p.x + ra*ut*u[0] + rb*(t[0]-ut*u[0])
		pos[3*j+1] = p.y + ra*ut*u[1] + rb*(t[1]-ut*u[1])
		pos[3*j+2] = p.z + ra*ut*u[2] + rb*(t[2]-ut*u[2])
		n := [3]float32{na*ut*u[0] + nb*(t[0]-ut*u[0]), na*ut*u[1] + nb*(t[1]-ut*u[1]), na*ut*u[2] + nb*(t[2]-ut*u[2])}
		l := 1 / float32(math.Sqrt(float64(n[0]*n[0]+n[1]*n[1]+n[2]*n[2])))
		nor[3*j], nor[3*j+1], nor[3*j+2] = n[0]*l, n[1]*l, n[2]*l
	}
}

// airLoneSoA is the template's vertices (airLoneVerts), their x, y and z each in a row,
// and zeros past them to a multiple of 8 (airLoneAVX2).
var airLoneSoA = func() (t [3][48]float32) {
	for j, v := range &airLoneVerts {
		t[0][j], t[1][j], t[2][j] = v[0], v[1], v[2]
	}
	return t
}()
