//go:build cgo && !nopreview

package preview

import (
	"slices"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/vpbench/vpbench/scene"
	"github.com/vpbench/vpbench/terrain"
)

// sinkVS and sinkFS draw the sinks' marks (preview/sinks.go): the decal's triangles,
// the disc cut out of them and shaded as a drain (shaders/sink.*.glsl).
var (
	sinkVS = loadShader("sink.vert.glsl")
	sinkFS = loadShader("sink.frag.glsl")
)

// sinkMarks is the renderer's part for the sinks' marks: its program, buffers, and the
// decal, made again only when the sinks or the terrain drawn change.
type sinkMarks struct {
	prog           uint32
	u              uniforms
	vao            uint32
	pos, nrm, disc buffer
	count          int32
	mesh           *terrain.Mesh // the terrain drawn the decal was made on ...
	sinks          []scene.Sink  // ... for these sinks
	decal          sinkDecal
}

// init compiles the program and makes the buffers (the context current).
func (s *sinkMarks) init() error {
	var err error
	if s.prog, err = linkProgram(sinkVS, sinkFS); err != nil {
		return err
	}
	s.u.find(s.prog)
	gl.GenVertexArrays(1, &s.vao)
	gl.BindVertexArray(s.vao)
	for i, b := range []*buffer{&s.pos, &s.nrm, &s.disc} {
		gl.GenBuffers(1, &b.id)
		b.target = gl.ARRAY_BUFFER
		gl.BindBuffer(gl.ARRAY_BUFFER, b.id)
		gl.EnableVertexAttribArray(uint32(i))
		gl.VertexAttribPointerWithOffset(uint32(i), []int32{3, 3, 2}[i], gl.FLOAT, false, 0, 0)
	}
	gl.BindVertexArray(0)
	return nil
}

// delete frees the GL objects (the context current); a part never made is skipped.
func (s *sinkMarks) delete() {
	for _, b := range []*buffer{&s.pos, &s.nrm, &s.disc} {
		if b.id != 0 {
			gl.DeleteBuffers(1, &b.id)
		}
	}
	if s.vao != 0 {
		gl.DeleteVertexArrays(1, &s.vao)
	}
	if s.prog != 0 {
		gl.DeleteProgram(s.prog)
	}
	*s = sinkMarks{}
}

// upload makes the decal of sinks on m (the terrain drawn) again if either changed.
func (s *sinkMarks) upload(m *terrain.Mesh, sinks []scene.Sink) {
	if m == s.mesh && slices.Equal(sinks, s.sinks) {
		return
	}
	s.mesh, s.sinks = m, append(s.sinks[:0], sinks...)
	s.decal.build(m, sinks)
	gl.BindVertexArray(s.vao)
	s.pos.upload(f32ptr(s.decal.pos), 4*len(s.decal.pos))
	s.nrm.upload(f32ptr(s.decal.nrm), 4*len(s.decal.nrm))
	s.disc.upload(f32ptr(s.decal.disc), 4*len(s.decal.disc))
	gl.BindVertexArray(0)
	s.count = int32(len(s.decal.pos) / 3)
}

// draw draws the marks over the terrain in the bound framebuffer, lit by light with
// shadow (nil: none): blended by their edge's coverage, depth-tested against the
// terrain and pulled a little towards the eye (they lie in its faces), writing no depth.
func (s *sinkMarks) draw(vp *[16]float32, light [3]float32, shadow *shadowMap) {
	if s.count == 0 {
		return
	}
	gl.Enable(gl.BLEND)
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	gl.DepthMask(false)
	gl.UseProgram(s.prog)
	gl.UniformMatrix4fv(s.u.viewProj, 1, false, &vp[0])
	gl.Uniform3f(s.u.lightDir, light[0], light[1], light[2])
	gl.Uniform1f(s.u.checker, 0.01)
	shadow.bind(&s.u)
	gl.BindVertexArray(s.vao)
	gl.Enable(gl.POLYGON_OFFSET_FILL)
	gl.PolygonOffset(-1, -4)
	gl.DrawArrays(gl.TRIANGLES, 0, s.count)
	gl.Disable(gl.POLYGON_OFFSET_FILL)
	gl.DepthMask(true)
	gl.Disable(gl.BLEND)
}
