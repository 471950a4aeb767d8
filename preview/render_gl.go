//go:build cgo && !nopreview

package preview

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/vpbench/vpbench/terrain"
)

// renderer draws frames with OpenGL 3.3 core in the context current on the calling
// thread. Its buffers are reused: positions, normals and opacity go up with
// glBufferSubData every frame, the indices only when the topology changed, the terrain
// only when it changed, the floating bodies every frame (they move; a few thousand
// vertices); a buffer grows (by half again) when a frame outgrows it.
type renderer struct {
	terrainProg, liquidProg uint32
	tu, lu                  uniforms

	terrainVAO              uint32
	tPos, tNrm, tIdx        buffer
	terrainCount            int32
	terrainVersion          uint64
	terrainMesh             *terrain.Mesh // the mesh uploaded (identity and version tell a change)
	liquidVAO               uint32
	lPos, lNrm, lOp, lIdx   buffer
	liquidCount             int32
	topology                uint64
	haveLiquid, haveTerrain bool
	depthMax                float32     // the uploaded frame's (m)
	sigma                   [3]float32  // the uploaded frame's extinction (1/m, Frame.Absorption)
	vp                      [16]float32 // the frame's matrix (here, so that passing it to GL allocates nothing)
	// terrainBudget is the most terrain triangles drawn (displayMesh): SoftwareTriangleBudget
	// on a software renderer, 0 (all) on a GPU.
	terrainBudget int
	// terrainDrawn is the mesh drawn for terrainMesh (itself, or its simplified copy).
	terrainDrawn *terrain.Mesh
	// shadow is the key light's depth map of terrainDrawn; nil where it could not be
	// made (then nothing is shadowed).
	shadow *shadowMap
	// software: GL runs on the CPU (Mesa llvmpipe and the like).
	software bool
	// shadowsOff leaves the shadow out (the window's S key; off by default in a window
	// on a software renderer, where it costs a third of a frame).
	shadowsOff bool
	// The walls' glass rim (Frame.Walls): its program, its quads (two triangles a walled
	// side, no index) and what they were made for.
	wallProg         uint32
	wu               wallUniforms
	wallVAO          uint32
	wPos, wNrm       buffer
	wallCount        int32
	wallTop          float32
	wallKey          wallKey
	wallVerts, wallN []float32 // scratch for the quads' vertices
	// The floating bodies (Frame.BodyPositions...): their program, buffers and triangles'
	// index count (0: none), their box, and a number that changes with every upload of
	// them (the shadow map draws them again then).
	bodyProg               uint32
	bu                     uniforms
	bodyVAO                uint32
	bPos, bNrm, bCol, bIdx buffer
	bodyCount              int32
	bodyLo, bodyHi         [3]float64
	bodySeq                uint64
	// box is the last uploaded frame's domain (Frame.Box): with bodies, the shadow map
	// is fitted to it as well, so that a body anywhere in the domain casts its shadow.
	box Box
	// behind is the picture before the liquid, which the liquid composites against.
	behind behindCopy
	// liquidRanges are the ranges of the liquid's indices drawn (liquidRanges): all of
	// them, or all but the liquid's sides along open sides of the domain.
	liquidRanges [6][2]int32
	nRanges      int
	// marks are the sinks' marks (sinks_gl.go).
	marks sinkMarks
}

// wallUniforms are the wall program's uniform locations.
type wallUniforms struct{ viewProj, eye, top, edge int32 }

// wallKey is what the walls' quads are made from.
type wallKey struct {
	box   Box
	walls [4]bool
	top   float32
}

// buffer is a GL buffer object and its capacity in bytes.
type buffer struct {
	id     uint32
	target uint32
	cap    int
}

// upload writes data (n bytes at p) into the buffer, growing it first if needed.
func (b *buffer) upload(p unsafe.Pointer, n int) {
	gl.BindBuffer(b.target, b.id)
	if n > b.cap {
		b.cap = max(n, b.cap+b.cap/2, 1024)
		gl.BufferData(b.target, b.cap, nil, gl.DYNAMIC_DRAW)
	}
	if n > 0 {
		gl.BufferSubData(b.target, 0, n, p)
	}
}

