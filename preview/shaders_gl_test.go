//go:build cgo && !nopreview

package preview

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// shaderPrograms are the sources the package links together, by program.
var shaderPrograms = []struct{ name, vs, fs string }{
	{"terrain", terrainVS, terrainFS},
	{"liquid", liquidVS, liquidFS},
	{"shadow", shadowVS, shadowFS},
	{"scaled", scaledVS, scaledFS},
	{"wall", wallVS, wallFS},
	{"body", bodyVS, bodyFS},
	{"sink", sinkVS, sinkFS},
}

// TestShaderSources: every shader file of shaders/ is a whole source once its #include
// lines are expanded (it starts with "#version 330 core" and includes nothing more), and
// every program's sources are such files; a piece without a stage is included somewhere.
func TestShaderSources(t *testing.T) {
	const version = "#version 330 core\n"
	names, err := fs.Glob(shaderFiles, "shaders/*.glsl")
	if err != nil || len(names) == 0 {
		t.Fatalf("no shaders embedded (%v)", err)
	}
	stages := 0
	for _, p := range names {
		name := path.Base(p)
		src, err := expandIncludes(name, 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.HasSuffix(name, ".vert.glsl") && !strings.HasSuffix(name, ".frag.glsl") {
			used := false
			for _, prog := range shaderPrograms {
				used = used || strings.Contains(prog.vs, src) || strings.Contains(prog.fs, src)
			}
			if !used {
				t.Errorf("%s is a piece no program includes", name)
			}
			continue
		}
		stages++
		if !strings.HasPrefix(src, version) {
			t.Errorf("%s starts with %.30q, want %q", name, src, version)
		}
		if strings.Contains(src, includePrefix) || strings.Contains(src, "\x00") {
			t.Errorf("%s: an #include or a NUL is left after expanding", name)
		}
	}
	if want := 2 * len(shaderPrograms); stages != want {
		t.Errorf("%d shader files, want %d (a vertex and a fragment shader for each of %d programs)", stages, want, len(shaderPrograms))
	}
	for _, prog := range shaderPrograms {
		for _, src := range []string{prog.vs, prog.fs} {
			if !strings.HasPrefix(src, version) || strings.Contains(src, includePrefix) {
				t.Errorf("program %s: a source is not an expanded shader file: %.40q", prog.name, src)
			}
		}
	}
}

func TestShaderIncludeErrors(t *testing.T) {
	for _, name := range []string{"nothing.frag.glsl", "../render_gl.go"} {
		if _, err := expandIncludes(name, 0); err == nil {
			t.Errorf("expandIncludes(%q) gave no error", name)
		}
	}
}

// TestShadersCompile: each program's shaders compile and link in this OpenGL (the
// driver's log in the failure).
func TestShadersCompile(t *testing.T) {
	needGL(t)
	for _, prog := range shaderPrograms {
		err := testHost.do(func() error {
			testHost.gs.off.win.MakeContextCurrent()
			p, err := linkProgram(prog.vs, prog.fs)
			if err == nil {
				gl.DeleteProgram(p)
			}
			return err
		})
		if err != nil {
			t.Errorf("program %s: %v", prog.name, err)
		}
	}
}
