package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	didyoumean "github.com/vpbench/vpbench/internal/suggest"
	"github.com/vpbench/vpbench/scene"
)

// call is one call from Lua into a vp function; its helpers check arguments and raise
// Lua errors "fn: message" placed at the script line that made the call.
type call struct {
	s  *Scenario
	L  *lua.LState
	fn string // as scripts write it: "vp.box", "sim:source"
}

// fail raises a Lua error at the calling line of the script. It does not return.
func (c call) fail(format string, a ...any) {
	c.L.RaiseError("%s", c.fn+": "+fmt.Sprintf(format, a...))
}

// where is the place of the script line that made the call: the nearest Lua frame.
func (c call) where() place {
	for level := 1; ; level++ {
		dbg, ok := c.L.GetStack(level)
		if !ok {
			return place{c.s.file, 0}
		}
		if _, err := c.L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			continue
		}
		if dbg.What != "G" && dbg.CurrentLine > 0 {
			return place{dbg.Source, dbg.CurrentLine}
		}
	}
}

// raise raises err: an *Error keeps its own place (a heightfield fn's line), anything
// else is placed at the calling line as "fn: err".
func (c call) raise(err error) {
	if e, ok := err.(*Error); ok {
		c.s.raised = e
		c.L.Error(lua.LString(e.Error()), 0)
	}
	c.fail("%s", strings.TrimPrefix(err.Error(), "terrain: "))
}

// notInHeightfield refuses calls that would touch the solver from a heightfield fn,
// which runs in the middle of a terrain extraction.
func (c call) notInHeightfield() {
	if c.s.hf.busy {
		c.fail("not allowed inside a vp.heightfield fn: fn(x, y) must only compute the height z")
	}
}

// colonSelf is the call of method name (as scripts write it: "meter:rate") and the
// handle it was called on, the *T in the userdata before the colon; called with a dot,
// or on anything else, it fails saying so (what the handle is, and the letter the
// example calls it by: "a flow meter", "m" gives "(m:rate...)").
func colonSelf[T any](s *Scenario, L *lua.LState, name, what, letter string) (call, *T) {
	c := call{s, L, name}
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if v, ok := ud.Value.(*T); ok {
			c.notInHeightfield()
			return c, v
		}
	}
	c.fail("call it with a colon on %s (%s%s...)", what, letter, name[strings.IndexByte(name, ':'):])
	return c, nil
}

// fmtNum prints a number for a message the way Lua users write it (nan, inf): every
// script error and warning formats its numbers through it. A number as a user writes
// one (0.0005, 1.5e-6, 0.1234567: at most maxWrittenDigits significant digits) prints
// as written; one with more, float noise from arithmetic (0.1 + 0.2 =
// 0.30000000000000004, 200 x 0.0005 = 0.10000000000000002) or a float32's widening,
// prints with 6 significant digits, as %.6g does: 0.3, 0.1.
func fmtNum(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if significantDigits(s) <= maxWrittenDigits {
		return s
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// maxWrittenDigits is the most significant digits fmtNum takes for a number as written:
// beyond it a number is a computed one, its last digits noise.
const maxWrittenDigits = 10

// significantDigits counts the significant digits of a number formatted by strconv's
// 'g' (its mantissa's digits, without leading zeros).
func significantDigits(s string) int {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	n, lead := 0, true
	for _, r := range s {
		switch {
		case r < '0' || r > '9':
		case r == '0' && lead:
		default:
			lead = false
			n++
		}
	}
	return n
}

// table returns argument n, which must be a table (usage shows its shape).
func (c call) table(n int, usage string) *lua.LTable {
	v := c.L.Get(n)
	t, ok := v.(*lua.LTable)
	if !ok {
		c.fail("want a table %s, got %s", usage, typeName(v))
	}
	return t
}

// optTable is table, but nil (no argument) gives an empty table.
func (c call) optTable(n int, usage string) *lua.LTable {
	if c.L.Get(n) == lua.LNil {
		return c.L.NewTable()
	}
	return c.table(n, usage)
}

// keys refuses positional values and fields not in allowed, listing the allowed ones.
func (c call) keys(t *lua.LTable, allowed ...string) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		ks, ok := k.(lua.LString)
		if !ok {
			c.fail("unexpected value [%s] = %s: fields are named (allowed fields: %s)",
				describeValue(k), describeValue(v), strings.Join(allowed, ", "))
		}
		if !contains(allowed, string(ks)) {
			c.fail("unknown field %s%s: allowed fields are %s", describeValue(ks), suggest(string(ks), allowed), strings.Join(allowed, ", "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest proposes the allowed name a misspelt one most likely meant: " (did you mean
// x?)", or "" when none is near (nearest).
func suggest(name string, allowed []string) string {
	if a, ok := nearest(name, allowed); ok {
		return fmt.Sprintf(" (did you mean %s?)", a)
	}
	return ""
}

// nearest is the candidate a misspelt name most likely meant: one that differs only in
// case or underscores, else the closest within a Damerau-Levenshtein distance of 2 (1
// for names of 4 letters or fewer, where 2 would match nearly anything), case and
// underscores ignored; the first of equally close ones.
func nearest(name string, candidates []string) (string, bool) {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "") }
	return didyoumean.Closest(name, candidates, norm)
}

// describeValue prints a value briefly for a message.
func describeValue(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LNumber:
		return fmtNum(float64(v))
	case lua.LString:
		s := string(v)
		if len(s) > 40 {
			return strconv.Quote(s[:40]) + "..."
		}
		return strconv.Quote(s)
	case lua.LBool:
		return v.String()
	}
	return typeName(v)
}

// number checks that v (field or argument name) is a finite number.
func (c call) number(name string, v lua.LValue) float64 {
	n, ok := v.(lua.LNumber)
	if !ok {
		c.fail("%s is %s, want a number", name, typeName(v))
	}
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		c.fail("%s is %s: it must be a finite number", name, fmtNum(f))
	}
	return f
}

// numField says how a number field is read. Absent, it takes def, or is an error when
// required (the message says it should be want, or "a number of unit"). Present, it must
// be a finite number, and at least min when hasMin is set (more than min when above).
type numField struct {
	def      float64
	required bool
	want     string // what a missing required field should be: "a height in m"
	hasMin   bool
	min      float64
	above    bool   // min itself is refused
	unit     string // the unit in a bound's message: "m", "m^3/s"
}

// num reads a number field as f says.
func (c call) num(t *lua.LTable, key string, f numField) float64 {
	v := t.RawGetString(key)
	if v == lua.LNil {
		if f.required {
			want := f.want
			if want == "" {
				want = "a number of " + f.unit
			}
			c.fail("%s is missing: want %s", key, want)
		}
		return f.def
	}
	x := c.number(key, v)
	if f.hasMin && (x < f.min || f.above && x == f.min) {
		op := ">="
		if f.above {
			op = ">"
		}
		c.fail("%s is %s: it must be %s %s %s", key, fmtNum(x), op, fmtNum(f.min), f.unit)
	}
	return x
}

// intField says how a whole-number field is read: def when absent, else a whole number
// in [min, max].
type intField struct {
	def, min, max int
}

// integer reads a whole-number field as f says.
func (c call) integer(t *lua.LTable, key string, f intField) int {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return f.def
	}
	x := c.number(key, v)
	if x != math.Trunc(x) {
		c.fail("%s is %s: it must be a whole number", key, fmtNum(x))
	}
	if x < float64(f.min) || x > float64(f.max) {
		c.fail("%s is %s: it must be between %d and %d", key, fmtNum(x), f.min, f.max)
	}
	return int(x)
}