// uniforms are a program's uniform locations (-1 when the program lacks one).
type uniforms struct {
	viewProj, eye, lightDir, color, sigma, depthMax, checker int32
	// The key light's shadow (shadowMap.bind).
	lightViewProj, shadow, shadowOn, shadowOffset, shadowTexel int32
	// The picture behind the liquid (behindCopy.bind).
	behind, behindOn int32
}

func (u *uniforms) find(prog uint32) {
	loc := func(name string) int32 { return gl.GetUniformLocation(prog, gl.Str(name+"\x00")) }
	u.viewProj = loc("uViewProj")
	u.eye = loc("uEye")
	u.lightDir = loc("uLightDir")
	u.color = loc("uColor")
	u.sigma = loc("uSigma")
	u.depthMax = loc("uDepthMax")
	u.checker = loc("uChecker")
	u.lightViewProj = loc("uLightViewProj")
	u.shadow = loc("uShadow")
	u.shadowOn = loc("uShadowOn")
	u.shadowOffset = loc("uShadowOffset")
	u.shadowTexel = loc("uShadowTexel")
	u.behind = loc("uBehind")
	u.behindOn = loc("uBehindOn")
}

// The programs' GLSL is in shaders/ (shaders_gl.go): the terrain's, the liquid's, and
// the pieces they share.
var terrainVS = loadShader("terrain.vert.glsl")

// The terrain (shaders/terrain.frag.glsl): a neutral material, Lambert from the key light plus a hemisphere ambient (sky above, a darker bounce below) so that undersides of overhangs are not
// black; a faint world-space checker (uChecker metres a square) shows shape and scale and
// shows through shallow liquid (each fragment's square is read just inside the surface,
// so a face on a square's boundary takes one square, not a speckle of both). Back faces (seen through a hole) are lit as front faces.
var terrainFS = loadShader("terrain.frag.glsl")

// shaders/terrain_shading.glsl is the terrain's material and lighting (linear RGB),
// included by the terrain's shader, the liquid's, which composites against it (see
// liquidFS), and the floating bodies', which take its lighting (litLinear) in their own
// colour (bodyFS).
//
// keyShadow is the share of the key light that reaches p (normal n): 0 in the terrain's
// shadow, 1 in the light, from the light's depth map (shadow_gl.go) looked up 1.5 texels
// off the surface along n: four hardware-filtered (2 x 2) comparisons half a texel apart
// (soft edges a texel or two wide), or on a software renderer one (uShadowTexel 0: each
// lookup costs a third of a frame there); 1 outside the map or when there is none.

var liquidVS = loadShader("liquid.vert.glsl")

