package script

// Fuzzing whole scripts: vp.sim's fields, arbitrary script text, and hostile scripts.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// luaQuote writes s as a Lua string literal (decimal escapes for anything unusual).
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// luaNumber writes f as a Lua expression.
func luaNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "(0/0)"
	case math.IsInf(f, 1):
		return "(1/0)"
	case math.IsInf(f, -1):
		return "(-1/0)"
	}
	return "(" + strconv.FormatFloat(f, 'g', -1, 64) + ")"
}

// luaValue makes a value of the kind chosen by k from the fuzzed number and string.
func luaValue(k uint8, f float64, s string) string {
	switch k % 8 {
	case 0:
		return luaNumber(f)
	case 1:
		return luaQuote(s)
	case 2:
		return "{" + luaNumber(f) + ", " + luaNumber(f/3) + "}"
	case 3:
		return "{" + luaNumber(f) + ", " + luaQuote(s) + "}"
	case 4:
		return strconv.FormatBool(f > 0)
	case 5:
		return "nil"
	case 6:
		return "{" + luaNumber(f) + ", " + luaNumber(f) + ", " + luaNumber(f) + "}"
	}
	return "function() return " + luaNumber(f) + " end"
}

// checkScriptResult is the fuzzers' invariant: a scenario, or an *Error with a place.
func checkScriptResult(t *testing.T, s *Scenario, err error, src string) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not a *script.Error\nscript:\n%s", err, err, src)
		}
		if e.File == "" || e.Msg == "" || e.Line < 0 {
			t.Fatalf("error without a place or message: %#v", e)
		}
		return
	}
	defer s.Close()
	for i := 0; i < 3; i++ {
		advDone, err := s.Advance(4)
		done := advDone.Done
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Advance: %v (%T) is not a *script.Error\nscript:\n%s", err, err, src)
			}
			return
		}
		if done {
			break
		}
	}
	in := s.Info()
	if in.Nx < 1 || in.Ny < 1 || in.Dt <= 0 || math.IsNaN(s.Scene().Volume()) {
		t.Fatalf("bad scenario: %+v", in)
	}
}

// fuzzMaxCells bounds the fuzzed scripts' grids (Options.MaxCells).
const fuzzMaxCells = 20000

// FuzzSimFields fuzzes two fields of vp.sim's table (names and values of any type) on top
// of a small valid grid, then builds a terrain, fills it and steps.
func FuzzSimFields(f *testing.F) {
	for _, name := range simFields {
		f.Add(name, uint8(0), 0.001, "auto", "layers", uint8(0), 3.0, "")
		f.Add(name, uint8(1), -1.0, "paper", "dt", uint8(1), 0.0, "auto")
	}
	f.Add("size", uint8(2), 0.02, "", "dx", uint8(0), 0.0005, "")
	f.Add("dx", uint8(0), math.NaN(), "", "layers", uint8(0), math.Inf(1), "")
	f.Add("size", uint8(3), 1e300, "x", "height", uint8(0), 1e-300, "")
	f.Add("cross_section", uint8(1), 0.0, "film", "extended_pipes", uint8(1), 0.0, "axis")
	f.Add("backend", uint8(1), 0.0, "cuda", "workers", uint8(0), 3.0, "")
	f.Add("\x00", uint8(7), 1.0, "\xff", "", uint8(4), 1.0, "")
	f.Fuzz(func(t *testing.T, f1 string, k1 uint8, n1 float64, s1 string, f2 string, k2 uint8, n2 float64, s2 string) {
		src := "local t = { size = {0.01, 0.01}, height = 0.01, dx = 0.001, workers = 1 }\n" +
			"t[" + luaQuote(f1) + "] = " + luaValue(k1, n1, s1) + "\n" +
			"t[" + luaQuote(f2) + "] = " + luaValue(k2, n2, s2) + "\n" +
			"local sim = vp.sim(t)\n" +
			"sim:terrain(vp.union(vp.box{ min = {0, 0, 0}, max = {0.004, 0.004, 0.002} }, vp.plane{ point = {0, 0, 0.001} }))\n" +
			"sim:fill{ at = {0.001, 0.001, 0.003}, level = 0.003 }\n" +
			"sim:source{ at = {0.001, 0.001, 0.005}, rate = 1e-9 }\n" +
			"function main() vp.wait(0.005) print(sim:volume()) end\n"
		s, err := LoadSource("fuzz.lua", []byte(src), Options{Workers: -1, CallbackTimeout: time.Second, MaxCells: fuzzMaxCells})
		checkScriptResult(t, s, err, src)
	})
}

// FuzzLoadSource loads arbitrary script text.
func FuzzLoadSource(f *testing.F) {
	for _, p := range []string{"testdata/contract.lua", "testdata/helpers.lua", "testdata/uses_helpers.lua", "testdata/mesh_open.lua"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		small,
		small + "function main() vp.wait(0.01) error('x') end",
		small + "sim:every(0.001, function() sim:terrain(vp.sphere{ center = {0.005, 0.005, 0}, radius = 0.003 }) end)",
		small + "main = coroutine.wrap(function() vp.wait(1) end)",
		small + "local co = coroutine.create(vp.wait) print(coroutine.resume(co, 1))",
		small + "sim:at(-1, function() vp.sim{} end)",
		"local sim = vp.sim{ size = {0.01, 0.01}, dx = 0.001 } sim:terrain(vp.heightfield{ fn = function(x, y) return vp.wait(1) end })",
		"vp.sim{} function main() while true do vp.wait(0) end end",
		"x = = 1",
		"#!/usr/bin/env vpbench\n" + small,
		"\xef\xbb\xbf" + small,
		"error(setmetatable({}, {__tostring = function() error('inner') end}))",
		"return string.rep('ab', 1e7):len()",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := LoadSource("fuzz.lua", []byte(src), Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond, MaxCells: fuzzMaxCells})
		checkScriptResult(t, s, err, src)
	})
}

// TestHostileScripts are scripts that attack the host side: none may crash the process.
func TestHostileScripts(t *testing.T) {
	for _, src := range []string{
		small + "setmetatable(_G, {__index = function() error('no globals') end})",
		small + "main = nil setmetatable(_G, {__index = function(t, k) while true do end end})",
		small + "local saved\nfunction main() saved = coroutine.running() vp.wait(0.01) end\nsim:at(0.005, function() print(coroutine.resume(saved)) end)",
		small + "function main() print(coroutine.resume(coroutine.running())) end",
		small + "print(string.rep('x', 0/0), string.rep('x', -1), string.rep('', 1e300))",
		small + "print(setmetatable({}, {__tostring = function() return {} end}))",
		small + "error(setmetatable({}, {__tostring = function() error('inner') end}))",
		small + "print(pcall(unpack, {}, 1, 1e8))",
		small + "setfenv(1, {})",
		small + "sim:terrain(vp.heightfield{ fn = function(x, y) sim:fill{ at = {x, y, 0}, level = 1 } return 0 end })",
		small + "sim:terrain(vp.heightfield{ fn = function(x, y) return sim:time() end })",
		small + "sim:terrain(vp.heightfield{ fn = function(x, y) sim:terrain(vp.box{ min = {0, 0, 0}, max = {1, 1, 1} }) return 0 end })",
	} {
		s, err := LoadSource("hostile.lua", []byte(src), Options{Workers: -1, CallbackTimeout: 100 * time.Millisecond})
		checkScriptResult(t, s, err, src)
		t.Logf("%v", err)
	}
}