// choice reads a string field that must be one of choices, its case ignored ("SWE" is
// "swe"); it returns the name as choices spell it.
func (c call) choice(t *lua.LTable, key, def string, choices ...string) string {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return def
	}
	s, ok := v.(lua.LString)
	name := ""
	if ok {
		name, ok = scene.CanonicalName(choices, string(s))
	}
	if !ok {
		q := make([]string, len(choices))
		for i, ch := range choices {
			q[i] = strconv.Quote(ch)
		}
		c.fail("%s is %s: want %s", key, describeValue(v), strings.Join(q, ", "))
	}
	return name
}

var vecShapes = map[int]string{2: "{x, y}", 3: "{x, y, z}"}

// vec reads a field that must hold an array of n numbers ({x, y, z}).
func (c call) vec(t *lua.LTable, key string, n int) []float64 {
	v := t.RawGetString(key)
	if v == lua.LNil {
		c.fail("%s is missing: want %d numbers %s", key, n, vecShapes[n])
	}
	return c.vecValue(key, v, n)
}

// optVec reads a field that may hold an array of n numbers; ok is false when absent.
func (c call) optVec(t *lua.LTable, key string, n int) (_ []float64, ok bool) {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return nil, false
	}
	return c.vecValue(key, v, n), true
}

// vecValue checks that v (named name) is an array of exactly n finite numbers.
func (c call) vecValue(name string, v lua.LValue, n int) []float64 {
	t, ok := v.(*lua.LTable)
	if !ok {
		c.fail("%s is %s, want a table of %d numbers %s", name, typeName(v), n, vecShapes[n])
	}
	count := 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		kn, ok := k.(lua.LNumber)
		if !ok || float64(kn) != math.Trunc(float64(kn)) || kn < 1 || float64(kn) > float64(n) {
			c.fail("%s has an unexpected entry [%s]: want %d numbers %s", name, describeValue(k), n, vecShapes[n])
		}
		count++
	}
	if count != n {
		c.fail("%s has %d values, want %d numbers %s", name, count, n, vecShapes[n])
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = c.number(fmt.Sprintf("%s[%d]", name, i+1), t.RawGetInt(i+1))
	}
	return out
}

// boolean reads an optional boolean field (def when absent).
func (c call) boolean(t *lua.LTable, key string, def bool) bool {
	switch v := t.RawGetString(key).(type) {
	case lua.LBool:
		return bool(v)
	case *lua.LNilType:
		return def
	default:
		c.fail("%s is a %s: want true or false", key, v.Type())
	}
	return def
}