// The liquid (shaders/liquid.frag.glsl): light goes through it and is absorbed by depth (Beer-Lambert), and its
// surface reflects in proportion to how much liquid there is. Lighting is computed in
// linear RGB; each output is encoded with pow(1/2.2) before blending, so the framebuffer
// (RGBA8, not sRGB) holds display-encoded values and blending happens in that space.
//
// The depth is d = vOpacity * uDepthMax (m; exact below depth_max, depth_max beyond).
// The terrain under the liquid is seen by light that crossed the layer twice, down from
// the key light and back up to the eye, each along its slant refracted into the liquid
// (index 1.33): the path is p = d (1/cos t_view + 1/cos t_light), 2.3 d for the default
// view over flat liquid, and the transmittance per channel is T = exp(-uSigma * p).
// uSigma (1/m) is the liquid's extinction (Frame.Absorption, or derived from its colour by
// liquidSigma). The fragment writes two colours (dual-source blending, ONE and
// SRC1_COLOR: dst' = src0 + src1 * dst):
//   - src1, what is behind is multiplied by: T (per channel) times the part the surface
//     does not reflect (1 - F'), encoded. pow distributes over products, so the encoded
//     product equals the linear product encoded: the attenuation is exact.
//   - src0, what the liquid adds: its body colour (the liquid's colour, Lambert-lit),
//     weighted by its coverage 1 - mean(T) and by 1 - F', plus what the surface
//     reflects. The sum of the encoded values is brighter than the encoded sum of linear
//     values where both are large (pow(1/2.2) is concave); it is the one approximation.
//
// What the surface reflects is F' times the studio's radiance along the reflected ray
// r: Schlick's Fresnel term (F0 = 0.02, water) weighted by the wetness w =
// smoothstep(0.02 mm, 0.3 mm, d), so that a film a few microns thick does not shine like
// a mirror. The studio (func studio) is a dark room lit by softboxes, in linear radiance:
//   - the room: 0.03 overhead, lighter (0.2) toward the horizon, 0.04 below it; a flat
//     pool mirrors it as a dark glossy body, so deep blood stays a saturated red;
//   - a softbox strip all round the horizon, 1.5 to 12 degrees up (radiance 1.2): at
//     grazing views, where F is large, the far liquid shows a bright horizon line;
//   - the key light as a round softbox 5 to 7 degrees across (radiance 60, shadowed):
//     a crisp white highlight where the surface mirrors the key light;
//   - a ring softbox around the flat surface's mirror direction r0 (the view ray
//     reflected about +z), 10 to 40 degrees from it (radiance 4). A flat surface
//     mirrors the ring's dark middle; a surface tilted by 5 to 20 degrees mirrors the
//     ring. The meniscus-corrected normals are tilted so along the boundary: with the
//     meniscus on, the liquid's edge shows a bright band; with it off, it does not
//     (waves still glint). The band lies where the liquid is already deeper than 0.3 mm
//     a cell or so from the contact line (the meniscus is 2.8 mm long), so the wetness
//     leaves it. The ring is lit only where the liquid's thickness changes along the
//     surface (thicknessSlope from 0.15 to 0.3, m/m: an edge, a front, a steep wave),
//     not where liquid of even thickness lies over curved ground: a coat on a dome,
//     tilted 5 to 20 degrees over a wide area, mirrored it in white washes that hid the
//     paint's colour (the rock at 3 s: 22 specks and roughness 1.51 in
//     TestLiquidEdgeSpecksAndRoughness, 8 and 1.29 with the rule). Where the ramp lies
//     was measured by moving it: the band (TestMeniscusHighlightBand) keeps all its
//     highlights with the ramp anywhere under 0.3 to 0.6 and loses them with it at 0.6
//     to 1.2; the rock's specks are 16 with it at 0.03 to 0.08 and 8 from 0.08 to 0.6.
//     So the band's slopes lie above 0.6 and the coat's under 0.08 or so, and the ramp
//     sits a factor of 2 from each.
//
// The room and the strip are fixed in the world (they depend on elevation only); the key
// light and the ring turn with the camera. A studio fixed in the world cannot give the
// band all round a pool: the meniscus tilts the surface by a few degrees, so along the
// pool's sides its mirror direction stays within a few degrees of r0's elevation, and a
// world-fixed light there would light the flat pool too. A world-fixed studio (a
// cyclorama, the horizon strip and an overhead ring 52 to 76 degrees up) brightened
// only the near and far rims: 128 and 30 band pixels in TestMeniscusHighlightBand
// against the 300 it asks for. The ring's radiance, 4, is a little above the least that
// keeps the band there from the top view (3; 2 leaves none): more whitens the ripples of
// a spill (coffee, with the horizon strip at 3: 23% of the picture brown with no ring,
// 16% with 4, 15% with 16).
var liquidFS = loadShader("liquid.frag.glsl")

// The walls (shaders/wall.*.glsl): where a side of the domain is a wall
// (a walled side, scene.Walled), a low pane of clear glass stands along it from the box's bottom to
// Frame.WallTop, so that liquid standing at the side is seen to stand against something;
// an open side has none. Drawn last, blended over the terrain and the liquid, without
// writing depth: faint face on (alpha 0.1), stronger at grazing views, with a bright band
// along the top edge.
var wallVS = loadShader("wall.vert.glsl")
var wallFS = loadShader("wall.frag.glsl")

