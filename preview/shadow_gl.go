//go:build cgo && !nopreview

package preview

import (
	"fmt"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/vpbench/vpbench/terrain"
)

// shadowMap is the key light's depth map of the terrain and the floating bodies
// (shadow.go). Without bodies it is drawn again only when the terrain mesh or the light
// changes: the light turns with the camera, so a fixed view (a clip, a screenshot) draws
// it once. With bodies, which move every frame, the terrain's depth alone is kept in a
// second map (base), drawn as the map was; each upload of the bodies copies it into the
// map (a depth blit) and draws the bodies over it, a few thousand triangles.
type shadowMap struct {
	prog     uint32
	lvp      int32 // uLightViewProj in prog
	fbo, tex uint32
	size     int32
	// oneTap: the shaders look the map up once per fragment, not four times (on a
	// software renderer, where the four lookups cost 30% of a frame).
	oneTap bool

	// What the map holds: the mesh and light it was drawn for, and the light's matrix.
	mesh   *terrain.Mesh
	light  [3]float32
	valid  bool
	matrix [16]float32
	// offset is how far along the normal a point is moved before it is looked up (m):
	// 1.5 texels, so that a lit surface does not shadow itself (acne).
	offset float32

	boundsOf *terrain.Mesh // the mesh lo, hi were computed for
	lo, hi   [3]float64

	// bodySeq is the bodies' upload (renderer.bodySeq) the map holds; 0: none.
	bodySeq uint64
	// base is the terrain's depth alone while there are bodies, made when they first
	// come; baseMesh and baseMatrix say what it holds (baseMesh nil: nothing).
	baseFBO, baseTex uint32
	baseMesh         *terrain.Mesh
	baseMatrix       [16]float32
	baseBroken       bool // base could not be made: the terrain is drawn into the map each time

	// update's saved framebuffer and viewport (here: a local passed to GL by address
	// would be allocated, every frame while bodies move).
	prevFB int32
	prevVP [4]int32
}

var shadowVS = loadShader("shadow.vert.glsl")

var shadowFS = loadShader("shadow.frag.glsl")

// ShadowMapSize is the key light's depth map's side in texels on a GPU; a software
// renderer gets half of it (each texel is drawn on the CPU).
const ShadowMapSize = 2048

// newShadowMap makes the depth texture and its framebuffer (the context must be current).
func newShadowMap(size int32, oneTap bool) (*shadowMap, error) {
	s := &shadowMap{size: size, oneTap: oneTap}
	var err error
	if s.prog, err = linkProgram(shadowVS, shadowFS); err != nil {
		return nil, err
	}
	s.lvp = gl.GetUniformLocation(s.prog, gl.Str("uLightViewProj\x00"))
	if err := depthTarget(size, &s.tex, &s.fbo); err != nil {
		s.delete()
		return nil, err
	}
	return s, nil
}

// depthTarget makes a size x size depth texture, compared on lookup (a sampler2DShadow),
// and a framebuffer drawing into it; it leaves the framebuffer binding as it found it.
func depthTarget(size int32, tex, fbo *uint32) error {
	gl.GenTextures(1, tex)
	gl.BindTexture(gl.TEXTURE_2D, *tex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT24, size, size, 0, gl.DEPTH_COMPONENT, gl.FLOAT, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR) // 2 x 2 comparisons, blended
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL)
	gl.BindTexture(gl.TEXTURE_2D, 0)

	var prev int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &prev)
	gl.GenFramebuffers(1, fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, *fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, *tex, 0)
	gl.DrawBuffer(gl.NONE)
	gl.ReadBuffer(gl.NONE)
	st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(prev))
	if st != gl.FRAMEBUFFER_COMPLETE {
		return fmt.Errorf("shadow map framebuffer incomplete (0x%x)", st)
	}
	return nil
}

