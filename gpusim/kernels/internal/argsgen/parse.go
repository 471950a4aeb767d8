package main

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The header's subset of C: comments, preprocessor lines (skipped), and
//
//	typedef struct NAME [/* go:GoName */] { members } NAME;
//
// whose members are comment lines and declarations of scalars and pointers:
//
//	[const] TYPE [*...]name [/* go:GoName */] [, [*...]name ...]; [// comment]
//
// Anything else (arrays, bit-fields, nested structs, unions, initializers, long) is an
// error that names the line.

// kind is a token's kind.
type kind int

const (
	tIdent     kind = iota
	tPunct          // { } ; , *
	tComment        // // or /* */, text without its markers
	tDirective      // a preprocessor line
	tEOF
)

type tok struct {
	kind kind
	text string
	line int
	// startsLine: nothing but blanks before it on its line. blankBefore: a blank line
	// (or the file's start) lies between it and the token before.
	startsLine, blankBefore bool
	block                   bool // a /* */ comment
}

// annotation returns the Go name of a /* go:Name */ comment.
func (t tok) annotation() (string, bool) {
	if t.kind != tComment || !t.block {
		return "", false
	}
	return strings.CutPrefix(strings.TrimSpace(t.text), "go:")
}

// lex splits src into tokens.
func lex(name, src string) ([]tok, error) {
	var toks []tok
	line, i := 1, 0
	startsLine, blankBefore := true, true
	nl := 0 // newlines since the last token
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			nl++
			startsLine = true
			if nl >= 2 {
				blankBefore = true
			}
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		}
		t := tok{line: line, startsLine: startsLine, blankBefore: blankBefore}
		switch {
		case c == '#' && startsLine:
			// a directive, with its continuation lines
			j := i
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] == '\n' {
					line++
					j++
				}
				j++
			}
			t.kind, t.text = tDirective, src[i:j]
			i = j
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			t.kind, t.text = tComment, strings.TrimRight(src[i+2:i+j], " \t\r")
			i += j
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("%s:%d: unterminated /* comment", name, line)
			}
			text := src[i+2 : i+2+j]
			t.kind, t.text, t.block = tComment, text, true
			line += strings.Count(text, "\n")
			i += j + 4
		case c == '_' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)):
			j := i
			for j < len(src) && (src[j] == '_' || src[j] < utf8.RuneSelf && (unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j])))) {
				j++
			}
			t.kind, t.text = tIdent, src[i:j]
			i = j
		case strings.IndexByte("{};,*", c) >= 0:
			t.kind, t.text = tPunct, string(c)
			i++
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, fmt.Errorf("%s:%d: %q is outside the subset of C argsgen reads (scalars and pointers in typedef structs)", name, line, r)
		}
		toks = append(toks, t)
		startsLine, blankBefore, nl = false, false, 0
	}
	toks = append(toks, tok{kind: tEOF, line: line, startsLine: true, blankBefore: nl >= 2})
	return toks, nil
}

// ctype is a scalar C type of the subset: its Go twin and its size (its alignment too).
type ctype struct {
	goType string
	size   uintptr
}

// scalars are the C types a field may have. int is 32 bits on every target vpbench
// compiles the kernels for (nvcc, and the host's g++ on LP64); long is left out, its size
// differing between LP64 and LLP64.
var scalars = map[string]ctype{
	"float": {"float32", 4}, "double": {"float64", 8},
	"int": {"int32", 4}, "signed int": {"int32", 4}, "int32_t": {"int32", 4},
	"unsigned": {"uint32", 4}, "unsigned int": {"uint32", 4}, "uint32_t": {"uint32", 4},
	"int64_t": {"int64", 8}, "long long": {"int64", 8},
	"uint64_t": {"uint64", 8}, "unsigned long long": {"uint64", 8},
	"int16_t": {"int16", 2}, "short": {"int16", 2}, "uint16_t": {"uint16", 2}, "unsigned short": {"uint16", 2},
	"int8_t": {"int8", 1}, "signed char": {"int8", 1}, "uint8_t": {"uint8", 1}, "unsigned char": {"uint8", 1},
}

// pointees are the types a pointer may point to besides the scalars.
var pointees = map[string]bool{"void": true, "char": true}

// pointer is a pointer field's Go type: a 64-bit device address.
var pointer = ctype{"uint64", 8}

// header is a parsed vp_args.h.
type header struct {
	structs []*cstruct
}

type cstruct struct {
	c, goName string
	doc       []string // the comment lines just above its typedef
	members   []*member
	size      uintptr
	line      int
}

// member is a declaration, or a run of comment lines between declarations (decl nil).
type member struct {
	comments    []string
	blankBefore bool
	decl        *decl
}

type decl struct {
	fields  []*field
	comment string // the comment after its ';' on the same line
}

type field struct {
	c, goName     string
	cType, goType string // "const float *", "uint64"
	offset, size  uintptr
	line          int
}

type parser struct {
	name string
	toks []tok
	pos  int
}