// The floating bodies (shaders/body.*.glsl, Frame.BodyPositions): opaque, drawn right
// after the terrain with its lighting (the shared litLinear: hemisphere ambient, the key
// light's Lambert term and its shadow, the same encoding) in each vertex's own colour
// (sRGB, made linear) instead of the terrain's checker. They are closed and outward, so
// their back faces are culled; they write depth, so the liquid drawn after is hidden
// behind them, and they are drawn into the shadow map (shadow_gl.go).
var bodyVS = loadShader("body.vert.glsl")
var bodyFS = loadShader("body.frag.glsl")

// wallQuads appends the walls' triangles (positions and inward normals) for box, the
// walled sides (-x, +x, -y, +y) and the rim's top z.
func wallQuads(pos, nrm []float32, box Box, walls [4]bool, top float32) ([]float32, []float32) {
	x0, y0, z0 := float32(box.Min[0]), float32(box.Min[1]), float32(box.Min[2])
	x1, y1 := float32(box.Max[0]), float32(box.Max[1])
	sides := [4]struct {
		a, b [2]float32 // the side's ends in x, y
		n    [3]float32 // inward
	}{
		{[2]float32{x0, y0}, [2]float32{x0, y1}, [3]float32{1, 0, 0}},
		{[2]float32{x1, y0}, [2]float32{x1, y1}, [3]float32{-1, 0, 0}},
		{[2]float32{x0, y0}, [2]float32{x1, y0}, [3]float32{0, 1, 0}},
		{[2]float32{x0, y1}, [2]float32{x1, y1}, [3]float32{0, -1, 0}},
	}
	for i, s := range sides {
		if !walls[i] || !(top > z0) {
			continue
		}
		a0, a1 := [3]float32{s.a[0], s.a[1], z0}, [3]float32{s.a[0], s.a[1], top}
		b0, b1 := [3]float32{s.b[0], s.b[1], z0}, [3]float32{s.b[0], s.b[1], top}
		for _, v := range [][3]float32{a0, b0, b1, a0, b1, a1} {
			pos = append(pos, v[0], v[1], v[2])
			nrm = append(nrm, s.n[0], s.n[1], s.n[2])
		}
	}
	return pos, nrm
}

// liquidSigma is the extinction (1/m, per channel) of a liquid of colour col (sRGB in
// [0, 1]) whose frame names no absorption (a custom colour), so that the colour says how
// the liquid absorbs: with lin the colour made linear (each channel at least 0.001) and m its
// largest channel,
//
//	sigma_c = min(0.8/mm * ln(m / lin_c)^2 + 0.75/mm * ln(1 / m), 4/mm).
//
// The first term makes the hue: the channels the colour lacks are absorbed, the more
// steeply the more saturated the colour (squared, so that water's pale blue stays nearly
// clear); the second darkens: a dark colour (coffee) absorbs in all channels. The cap
// keeps 1.2 mm of a dark red from hiding the terrain entirely; real blood takes green
// away some 6 times faster, which is why the named liquids carry measured absorptions
// (scene.LiquidAbsorptions). Water (1.16, 0.32, 0.14)/mm: 94-99%
// through 0.05 mm, blue through 2 mm; blood (1.0, 4, 4)/mm; coffee (1.8, 3.0, 4)/mm;
// paint (0.12, 0.5, 4)/mm (the named paint is opaque instead, 26/mm in every channel).
func liquidSigma(col [3]float32) [3]float32 {
	var lin [3]float64
	m := 1e-3
	for i, c := range col {
		lin[i] = math.Max(math.Pow(math.Max(float64(c), 0), 2.2), 1e-3)
		m = math.Max(m, lin[i])
	}
	var s [3]float32
	for i := range lin {
		hue := math.Log(m / lin[i])
		s[i] = float32(min(0.8*hue*hue+0.75*math.Log(1/m), 4) * 1000)
	}
	return s
}

