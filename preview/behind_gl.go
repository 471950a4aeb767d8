//go:build cgo && !nopreview

package preview

import "github.com/go-gl/gl/v3.3-core/gl"

// behindCopy is a copy of the picture as it stands before the liquid is drawn (the
// terrain, the floating bodies, the background): what lies behind the liquid, which the
// liquid's shader composites against (liquidFS). The liquid's blend (dst' = src0 + src1
// dst) works on display-encoded values; the shader makes the linear composite exact by
// knowing dst. It used to estimate dst as the terrain under the liquid, lit with the
// liquid's normal: where the picture held something else there (the background past a
// liquid's edge or its side, the far terrain a grazing view looks through to, the
// terrain's shadow) the error was weighted by the liquid's transmittance, per channel,
// so that water over the dark background turned lilac and water seen at grazing
// angles pink (the encoded reflection added back more red, which water absorbs, than
// blue).
//
// The copy is single-sampled (a multisampled picture is resolved into it) and as large
// as the picture; it is made again when the size changes.
type behindCopy struct {
	fbo, tex uint32
	w, h     int32
	broken   bool // could not be made: the shader falls back on its estimate
	// The framebuffer bindings capture restores, kept here: a local whose address goes
	// to GL moves to the heap, an allocation every frame.
	prevDraw, prevRead int32
}

// capture copies the colour of the bound draw framebuffer (w x h) into the copy and
// reports whether it did; the framebuffer bindings are left as they were.
func (c *behindCopy) capture(w, h int) bool {
	if c.broken || w <= 0 || h <= 0 {
		return false
	}
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &c.prevDraw)
	gl.GetIntegerv(gl.READ_FRAMEBUFFER_BINDING, &c.prevRead)
	if !c.ensure(int32(w), int32(h)) {
		return false
	}
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, uint32(c.prevDraw))
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, c.fbo)
	gl.BlitFramebuffer(0, 0, c.w, c.h, 0, 0, c.w, c.h, gl.COLOR_BUFFER_BIT, gl.NEAREST)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(c.prevDraw))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, uint32(c.prevRead))
	return true
}

// ensure makes the texture and its framebuffer for a picture of w x h, or remakes them
// for a new size; false (and broken) when they cannot be made.
func (c *behindCopy) ensure(w, h int32) bool {
	if c.fbo != 0 && c.w == w && c.h == h {
		return true
	}
	c.delete()
	gl.GenTextures(1, &c.tex)
	gl.BindTexture(gl.TEXTURE_2D, c.tex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	var prev int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &prev)
	gl.GenFramebuffers(1, &c.fbo)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, c.fbo)
	gl.FramebufferTexture2D(gl.DRAW_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, c.tex, 0)
	ok := gl.CheckFramebufferStatus(gl.DRAW_FRAMEBUFFER) == gl.FRAMEBUFFER_COMPLETE
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(prev))
	if !ok {
		c.delete()
		c.broken = true
		return false
	}
	c.w, c.h = w, h
	return true
}

// bind gives the liquid's program the copy on texture unit 1 (the shadow map has unit
// 0: two kinds of sampler on one unit fail the draw, so the sampler is on unit 1 even
// without a copy), or tells it to estimate what is behind when there is none (ok false).
func (c *behindCopy) bind(behind, on int32, ok bool) {
	gl.Uniform1i(behind, 1)
	gl.ActiveTexture(gl.TEXTURE1)
	if ok {
		gl.BindTexture(gl.TEXTURE_2D, c.tex)
		gl.Uniform1f(on, 1)
	} else {
		gl.BindTexture(gl.TEXTURE_2D, 0)
		gl.Uniform1f(on, 0)
	}
	gl.ActiveTexture(gl.TEXTURE0)
}

// unbind takes the copy off texture unit 1, so that the next draws may write it.
func (c *behindCopy) unbind() {
	gl.ActiveTexture(gl.TEXTURE1)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	gl.ActiveTexture(gl.TEXTURE0)
}

// delete frees the copy's GL objects, if made.
func (c *behindCopy) delete() {
	if c.fbo != 0 {
		gl.DeleteFramebuffers(1, &c.fbo)
	}
	if c.tex != 0 {
		gl.DeleteTextures(1, &c.tex)
	}
	c.fbo, c.tex, c.w, c.h = 0, 0, 0, 0
}