func (p *parser) peek() tok { return p.toks[p.pos] }
func (p *parser) next() tok {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) errf(t tok, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, t.line, fmt.Sprintf(format, args...))
}

func (p *parser) expect(k kind, text string) (tok, error) {
	t := p.next()
	if t.kind != k || text != "" && t.text != text {
		want := text
		if want == "" {
			want = "a name"
		}
		return t, p.errf(t, "want %s, found %s", want, describe(t))
	}
	return t, nil
}

func describe(t tok) string {
	switch t.kind {
	case tEOF:
		return "the end of the file"
	case tComment:
		return "a comment"
	case tDirective:
		return "a preprocessor line"
	}
	return fmt.Sprintf("%q", t.text)
}

// parse reads a header and lays out its structs.
func parse(name, src string) (*header, error) {
	toks, err := lex(name, src)
	if err != nil {
		return nil, err
	}
	p := &parser{name: name, toks: toks}
	h := &header{}
	var doc []string
	for {
		t := p.peek()
		switch {
		case t.kind == tEOF:
			if len(h.structs) == 0 {
				return nil, fmt.Errorf("%s: no typedef struct", name)
			}
			return h, h.check(name)
		case t.kind == tDirective:
			p.next()
			doc = nil
		case t.kind == tComment:
			p.next()
			if t.blankBefore || !t.startsLine {
				doc = nil
			}
			if _, ok := t.annotation(); ok {
				return nil, p.errf(t, "a go: annotation goes right after the name it renames")
			}
			if t.startsLine {
				doc = append(doc, commentLines(t)...)
			}
		case t.kind == tIdent && t.text == "typedef":
			if t.blankBefore {
				doc = nil
			}
			s, err := p.parseStruct()
			if err != nil {
				return nil, err
			}
			s.doc = doc
			doc = nil
			h.structs = append(h.structs, s)
		default:
			return nil, p.errf(t, "want a typedef struct, found %s", describe(t))
		}
	}
}

// commentLines are a comment's lines as Go comment text (without the //).
func commentLines(t tok) []string {
	if !t.block {
		return []string{t.text}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(t.text), "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimPrefix(l, "*"), " ")
		out = append(out, " "+l)
	}
	return out
}

func (p *parser) parseStruct() (*cstruct, error) {
	td := p.next() // typedef
	if _, err := p.expect(tIdent, "struct"); err != nil {
		return nil, err
	}
	name, err := p.expect(tIdent, "")
	if err != nil {
		return nil, err
	}
	s := &cstruct{c: name.text, line: td.line}
	if goName, ok := p.peek().annotation(); ok {
		p.next()
		s.goName = goName
	} else if rest, ok := strings.CutPrefix(s.c, "VP"); ok && rest != "" {
		s.goName = rest + "Args"
	} else {
		return nil, p.errf(name, "struct %s: name it VPName (Go: NameArgs) or give its Go name as /* go:Name */ after its tag", s.c)
	}
	if err := goIdent(s.goName); err != nil {
		return nil, p.errf(name, "struct %s: %v", s.c, err)
	}
	if _, err := p.expect(tPunct, "{"); err != nil {
		return nil, err
	}
	var pending *member
	for {
		t := p.peek()
		switch {
		case t.kind == tPunct && t.text == "}":
			p.next()
			if pending != nil {
				s.members = append(s.members, pending)
			}
			end, err := p.expect(tIdent, "")
			if err != nil {
				return nil, err
			}
			if end.text != s.c {
				return nil, p.errf(end, "typedef struct %s { ... } %s: the two names differ", s.c, end.text)
			}
			if _, err := p.expect(tPunct, ";"); err != nil {
				return nil, err
			}
			return s, nil
		case t.kind == tComment:
			p.next()
			if _, ok := t.annotation(); ok {
				return nil, p.errf(t, "a go: annotation goes right after the name it renames")
			}
			if !t.startsLine {
				return nil, p.errf(t, "a comment here is out of place (a field's comment follows its ';')")
			}
			if pending == nil || t.blankBefore {
				if pending != nil {
					s.members = append(s.members, pending)
				}
				pending = &member{blankBefore: t.blankBefore}
			}
			pending.comments = append(pending.comments, commentLines(t)...)
		case t.kind == tIdent:
			d, err := p.parseDecl()
			if err != nil {
				return nil, err
			}
			m := pending
			if m == nil || t.blankBefore {
				if m != nil {
					s.members = append(s.members, m)
				}
				m = &member{blankBefore: t.blankBefore}
			}
			m.decl = d
			s.members = append(s.members, m)
			pending = nil
		default:
			return nil, p.errf(t, "want a field or '}', found %s", describe(t))
		}
	}
}