func compileShader(src string, kind uint32) (uint32, error) {
	sh := gl.CreateShader(kind)
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(sh, 1, csrc, nil)
	free()
	gl.CompileShader(sh)
	var ok int32
	gl.GetShaderiv(sh, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(sh, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(sh, n, nil, gl.Str(log))
		gl.DeleteShader(sh)
		return 0, fmt.Errorf("shader: %s", strings.TrimRight(log, "\x00"))
	}
	return sh, nil
}

func linkProgram(vs, fs string) (uint32, error) {
	v, err := compileShader(vs, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	f, err := compileShader(fs, gl.FRAGMENT_SHADER)
	if err != nil {
		gl.DeleteShader(v)
		return 0, err
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, v)
	gl.AttachShader(p, f)
	gl.LinkProgram(p)
	gl.DeleteShader(v)
	gl.DeleteShader(f)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
		gl.DeleteProgram(p)
		return 0, fmt.Errorf("shader program: %s", strings.TrimRight(log, "\x00"))
	}
	return p, nil
}

// newRenderer compiles the shaders and makes the buffers; the context must be current.
// stills: it draws pictures (screenshots, renders, clips) rather than a live window, so a
// software renderer keeps the GPU's shadow map (its full size, four lookups a fragment):
// the half-size, one-lookup map of a live window draws the shadows' edges as stairs.
func newRenderer(stills bool) (*renderer, error) {
	r := &renderer{}
	var err error
	if r.terrainProg, err = linkProgram(terrainVS, terrainFS); err != nil {
		return nil, err
	}
	if r.liquidProg, err = linkProgram(liquidVS, liquidFS); err != nil {
		gl.DeleteProgram(r.terrainProg)
		return nil, err
	}
	if r.wallProg, err = linkProgram(wallVS, wallFS); err != nil {
		gl.DeleteProgram(r.terrainProg)
		gl.DeleteProgram(r.liquidProg)
		return nil, err
	}
	if r.bodyProg, err = linkProgram(bodyVS, bodyFS); err != nil {
		gl.DeleteProgram(r.terrainProg)
		gl.DeleteProgram(r.liquidProg)
		gl.DeleteProgram(r.wallProg)
		return nil, err
	}
	r.tu.find(r.terrainProg)
	r.lu.find(r.liquidProg)
	r.bu.find(r.bodyProg)
	wl := func(name string) int32 { return gl.GetUniformLocation(r.wallProg, gl.Str(name+"\x00")) }
	r.wu = wallUniforms{viewProj: wl("uViewProj"), eye: wl("uEye"), top: wl("uTop"), edge: wl("uEdge")}
	shadowSize, software := int32(ShadowMapSize), isSoftwareRenderer(gl.GoStr(gl.GetString(gl.RENDERER)))
	r.software = software
	if software {
		r.terrainBudget = SoftwareTriangleBudget
	}
	if software && !stills {
		shadowSize /= 2
	}
	if sm, err := newShadowMap(shadowSize, software && !stills); err == nil {
		r.shadow = sm
	}

	newBuf := func(target uint32) buffer {
		var id uint32
		gl.GenBuffers(1, &id)
		return buffer{id: id, target: target}
	}
	attrib := func(b buffer, loc uint32, size int32) {
		gl.BindBuffer(gl.ARRAY_BUFFER, b.id)
		gl.EnableVertexAttribArray(loc)
		gl.VertexAttribPointerWithOffset(loc, size, gl.FLOAT, false, 0, 0)
	}
	gl.GenVertexArrays(1, &r.terrainVAO)
	gl.BindVertexArray(r.terrainVAO)
	r.tPos, r.tNrm, r.tIdx = newBuf(gl.ARRAY_BUFFER), newBuf(gl.ARRAY_BUFFER), newBuf(gl.ELEMENT_ARRAY_BUFFER)
	attrib(r.tPos, 0, 3)
	attrib(r.tNrm, 1, 3)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.tIdx.id)

	gl.GenVertexArrays(1, &r.liquidVAO)
	gl.BindVertexArray(r.liquidVAO)
	r.lPos, r.lNrm, r.lOp, r.lIdx = newBuf(gl.ARRAY_BUFFER), newBuf(gl.ARRAY_BUFFER), newBuf(gl.ARRAY_BUFFER), newBuf(gl.ELEMENT_ARRAY_BUFFER)
	attrib(r.lPos, 0, 3)
	attrib(r.lNrm, 1, 3)
	attrib(r.lOp, 2, 1)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.lIdx.id)

	gl.GenVertexArrays(1, &r.wallVAO)
	gl.BindVertexArray(r.wallVAO)
	r.wPos, r.wNrm = newBuf(gl.ARRAY_BUFFER), newBuf(gl.ARRAY_BUFFER)
	attrib(r.wPos, 0, 3)
	attrib(r.wNrm, 1, 3)

	gl.GenVertexArrays(1, &r.bodyVAO)
	gl.BindVertexArray(r.bodyVAO)
	r.bPos, r.bNrm, r.bCol, r.bIdx = newBuf(gl.ARRAY_BUFFER), newBuf(gl.ARRAY_BUFFER), newBuf(gl.ARRAY_BUFFER), newBuf(gl.ELEMENT_ARRAY_BUFFER)
	attrib(r.bPos, 0, 3)
	attrib(r.bNrm, 1, 3)
	attrib(r.bCol, 2, 3)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.bIdx.id)
	gl.BindVertexArray(0)
	if err := r.marks.init(); err != nil {
		r.delete()
		return nil, err
	}
	if e := gl.GetError(); e != gl.NO_ERROR {
		return nil, fmt.Errorf("OpenGL error 0x%x while setting up the renderer", e)
	}
	return r, nil
}

