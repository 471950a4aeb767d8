package doccheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The names of the files outside the repository that the project once cited, spelt in
// pieces so that this file does not cite them itself.
var outside = []string{
	"METHOD" + ".md",  // the method: docs/method.md now
	"LUA_API" + ".md", // the scripting contract: docs/scripting.md now
	".." + "/shared",  // the folder beside the repository that held both
}

// absWork is an absolute path under the development machine's /work: a character that
// cannot end a word or a path element comes before it (so a URL's ".../work/..." passes).
var absWork = regexp.MustCompile(`(^|[^A-Za-z0-9_.~/-])/` + `work/`)

// checked tells whether a repository file is one of the text files the test reads.
func checked(path string) bool {
	base := filepath.Base(path)
	switch {
	case base == "Makefile", strings.HasPrefix(filepath.ToSlash(path), "mk/"):
		return true
	}
	switch filepath.Ext(base) {
	case ".go", ".md", ".lua":
		return true
	}
	return false
}

// moduleRoot goes up from the test's directory to the one holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// repoFiles lists the tracked files under root, relative and slash-separated, from git
// when it can tell; otherwise (no git, or not a checkout) every file under root but the
// ignored output folders and dot-folders.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil && len(out) > 0 {
		var files []string
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if _, err := os.Stat(filepath.Join(root, f)); err == nil { // not deleted in the work tree
				files = append(files, f)
			}
		}
		return files
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "bin" || rel == "out") {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestNoOutsideReferences: no tracked Go, Markdown or Lua file, Makefile or mk/ fragment
// names a file that a user who clones the repository does not have, or an absolute path
// on the development machine.
func TestNoOutsideReferences(t *testing.T) {
	root := moduleRoot(t)
	n := 0
	for _, f := range repoFiles(t, root) {
		if !checked(f) {
			continue
		}
		n++
		forLines(t, filepath.Join(root, f), func(line int, text string) {
			for _, name := range outside {
				if strings.Contains(text, name) {
					t.Errorf("%s:%d: cites %s, outside the repository: cite docs/method.md or docs/scripting.md (with the section), or the paper by its title", f, line, name)
				}
			}
			if absWork.MatchString(text) {
				t.Errorf("%s:%d: an absolute path on the development machine: %s", f, line, strings.TrimSpace(text))
			}
		})
	}
	if n < 50 {
		t.Fatalf("only %d files checked under %s: the listing is wrong", n, root)
	}
}

// forLines calls fn with each line of a file (1-based).
func forLines(t *testing.T, path string, fn func(line int, text string)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for line := 1; sc.Scan(); line++ {
		fn(line, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// A Markdown link or image: ](target) or ](target "title").
var mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// inlineCode matches a code span, whose text is not Markdown.
var inlineCode = regexp.MustCompile("`+[^`]*`+")

// mdLines calls fn with each line of a Markdown file outside fenced code blocks, code
// spans blanked out.
func mdLines(t *testing.T, path string, fn func(line int, text string)) {
	t.Helper()
	fence := ""
	forLines(t, path, func(line int, text string) {
		trimmed := strings.TrimSpace(text)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			return
		}
		for _, f := range []string{"```", "~~~"} {
			if strings.HasPrefix(trimmed, f) {
				fence = f
				return
			}
		}
		fn(line, inlineCode.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat(" ", len(s)) }))
	})
}

// headingAnchors returns the anchors GitHub gives a Markdown file's headings: the text
// lower-cased, stripped of everything but letters, digits, spaces, '-' and '_', spaces
// turned into '-', and "-1", "-2", ... after repeats.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	seen := map[string]int{}
	linkText := regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	fence := ""
	forLines(t, path, func(_ int, text string) {
		trimmed := strings.TrimSpace(text)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			return
		}
		for _, f := range []string{"```", "~~~"} {
			if strings.HasPrefix(trimmed, f) {
				fence = f
				return
			}
		}
		if !strings.HasPrefix(text, "#") {
			return
		}
		h := strings.TrimLeft(text, "#")
		if h == "" || h[0] != ' ' {
			return
		}
		h = linkText.ReplaceAllString(strings.TrimSpace(h), "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	})
	return anchors
}

// TestMarkdownLinks: every relative link in the repository's Markdown files (README.md,
// docs/, scripts/README.md, ...) leads to a file or folder that exists, and a link to a
// section of a Markdown file (#anchor) to a heading it has.
func TestMarkdownLinks(t *testing.T) {
	root := moduleRoot(t)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := headingAnchors(t, path)
		anchors[path] = a
		return a
	}
	links := 0
	for _, f := range repoFiles(t, root) {
		if filepath.Ext(f) != ".md" {
			continue
		}
		src := filepath.Join(root, f)
		mdLines(t, src, func(line int, text string) {
			for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				path, anchor, _ := strings.Cut(target, "#")
				dest := src
				if path != "" {
					if filepath.IsAbs(path) {
						t.Errorf("%s:%d: link %q is absolute: make it relative to the file", f, line, target)
						continue
					}
					dest = filepath.Join(filepath.Dir(src), filepath.FromSlash(path))
					if _, err := os.Stat(dest); errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s:%d: link %q: %s does not exist", f, line, target, filepath.ToSlash(mustRel(root, dest)))
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[strings.ToLower(anchor)] {
					t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", f, line, target, filepath.ToSlash(mustRel(root, dest)), anchor)
				}
			}
		})
	}
	if links < 20 {
		t.Fatalf("only %d relative links found: the link pattern is wrong", links)
	}
}

func mustRel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return r
}
