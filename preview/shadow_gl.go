//go:build cgo && !nopreview

package preview

import (
	"fmt"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/vpbench/vpbench/terrain"
)

// shadowMap is the key light's depth map of the terrain (shadow.go). It is drawn again
// only when the terrain mesh or the light changes: the light turns with the camera, so
// a fixed view (a clip, a screenshot) draws it once.
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
	gl.GenTextures(1, &s.tex)
	gl.BindTexture(gl.TEXTURE_2D, s.tex)
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
	gl.GenFramebuffers(1, &s.fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, s.tex, 0)
	gl.DrawBuffer(gl.NONE)
	gl.ReadBuffer(gl.NONE)
	st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(prev))
	if st != gl.FRAMEBUFFER_COMPLETE {
		s.delete()
		return nil, fmt.Errorf("shadow map framebuffer incomplete (0x%x)", st)
	}
	return s, nil
}

// update draws the depth map of the terrain r last uploaded, seen from light, unless it
// holds that already. It leaves the framebuffer and viewport as it found them.
func (s *shadowMap) update(r *renderer, light [3]float32) {
	m := r.terrainDrawn
	if m == nil || r.terrainCount == 0 {
		s.valid = false
		return
	}
	if s.valid && s.mesh == m && s.light == light {
		return
	}
	if s.boundsOf != m {
		var ok bool
		if s.lo, s.hi, ok = meshBounds(m.Positions); !ok {
			s.valid = false
			return
		}
		s.boundsOf = m
	}
	s.matrix = lightViewProjection(light, s.lo, s.hi).Float32()
	span := max(s.hi[0]-s.lo[0], s.hi[1]-s.lo[1], s.hi[2]-s.lo[2])
	s.offset = float32(1.5 * span / float64(s.size))

	var prev int32
	var vp [4]int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &prev)
	gl.GetIntegerv(gl.VIEWPORT, &vp[0])
	gl.BindFramebuffer(gl.FRAMEBUFFER, s.fbo)
	gl.Viewport(0, 0, s.size, s.size)
	gl.Clear(gl.DEPTH_BUFFER_BIT)
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthFunc(gl.LEQUAL)
	gl.DepthMask(true)
	// The terrain is closed with outward faces: the faces turned away from the light
	// are what the map keeps, so a lit face is never compared with itself.
	gl.Enable(gl.CULL_FACE)
	gl.CullFace(gl.FRONT)
	gl.UseProgram(s.prog)
	gl.UniformMatrix4fv(s.lvp, 1, false, &s.matrix[0])
	gl.BindVertexArray(r.terrainVAO)
	gl.DrawElementsWithOffset(gl.TRIANGLES, r.terrainCount, gl.UNSIGNED_INT, 0)
	gl.BindVertexArray(0)
	gl.CullFace(gl.BACK)
	gl.Disable(gl.CULL_FACE)
	gl.BindFramebuffer(gl.FRAMEBUFFER, uint32(prev))
	gl.Viewport(vp[0], vp[1], vp[2], vp[3])
	s.mesh, s.light, s.valid = m, light, true
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
	gl.DeleteFramebuffers(1, &s.fbo)
	gl.DeleteTextures(1, &s.tex)
	gl.DeleteProgram(s.prog)
}