// delete frees the renderer's GL objects (the context must be current).
func (r *renderer) delete() {
	for _, b := range []*buffer{&r.tPos, &r.tNrm, &r.tIdx, &r.lPos, &r.lNrm, &r.lOp, &r.lIdx, &r.wPos, &r.wNrm, &r.bPos, &r.bNrm, &r.bCol, &r.bIdx} {
		gl.DeleteBuffers(1, &b.id)
	}
	gl.DeleteVertexArrays(1, &r.terrainVAO)
	gl.DeleteVertexArrays(1, &r.liquidVAO)
	gl.DeleteVertexArrays(1, &r.wallVAO)
	gl.DeleteVertexArrays(1, &r.bodyVAO)
	gl.DeleteProgram(r.terrainProg)
	gl.DeleteProgram(r.liquidProg)
	gl.DeleteProgram(r.wallProg)
	gl.DeleteProgram(r.bodyProg)
	if r.shadow != nil {
		r.shadow.delete()
	}
	r.behind.delete()
	r.marks.delete()
}

func f32ptr(s []float32) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func u32ptr(s []uint32) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// upload sends what changed in f since the last upload.
func (r *renderer) upload(f *Frame) {
	if f.Terrain != nil && (!r.haveTerrain || f.Terrain != r.terrainMesh || f.TerrainVersion != r.terrainVersion) {
		gl.BindVertexArray(r.terrainVAO)
		m := displayMesh(f.Terrain, r.terrainBudget)
		r.terrainDrawn = m
		r.tPos.upload(f32ptr(m.Positions), 4*len(m.Positions))
		r.tNrm.upload(f32ptr(m.Normals), 4*len(m.Normals))
		r.tIdx.upload(u32ptr(m.Indices), 4*len(m.Indices))
		r.terrainCount = int32(len(m.Indices))
		r.terrainVersion, r.terrainMesh, r.haveTerrain = f.TerrainVersion, f.Terrain, true
	}
	if f.Terrain == nil {
		r.haveTerrain, r.terrainMesh, r.terrainDrawn = false, nil, nil
	}
	r.marks.upload(r.terrainDrawn, f.Sinks)
	gl.BindVertexArray(r.liquidVAO)
	r.lPos.upload(f32ptr(f.Positions), 4*len(f.Positions))
	r.lNrm.upload(f32ptr(f.Normals), 4*len(f.Normals))
	r.lOp.upload(f32ptr(f.Opacity), 4*len(f.Opacity))
	if !r.haveLiquid || f.Topology != r.topology || f.Topology == 0 {
		r.lIdx.upload(u32ptr(f.Indices), 4*len(f.Indices))
		r.liquidCount = int32(len(f.Indices))
		r.topology = f.Topology
	}
	r.nRanges = liquidRanges(&r.liquidRanges, f.SideIndex, f.Walls, len(f.Indices))
	r.haveLiquid = true
	r.depthMax = f.DepthMax
	if !(r.depthMax > 0) {
		r.depthMax = DefaultDepthMax
	}
	r.sigma = f.Absorption
	if r.sigma == ([3]float32{}) {
		r.sigma = liquidSigma(f.Color)
	}
	if k := (wallKey{f.Box, f.Walls, f.WallTop}); k != r.wallKey || r.wallCount == 0 && k.walls != [4]bool{} {
		r.wallVerts, r.wallN = wallQuads(r.wallVerts[:0], r.wallN[:0], f.Box, f.Walls, f.WallTop)
		gl.BindVertexArray(r.wallVAO)
		r.wPos.upload(f32ptr(r.wallVerts), 4*len(r.wallVerts))
		r.wNrm.upload(f32ptr(r.wallN), 4*len(r.wallN))
		r.wallCount, r.wallTop, r.wallKey = int32(len(r.wallVerts)/3), f.WallTop, k
	}
	r.box = f.Box
	// The bodies move every frame: all their arrays go up each time (a few thousand
	// vertices). Arrays that do not match (a position without its normal or colour) are
	// not drawn.
	nb := len(f.BodyPositions)
	if len(f.BodyIndices) > 0 && nb >= 3 && len(f.BodyNormals) == nb && len(f.BodyColors) == nb {
		gl.BindVertexArray(r.bodyVAO)
		r.bPos.upload(f32ptr(f.BodyPositions), 4*nb)
		r.bNrm.upload(f32ptr(f.BodyNormals), 4*nb)
		r.bCol.upload(f32ptr(f.BodyColors), 4*nb)
		r.bIdx.upload(u32ptr(f.BodyIndices), 4*len(f.BodyIndices))
		r.bodyCount = int32(len(f.BodyIndices))
		r.bodyLo, r.bodyHi, _ = meshBounds(f.BodyPositions)
		r.bodySeq++
	} else {
		r.bodyCount = 0
	}
	gl.BindVertexArray(0)
}

