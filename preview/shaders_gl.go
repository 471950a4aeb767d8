//go:build cgo && !nopreview

package preview

import (
	"embed"
	"fmt"
	"strings"
)

// The shaders' GLSL lives in shaders/: NAME.vert.glsl and NAME.frag.glsl are a program's
// vertex and fragment shaders, each a whole source (it starts with #version); a file
// without a stage (terrain_shading.glsl) is a piece the shaders share. A line
//
//	#include "FILE"
//
// in a shader stands for FILE's text (the line and its newline replaced by it, verbatim);
// GLSL has no such directive, so loadShader expands it before the source reaches GL. The
// sources carry no NUL: compileShader adds the one GL needs.
//
//go:embed shaders/*.glsl
var shaderFiles embed.FS

// loadShader is shaders/name with its #include lines expanded. The files are embedded,
// so a missing one is a mistake in this package: it panics.
func loadShader(name string) string {
	src, err := expandIncludes(name, 0)
	if err != nil {
		panic(fmt.Sprintf("preview: shader %s: %v", name, err))
	}
	return src
}

// includePrefix starts a line that includes another file of shaders/.
const includePrefix = `#include "`

func expandIncludes(name string, depth int) (string, error) {
	if depth > 4 {
		return "", fmt.Errorf("#include nested too deep at %s", name)
	}
	b, err := shaderFiles.ReadFile("shaders/" + name)
	if err != nil {
		return "", err
	}
	src := string(b)
	if !strings.Contains(src, includePrefix) {
		return src, nil
	}
	var out strings.Builder
	for line := range strings.SplitAfterSeq(src, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(body, includePrefix) {
			out.WriteString(line)
			continue
		}
		inc, ok := strings.CutSuffix(body[len(includePrefix):], `"`)
		if !ok || inc == "" || strings.ContainsAny(inc, `"/`) {
			return "", fmt.Errorf("bad line %q: want #include \"FILE\" (a file of shaders/)", body)
		}
		text, err := expandIncludes(inc, depth+1)
		if err != nil {
			return "", err
		}
		out.WriteString(text)
	}
	return out.String(), nil
}
