//go:build cgo && !nopreview

package preview

import (
	"fmt"

	"github.com/go-gl/gl/v3.3-core/gl"

	"github.com/vpbench/vpbench/terrain"
)

// scaledTarget is where a window on a software renderer draws: a picture a fraction of
// the window's size, stretched onto the window (bilinear). A software renderer's cost
// grows with the pixels it shades, so drawing at half the size takes about a quarter of
// the time; the window picks the fraction that keeps its draws within a frame of the run
// loop's rate (drawScale). Pictures, clips and recordings are drawn at full size
// by the offscreen host, never through this.
//
// The terrain is drawn into a picture of its own (colour and depth) and kept while the
// view, the size, the terrain and the shadow switch stay the same; each frame copies it
// into the picture and draws only the floating bodies and the liquid over it (the bodies
// move every frame: they are never cached). On a software renderer the terrain's
// triangles (up to SoftwareTriangleBudget) are most of a frame's fixed cost, and while a
// run plays the camera mostly holds still. While bodies cast the key light's shadow (the
// shadow switch on), their shadow falls on the terrain too: the terrain is then drawn
// every frame, not cached.
type scaledTarget struct {
	pic, terrain colorDepth
	terrainKey   terrainKey // what terrain holds; valid when terrainOK
	terrainOK    bool
	prog, vao    uint32
	picture      int32 // uPicture in prog
}

// terrainKey is what a cached terrain picture depends on.
type terrainKey struct {
	cam        Camera
	w, h       int32
	mesh       *terrain.Mesh
	shadowsOff bool
}

// colorDepth is a framebuffer with a colour texture (RGBA8) and a depth renderbuffer.
type colorDepth struct {
	fbo, tex, depth uint32
	w, h            int32
}

var scaledVS = loadShader("scaled.vert.glsl")

var scaledFS = loadShader("scaled.frag.glsl")

// newScaledTarget compiles the stretching program (the context must be current); the
// framebuffers are made by draw.
func newScaledTarget() (*scaledTarget, error) {
	t := &scaledTarget{}
	var err error
	if t.prog, err = linkProgram(scaledVS, scaledFS); err != nil {
		return nil, err
	}
	t.picture = gl.GetUniformLocation(t.prog, gl.Str("uPicture\x00"))
	gl.GenVertexArrays(1, &t.vao) // core profile draws need one, even without attributes
	return t, nil
}

// ensure makes the framebuffer w x h (again, when the size changed) and binds it.
func (t *colorDepth) ensure(w, h int32) error {
	if t.fbo == 0 || w != t.w || h != t.h {
		t.free()
		gl.GenTextures(1, &t.tex)
		gl.BindTexture(gl.TEXTURE_2D, t.tex)
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
		gl.BindTexture(gl.TEXTURE_2D, 0)
		gl.GenRenderbuffers(1, &t.depth)
		gl.BindRenderbuffer(gl.RENDERBUFFER, t.depth)
		gl.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, w, h)
		gl.GenFramebuffers(1, &t.fbo)
		gl.BindFramebuffer(gl.FRAMEBUFFER, t.fbo)
		gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t.tex, 0)
		gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.depth)
		if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
			t.free()
			return fmt.Errorf("preview: scaled framebuffer %dx%d incomplete (0x%x)", w, h, st)
		}
		t.w, t.h = w, h
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.fbo)
	return nil
}

// free deletes the framebuffer and its attachments.
func (t *colorDepth) free() {
	if t.fbo != 0 {
		gl.DeleteFramebuffers(1, &t.fbo)
		gl.DeleteTextures(1, &t.tex)
		gl.DeleteRenderbuffers(1, &t.depth)
		*t = colorDepth{}
	}
}

// draw draws r's last uploaded frame from c at w x h into the picture: the terrain from
// its cache (drawn again when its key changed), then the bodies and the liquid over it;
// or everything, when the bodies' shadows fall on the terrain.
func (t *scaledTarget) draw(r *renderer, c Camera, w, h int32, col [3]float32) error {
	if r.bodyCount > 0 && !r.shadowsOff && r.shadow != nil {
		if err := t.pic.ensure(w, h); err != nil {
			return err
		}
		r.draw(c, int(w), int(h), col, drawOptions{})
		t.terrainOK = false
		return nil
	}
	key := terrainKey{cam: c, w: w, h: h, mesh: r.terrainDrawn, shadowsOff: r.shadowsOff}
	if !t.terrainOK || key != t.terrainKey {
		if err := t.terrain.ensure(w, h); err != nil {
			return err
		}
		r.draw(c, int(w), int(h), col, drawOptions{hideLiquid: true, hideWalls: true, hideBodies: true, hideSinks: true})
		t.terrainKey, t.terrainOK = key, true
	}
	if err := t.pic.ensure(w, h); err != nil {
		return err
	}
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, t.terrain.fbo)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, t.pic.fbo)
	gl.BlitFramebuffer(0, 0, w, h, 0, 0, w, h, gl.COLOR_BUFFER_BIT|gl.DEPTH_BUFFER_BIT, gl.NEAREST)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.pic.fbo)
	r.draw(c, int(w), int(h), col, drawOptions{hideTerrain: true, keep: true})
	return nil
}

// present stretches the picture onto the window's framebuffer (fw x fh).
func (t *scaledTarget) present(fw, fh int32) {
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Viewport(0, 0, fw, fh)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.UseProgram(t.prog)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, t.pic.tex)
	gl.Uniform1i(t.picture, 0)
	gl.BindVertexArray(t.vao)
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	gl.BindVertexArray(0)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	gl.UseProgram(0)
	gl.Enable(gl.DEPTH_TEST)
}

// delete frees everything (the context must be current).
func (t *scaledTarget) delete() {
	t.pic.free()
	t.terrain.free()
	gl.DeleteVertexArrays(1, &t.vao)
	gl.DeleteProgram(t.prog)
}