// drawOptions choose what a picture shows.
type drawOptions struct {
	hideLiquid, hideTerrain bool
	// hideBodies leaves the floating bodies out: the liquid alone, or the scaled target's
	// terrain cache (the bodies move: its per-frame pass draws them).
	hideBodies bool
	// hideWalls leaves the walls' glass out (Frame.Walls): the scaled target's terrain
	// cache, whose liquid pass draws them every frame.
	hideWalls bool
	// hideSinks leaves the sinks' marks out (Frame.Sinks): with the terrain, or from the
	// scaled target's terrain cache (they come and go: its per-frame pass draws them).
	hideSinks bool
	// keep draws over what the framebuffer holds (a cached terrain) instead of clearing it.
	keep bool
}

// draw clears the bound framebuffer (width x height) and draws the last uploaded frame
// from camera c with the liquid colour col.
func (r *renderer) draw(c Camera, width, height int, col [3]float32, opt drawOptions) {
	gl.Viewport(0, 0, int32(width), int32(height))
	if !opt.keep {
		gl.ClearColor(0.16, 0.17, 0.19, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	}
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LEQUAL)
	gl.Disable(gl.CULL_FACE)
	r.vp = c.ViewProjection(width, height).Float32()
	light := keyLight(c)
	eye := c.Eye()
	shadow := r.shadow
	if r.shadowsOff {
		shadow = nil
	}
	if shadow != nil {
		shadow.update(r, light)
	}

	if r.haveTerrain && r.terrainCount > 0 && !opt.hideTerrain {
		gl.Disable(gl.BLEND)
		gl.DepthMask(true)
		gl.UseProgram(r.terrainProg)
		gl.UniformMatrix4fv(r.tu.viewProj, 1, false, &r.vp[0])
		gl.Uniform3f(r.tu.lightDir, light[0], light[1], light[2])
		gl.Uniform1f(r.tu.checker, 0.01)
		shadow.bind(&r.tu)
		gl.BindVertexArray(r.terrainVAO)
		// The terrain mesh is closed with outward, counter-clockwise faces, so from
		// outside the solid its back faces are always hidden: culling them saves a third
		// of a frame on a software renderer (docs/benchmarks.md).
		gl.Enable(gl.CULL_FACE)
		gl.CullFace(gl.BACK)
		gl.DrawElementsWithOffset(gl.TRIANGLES, r.terrainCount, gl.UNSIGNED_INT, 0)
		gl.Disable(gl.CULL_FACE)
	}
	if r.bodyCount > 0 && !opt.hideBodies { // the floating bodies, lit as the terrain (bodyFS)
		gl.Disable(gl.BLEND)
		gl.DepthMask(true)
		gl.UseProgram(r.bodyProg)
		gl.UniformMatrix4fv(r.bu.viewProj, 1, false, &r.vp[0])
		gl.Uniform3f(r.bu.lightDir, light[0], light[1], light[2])
		shadow.bind(&r.bu)
		gl.BindVertexArray(r.bodyVAO)
		gl.Enable(gl.CULL_FACE) // closed and outward, as the terrain
		gl.CullFace(gl.BACK)
		gl.DrawElementsWithOffset(gl.TRIANGLES, r.bodyCount, gl.UNSIGNED_INT, 0)
		gl.Disable(gl.CULL_FACE)
	}
	if !opt.hideSinks { // the sinks' marks on the floor, under the liquid (sinks_gl.go)
		r.marks.draw(&r.vp, light, shadow)
	}
	if r.haveLiquid && r.liquidCount > 0 && !opt.hideLiquid {
		behind := r.behind.capture(width, height)
		gl.Enable(gl.BLEND)
		gl.BlendFunc(gl.ONE, gl.SRC1_COLOR) // dst' = src0 + src1 * dst (dual-source)
		gl.DepthMask(false)
		gl.UseProgram(r.liquidProg)
		gl.UniformMatrix4fv(r.lu.viewProj, 1, false, &r.vp[0])
		gl.Uniform3f(r.lu.eye, float32(eye[0]), float32(eye[1]), float32(eye[2]))
		gl.Uniform3f(r.lu.lightDir, light[0], light[1], light[2])
		gl.Uniform3f(r.lu.color, col[0], col[1], col[2])
		gl.Uniform3f(r.lu.sigma, r.sigma[0], r.sigma[1], r.sigma[2])
		gl.Uniform1f(r.lu.depthMax, r.depthMax)
		gl.Uniform1f(r.lu.checker, 0.01)
		shadow.bind(&r.lu)
		r.behind.bind(r.lu.behind, r.lu.behindOn, behind)
		gl.BindVertexArray(r.liquidVAO)
		for _, g := range r.liquidRanges[:r.nRanges] {
			gl.DrawElementsWithOffset(gl.TRIANGLES, g[1]-g[0], gl.UNSIGNED_INT, uintptr(4*g[0]))
		}
		r.behind.unbind()
		gl.DepthMask(true)
		gl.Disable(gl.BLEND)
	}
	if r.wallCount > 0 && !opt.hideWalls { // the walls' glass, over both (wallFS)
		gl.Enable(gl.BLEND)
		gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
		gl.DepthMask(false)
		gl.UseProgram(r.wallProg)
		gl.UniformMatrix4fv(r.wu.viewProj, 1, false, &r.vp[0])
		gl.Uniform3f(r.wu.eye, float32(eye[0]), float32(eye[1]), float32(eye[2]))
		gl.Uniform1f(r.wu.top, r.wallTop)
		gl.Uniform1f(r.wu.edge, 0.06*(r.wallTop-float32(r.wallKey.box.Min[2])))
		gl.BindVertexArray(r.wallVAO)
		// A pane lies in the plane of the terrain's flat wall on its side: pulled a
		// little towards the eye, it covers that wall in every pixel instead of in a
		// speckle where the two depths round differently (z-fighting).
		gl.Enable(gl.POLYGON_OFFSET_FILL)
		gl.PolygonOffset(-1, -4)
		gl.DrawArrays(gl.TRIANGLES, 0, r.wallCount)
		gl.Disable(gl.POLYGON_OFFSET_FILL)
		gl.DepthMask(true)
		gl.Disable(gl.BLEND)
	}
	gl.BindVertexArray(0)
	gl.UseProgram(0)
}