// parseDecl reads one declaration: type words, then declarators.
func (p *parser) parseDecl() (*decl, error) {
	first := p.peek()
	var words []string
	for p.peek().kind == tIdent {
		words = append(words, p.next().text)
	}
	// The last word before a ',' ';' or annotation is the first declarator's name.
	if t := p.peek(); t.kind != tPunct || t.text != "*" {
		if len(words) < 2 {
			return nil, p.errf(first, "want a declaration (TYPE name;), found %s", describe(t))
		}
		p.pos-- // give the name back
		words = words[:len(words)-1]
	}
	base, ok := baseType(words)
	if !ok {
		return nil, p.errf(first, "type %q is outside the subset (scalars: float, double, int32_t, uint64_t, ...; or a pointer)", strings.Join(words, " "))
	}
	d := &decl{}
	for {
		stars := 0
		for t := p.peek(); t.kind == tPunct && t.text == "*"; t = p.peek() {
			p.next()
			stars++
		}
		name, err := p.expect(tIdent, "")
		if err != nil {
			return nil, err
		}
		if name.text == "const" || name.text == "volatile" || name.text == "restrict" {
			return nil, p.errf(name, "%s after '*' is outside the subset", name.text)
		}
		f := &field{c: name.text, line: name.line, cType: strings.Join(words, " ")}
		if stars == 0 {
			ct, ok := scalars[base]
			if !ok {
				return nil, p.errf(name, "field %s: a %s is allowed behind a pointer only", f.c, base)
			}
			f.goType, f.size = ct.goType, ct.size
		} else {
			f.goType, f.size = pointer.goType, pointer.size
			f.cType += " " + strings.Repeat("*", stars)
		}
		if goName, ok := p.peek().annotation(); ok {
			p.next()
			f.goName = goName
		} else {
			r, n := utf8.DecodeRuneInString(f.c)
			f.goName = string(unicode.ToUpper(r)) + f.c[n:]
		}
		if err := goIdent(f.goName); err != nil {
			return nil, p.errf(name, "field %s: %v (give it a Go name: /* go:Name */ after it)", f.c, err)
		}
		d.fields = append(d.fields, f)
		t := p.next()
		if t.kind == tPunct && t.text == "," {
			continue
		}
		if t.kind != tPunct || t.text != ";" {
			return nil, p.errf(t, "want ',' or ';' after field %s, found %s", f.c, describe(t))
		}
		if c := p.peek(); c.kind == tComment && c.line == t.line && !c.startsLine {
			if _, ok := c.annotation(); ok {
				return nil, p.errf(c, "a go: annotation goes right after the name it renames, before ',' or ';'")
			}
			p.next()
			d.comment = strings.Join(commentLines(c), "")
		}
		return d, nil
	}
}

// baseType checks a declaration's type words (const dropped) and returns them joined.
func baseType(words []string) (string, bool) {
	var kept []string
	for _, w := range words {
		if w != "const" {
			kept = append(kept, w)
		}
	}
	base := strings.Join(kept, " ")
	_, scalar := scalars[base]
	return base, scalar || pointees[base]
}

func goIdent(name string) error {
	if !token.IsIdentifier(name) || !token.IsExported(name) {
		return fmt.Errorf("Go name %q is not an exported Go identifier", name)
	}
	return nil
}

// check lays out each struct as a C compiler does (each field at a multiple of its
// alignment, which is its size; the struct's size a multiple of its largest alignment)
// and enforces the header's rule that no field needs padding before it, and that names
// are unique.
func (h *header) check(name string) error {
	cNames, goNames := map[string]bool{}, map[string]bool{}
	for _, s := range h.structs {
		if cNames[s.c] || goNames[s.goName] {
			return fmt.Errorf("%s:%d: struct %s (Go %s): a name used twice", name, s.line, s.c, s.goName)
		}
		cNames[s.c], goNames[s.goName] = true, true
		var off, align uintptr = 0, 1
		fc, fg := map[string]bool{}, map[string]bool{}
		for _, f := range s.fields() {
			if fc[f.c] {
				return fmt.Errorf("%s:%d: %s.%s declared twice", name, f.line, s.c, f.c)
			}
			if fg[f.goName] {
				return fmt.Errorf("%s:%d: %s.%s: Go name %s used twice (rename it with /* go:Name */)", name, f.line, s.c, f.c, f.goName)
			}
			fc[f.c], fg[f.goName] = true, true
			if off%f.size != 0 {
				return fmt.Errorf("%s:%d: %s.%s (%s) would sit at offset %d after %d bytes of padding: order the fields pointers, 8-byte scalars, 4-byte, 2-byte, 1-byte, so that none is padded",
					name, f.line, s.c, f.c, f.cType, off+f.size-off%f.size, f.size-off%f.size)
			}
			f.offset = off
			off += f.size
			align = max(align, f.size)
		}
		if off == 0 {
			return fmt.Errorf("%s:%d: struct %s has no fields", name, s.line, s.c)
		}
		s.size = (off + align - 1) / align * align
	}
	return nil
}

// fields are a struct's fields in order.
func (s *cstruct) fields() []*field {
	var out []*field
	for _, m := range s.members {
		if m.decl != nil {
			out = append(out, m.decl.fields...)
		}
	}
	return out
}