// update draws the depth map of the terrain and the bodies r last uploaded, seen from
// light, unless it holds that already. It leaves the framebuffer and viewport as it
// found them.
func (s *shadowMap) update(r *renderer, light [3]float32) {
	m := r.terrainDrawn
	if r.terrainCount == 0 {
		m = nil
	}
	if m != nil && s.boundsOf != m {
		var ok bool
		if s.lo, s.hi, ok = meshBounds(m.Positions); !ok {
			m = nil
		} else {
			s.boundsOf = m
		}
	}
	bodies := r.bodyCount > 0
	if m == nil && !bodies {
		s.valid = false
		return
	}
	seq := uint64(0)
	if bodies {
		seq = r.bodySeq
	}
	if s.valid && s.mesh == m && s.light == light && s.bodySeq == seq {
		return
	}
	// The light's box: the terrain's; with bodies, the domain's and the bodies' too, so
	// that a body above the terrain is inside the map (not clipped by its near plane),
	// and the fit stays the same while the bodies move inside the domain.
	lo, hi := s.lo, s.hi
	if m == nil {
		lo, hi = r.bodyLo, r.bodyHi
	}
	if bodies {
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], r.bodyLo[a]), max(hi[a], r.bodyHi[a])
			if r.box.Max[a] > r.box.Min[a] {
				lo[a], hi[a] = min(lo[a], r.box.Min[a]), max(hi[a], r.box.Max[a])
			}
		}
	}
	s.matrix = lightViewProjection(light, lo, hi).Float32()
	span := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	s.offset = float32(1.5 * span / float64(s.size))

	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &s.prevFB)
	gl.GetIntegerv(gl.VIEWPORT, &s.prevVP[0])
	gl.Viewport(0, 0, s.size, s.size)
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(true)
	// The terrain and the bodies are closed with outward faces: the faces turned away
	// from the light are what the map keeps, so a lit face is never compared with itself.
	gl.Enable(gl.CULL_FACE)
	gl.CullFace(gl.FRONT)
	gl.UseProgram(s.prog)
	gl.UniformMatrix4fv(s.lvp, 1, false, &s.matrix[0])
	drawTerrain := func(fbo uint32) {
		gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
		gl.Clear(gl.DEPTH_BUFFER_BIT)
		if m != nil {
			gl.BindVertexArray(r.terrainVAO)
			gl.DrawElementsWithOffset(gl.TRIANGLES, r.terrainCount, gl.UNSIGNED_INT, 0)
		}
	}
	switch {
	case !bodies, m == nil, !s.ensureBase(): // the terrain (if any) straight into the map
		drawTerrain(s.fbo)
	default: // the terrain's own map, drawn when it changed, copied
		if s.baseMesh != m || s.baseMatrix != s.matrix {
			drawTerrain(s.baseFBO)
			s.baseMesh, s.baseMatrix = m, s.matrix
		}
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, s.baseFBO)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, s.fbo)
		gl.BlitFramebuffer(0, 0, s.size, s.size, 0, 0, s.size, s.size, gl.DEPTH_BUFFER_BIT, gl.NEAREST)
		gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo)
	}
	if bodies {
		gl.BindVertexArray(r.bodyVAO)
		gl.DrawElementsWithOffset(gl.TRIANGLES, r.bodyCount, gl.UNSIGNED_INT, 0)
	}
	gl.BindVertexArray(0)
	gl.CullFace(gl.BACK)
	gl.Disable(gl.CULL_FACE)
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(s.prevFB))
	gl.Viewport(s.prevVP[0], s.prevVP[1], s.prevVP[2], s.prevVP[3])
	s.mesh, s.light, s.bodySeq, s.valid = m, light, seq, true
}

// ensureBase makes the terrain's own depth map the first time bodies come; false when
// it cannot be made (then the terrain is drawn into the map with the bodies each time).
func (s *shadowMap) ensureBase() bool {
	if s.baseFBO != 0 {
		return true
	}
	if s.baseBroken {
		return false
	}
	if err := depthTarget(s.size, &s.baseTex, &s.baseFBO); err != nil {
		s.freeBase()
		s.baseBroken = true
		return false
	}
	s.baseMesh = nil
	return true
}

// freeBase deletes the terrain's own depth map, if made.
func (s *shadowMap) freeBase() {
	if s.baseFBO != 0 {
		gl.DeleteFramebuffers(1, &s.baseFBO)
	}
	if s.baseTex != 0 {
		gl.DeleteTextures(1, &s.baseTex)
	}
	s.baseFBO, s.baseTex, s.baseMesh = 0, 0, nil
}

// bind gives a program (its uniforms u) the map on texture unit 0, or turns its
// shadows off when there is none.
func (s *shadowMap) bind(u *uniforms) {
	if s == nil || !s.valid {
		// Unbound too: a software renderer samples a bound map even where the shader's
		// branch skips it (a third of a frame on llvmpipe).
		gl.ActiveTexture(gl.TEXTURE0)
		gl.BindTexture(gl.TEXTURE_2D, 0)
		gl.Uniform1f(u.shadowOn, 0)
		return
	}
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, s.tex)
	gl.Uniform1i(u.shadow, 0)
	gl.Uniform1f(u.shadowOn, 1)
	gl.UniformMatrix4fv(u.lightViewProj, 1, false, &s.matrix[0])
	gl.Uniform1f(u.shadowOffset, s.offset)
	if s.oneTap {
		gl.Uniform1f(u.shadowTexel, 0)
	} else {
		gl.Uniform1f(u.shadowTexel, 1/float32(s.size))
	}
}

// delete frees the map's GL objects (the context must be current).
func (s *shadowMap) delete() {
	s.freeBase()
	gl.DeleteFramebuffers(1, &s.fbo)
	gl.DeleteTextures(1, &s.tex)
	gl.DeleteProgram(s.prog)
}
