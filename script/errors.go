package script

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Error is a script error with its place: "file:line: message". Every error a script
// causes (syntax, runtime, bad field, callback timeout, solver refusal) is an *Error whose
// File and Line point into the user's script (the line of the vp call for API errors, the
// line that was running for a timeout). File is the script's path as given to Load (or
// LoadSource's name), or the path of a module it required. Line is 0 only when no line
// applies (a script that never calls vp.sim); Error then prints "file: message".
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// place is a position in a script, the fallback for errors that carry none.
type place struct {
	file string
	line int
}

// syntaxError turns what L.Load returned for src into an *Error.
func syntaxError(err error, file string, src []byte) *Error {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Cause != nil {
		err = ae.Cause
	}
	var pe *parse.Error
	if errors.As(err, &pe) {
		msg := strings.TrimSpace(pe.Message)
		if pe.Pos.Line == parse.EOF {
			// The lexer reports the end of the file without a line: it is the last one.
			return &Error{File: file, Line: lastLine(src), Msg: msg + " at the end of the file"}
		}
		line := pe.Pos.Line
		if pe.Pos.Column == 0 && line > 1 {
			// The lexer has consumed the newline that ended the bad token (an
			// unterminated string): the token is on the line before.
			line--
		}
		if pe.Token != "" {
			msg = fmt.Sprintf("%s near '%s'", msg, pe.Token)
		}
		return &Error{File: file, Line: line, Msg: msg}
	}
	var ce *lua.CompileError
	if errors.As(err, &ce) {
		return &Error{File: file, Line: ce.Line, Msg: strings.TrimSpace(ce.Message)}
	}
	msg := strings.TrimSpace(err.Error())
	if f, l, rest, ok := splitPlace(msg, []string{file}); ok {
		return &Error{File: f, Line: l, Msg: rest}
	}
	return &Error{File: file, Line: 1, Msg: msg}
}

// lastLine is the number of the last line of src (1 for an empty file).
func lastLine(src []byte) int {
	n := 1 + strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] == '\n' {
		n--
	}
	return max(n, 1)
}

// splitPlace splits "chunk:line: message" where chunk is one of the known chunk names
// (tried longest first, so that names holding ':' still split right). Failing those, it
// accepts any "name:line: " prefix without spaces or newlines in the name.
func splitPlace(msg string, chunks []string) (file string, line int, rest string, ok bool) {
	names := append([]string(nil), chunks...)
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		if n == "" || !strings.HasPrefix(msg, n+":") {
			continue
		}
		if l, r, ok := splitLine(msg[len(n)+1:]); ok {
			return n, l, r, true
		}
	}
	if i := strings.IndexByte(msg, ':'); i > 0 && !strings.ContainsAny(msg[:i], " \t\n") {
		if l, r, ok := splitLine(msg[i+1:]); ok {
			return msg[:i], l, r, true
		}
	}
	return "", 0, msg, false
}

// splitLine splits "12: message" into 12 and "message".
func splitLine(s string) (int, string, bool) {
	j := 0
	for j < len(s) && j < 10 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 || j >= len(s) || s[j] != ':' {
		return 0, "", false
	}
	n, err := strconv.Atoi(s[:j])
	if err != nil || n <= 0 {
		return 0, "", false
	}
	return n, strings.TrimLeft(s[j+1:], " "), true
}

// traceLine finds the first frame of a known chunk in a gopher-lua stack traceback
// ("\tname:12: in function ...").
func traceLine(trace string, chunks []string) (string, int, bool) {
	for _, ln := range strings.Split(trace, "\n") {
		ln = strings.TrimSpace(ln)
		if f, l, _, ok := splitPlace(ln, chunks); ok && f != "[G]" {
			for _, c := range chunks {
				if c == f {
					return f, l, true
				}
			}
		}
	}
	return "", 0, false
}

// errorValue describes a Lua error value that is not a string, as Lua's own
// interpreter does.
func errorValue(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return v.String()
	case nil:
		return "error object is nil"
	}
	if v == lua.LNil {
		return "error object is nil"
	}
	return fmt.Sprintf("error object is a %s value", v.Type().String())
}

// luaError turns an error from a protected call into Lua (PCall, Resume) into an *Error.
// The place comes from the message ("chunk:line: ..."), else from the traceback, else
// from fallback (the callback's definition). context, when not empty, is appended to the
// message to say which callback failed.
func (s *Scenario) luaError(err error, fallback place, context string) *Error {
	var msg, trace string
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		msg, trace = errorValue(ae.Object), ae.StackTrace
	} else {
		msg = err.Error()
	}
	e := &Error{File: fallback.file, Line: fallback.line, Msg: strings.TrimSpace(msg)}
	if f, l, rest, ok := splitPlace(e.Msg, s.chunks); ok {
		e.File, e.Line, e.Msg = f, l, rest
	} else if f, l, ok := traceLine(trace, s.chunks); ok {
		e.File, e.Line = f, l
	}
	if context != "" {
		e.Msg += " (" + context + ")"
	}
	return e
}
