package script

import (
	"math"
	"strings"
	"testing"
)

// TestUnitWarnings: figures far outside a small-liquid scene's range (a domain in
// millimetres, a rate in ml/s, a volume in ml) load and run with a warning naming the
// figure, the script's line and the likely slip, through Print and in Info; figures in
// range warn nothing; a callback repeating a slip warns once.
func TestUnitWarnings(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // each a whole warning line's part, as printed
	}{
		{"domain in mm", "local sim = vp.sim{ size = {100, 100}, height = 50, dx = 0.5, workers = 1 }\n", []string{
			"warning: u.lua:1: vp.sim: size = {100, 100} is 100 m a side, far beyond a small-liquid scene (at most 5 m): vpbench works in metres; 100 mm is 0.1",
			"warning: u.lua:1: vp.sim: height = 50 is 50 m, far beyond a small-liquid scene (at most 5 m): vpbench works in metres; 50 mm is 0.05",
			"warning: u.lua:1: vp.sim: dx = 0.5 is a cell of 0.5 m, far coarser than a small-liquid scene's (at most 0.01 m): vpbench works in metres; 0.5 mm is 0.0005",
		}},
		{"oblong domain", "local sim = vp.sim{ size = {0.1, 80}, dx = 0.001, workers = 1 }\n", []string{
			"warning: u.lua:1: vp.sim: size = {0.1, 80} is 0.1 x 80 m, far beyond a small-liquid scene (at most 5 m): vpbench works in metres; 80 mm is 0.08",
		}},
		{"source in ml/s", small + "sim:source{ at = {0.005, 0.005, 0.005}, rate = 5 }\n", []string{
			"warning: u.lua:2: sim:source: rate = 5 is 5 m^3/s (5000 l/s), far beyond a small-liquid scene (at most 0.001 m^3/s): vpbench works in m^3/s; 5 ml/s is 5e-06",
		}},
		{"sink in ml/s", small + "sim:sink{ at = {0.005, 0.005, 0.005}, rate = 2 }\n", []string{
			"warning: u.lua:2: sim:sink: rate = 2 is 2 m^3/s (2000 l/s)", "2 ml/s is 2e-06",
		}},
		{"spray in ml/s", small + "sim:spray{ at = {0.005, 0.005, 0.005}, speed = 0.5, rate = 3 }\n", []string{
			"warning: u.lua:2: sim:spray: rate = 3 is 3 m^3/s", "3 ml/s is 3e-06",
		}},
		{"set_rate in ml/s", small + "local s = sim:source{ at = {0.005, 0.005, 0.005}, rate = 1e-6 }\ns:set_rate(4)\n", []string{
			"warning: u.lua:3: source:set_rate: rate = 4 is 4 m^3/s", "4 ml/s is 4e-06",
		}},
		{"drop in ml", small + "sim:drop{ at = {0.005, 0.005, 0.005}, volume = 0.02 }\n", []string{
			"warning: u.lua:2: sim:drop: volume = 0.02 is 0.02 m^3 (20 l), far beyond a small-liquid scene (at most 0.01 m^3): vpbench works in m^3; 0.02 ml is 2e-08",
		}},
		{"fill of a metres-large scene", "local sim = vp.sim{ size = {4, 4}, height = 1, dx = 0.01, layers = 1, workers = 1 }\nsim:fill{ at = {1, 1, 0.1}, level = 0.5 }\n", []string{
			"warning: u.lua:2: sim:fill: level = 0.5 filled 8 m^3 (8000 l), far beyond a small-liquid scene (at most 0.01 m^3): vpbench works in metres (0.5 mm is 0.0005)",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &printLog{}
			s := mustLoad(t, "u.lua", c.src, opts(log))
			out := log.text()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("printed\n%s\nwant a warning holding\n%s", out, w)
				}
			}
			if in := s.Info(); len(in.Warnings) == 0 || !strings.Contains("warning: "+strings.Join(in.Warnings, "\nwarning: "), c.want[0]) {
				t.Errorf("Info().Warnings %q lack %q", in.Warnings, c.want[0])
			}
		})
	}

	// A scene in range warns nothing.
	log := &printLog{}
	s := mustLoad(t, "ok.lua", small+`sim:fill{ at = {0.005, 0.005, 0.001}, level = 0.003 }
local src = sim:source{ at = {0.005, 0.005, 0.005}, rate = 2e-6 }
src:set_rate(5e-6)
sim:sink{ at = {0.002, 0.002, 0.001}, rate = 1e-6 }
sim:spray{ at = {0.005, 0.005, 0.008}, speed = 0.3, rate = 1e-6 }
sim:drop{ at = {0.005, 0.005, 0.008}, volume = 2e-8 }
`, opts(log))
	if in := s.Info(); len(in.Warnings) != 0 || strings.Contains(log.text(), "warning") {
		t.Errorf("a scene in range warned: %q", in.Warnings)
	}

	// A callback that repeats the slip warns once, and the scene runs as written.
	log = &printLog{}
	s = mustLoad(t, "cb.lua", small+`local src = sim:source{ at = {0.005, 0.005, 0.005}, rate = 1e-6 }
sim:every(0.001, function() src:set_rate(5) end)
`, opts(log))
	for range 5 {
		if _, err := s.Advance(10); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(log.text(), "source:set_rate: rate = 5 is 5 m^3/s"); n != 1 {
		t.Errorf("the repeated slip warned %d times, want 1:\n%s", n, log.text())
	}
}

// TestBodyOutsideRefused: a body reaching out of the domain, placed by at (also turned
// out by rotate) or where its solid lies, is an error naming the body, its at, its
// extent and the domain, with the side it crosses (docs/bodies.md); a body touching the
// floor or a wall is not.
func TestBodyOutsideRefused(t *testing.T) {
	const cube = `vp.box{ min = {-0.002, -0.002, -0.002}, max = {0.002, 0.002, 0.002} }`
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"half out in x", `sim:body{ solid = ` + cube + `, density = 500, at = {0.001, 0.005, 0.005} }`, []string{
			"sim:body: the body of solid (box) at = {0.001, 0.005, 0.005} spans [-0.001, 0.003] x [0.003, 0.007] x [0.003, 0.007] m, reaching out of the domain [0, 0.01] x [0, 0.01] x [0, 0.01] m (x < 0 by 0.001 m): a body must lie inside the domain",
		}},
		{"over the top", `sim:body{ solid = ` + cube + `, density = 500, at = {0.005, 0.005, 0.0095} }`, []string{
			"at = {0.005, 0.005, 0.0095}", "[0.0075, 0.0115] m", "(z > 0.01 by 0.0015 m)",
		}},
		{"turned out", `sim:body{ solid = vp.box{ min = {-0.0045, -0.001, -0.001}, max = {0.0045, 0.001, 0.001} }, density = 500, at = {0.005, 0.0025, 0.005}, rotate = { axis = {0, 0, 1}, angle = math.pi / 2 } }`, []string{
			"at = {0.005, 0.0025, 0.005}", "[-0.002, 0.007]", "y < 0 by 0.002 m",
		}},
		{"solid lying out", `sim:body{ solid = vp.sphere{ center = {0.0095, 0.005, 0.005}, radius = 0.002 }, density = 500 }`, []string{
			"the body of solid (sphere) where its solid lies (centre of mass {", "x > 0.01 by",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSource("b.lua", []byte(small+c.src+"\n"), opts(nil))
			e := wantError(t, err, "b.lua", 2, c.want...)
			if strings.Contains(e.Msg, "0000000") || strings.Contains(e.Msg, "9999999") {
				t.Errorf("float noise in %q", e.Msg)
			}
		})
	}
	// Touching the floor and two walls, and turned inside, is fine.
	mustLoad(t, "in.lua", small+`sim:body{ solid = `+cube+`, density = 500, at = {0.002, 0.008, 0.002} }
sim:body{ solid = vp.box{ min = {-0.0045, -0.001, -0.001}, max = {0.0045, 0.001, 0.001} }, density = 500, at = {0.005, 0.005, 0.005}, rotate = { axis = {0, 0, 1}, angle = math.pi / 2 } }
`, opts(nil))
}

// TestMessageNumbers: numbers in messages print as the user wrote them, and computed
// ones (float noise) with 6 significant digits: no 0.30000000000000004 in an error.
func TestMessageNumbers(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0.1 + 0.2, "0.3"}, {0.10000000000000013, "0.1"}, {float64(float32(0.1)), "0.1"},
		{100 * 0.0007, "0.07"}, {1.0 / 3, "0.333333"}, {0.0005, "0.0005"}, {1.2345678, "1.2345678"},
		{1e-7, "1e-07"}, {1e308, "1e+308"}, {-0.001, "-0.001"}, {0, "0"}, {100, "100"}, {123456789012, "1.23457e+11"},
		{math.NaN(), "nan"}, {math.Inf(-1), "-inf"},
	} {
		if got := fmtNum(c.f); got != c.want {
			t.Errorf("fmtNum(%v) = %q, want %q", c.f, got, c.want)
		}
	}
	// In messages: a noisy place, a noisy domain (100 cells of 0.7 mm: 0.06999999999999999
	// m), a noisy period, a noisy heightfield point.
	for _, c := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"place and domain", "local sim = vp.sim{ size = {0.07, 0.07}, height = 0.01, dx = 0.0007, workers = 1 }\nsim:source{ at = {0.1 + 0.2, 0.01, 0.005}, rate = 1e-6 }",
			2, "sim:source: at = {0.3, 0.01, 0.005} is outside the 0.07 x 0.07 m domain: lengths are in metres"},
		{"depth", "local sim = vp.sim{ size = {0.07, 0.07}, height = 0.01, dx = 0.0007, workers = 1 }\nsim:depth(0.1 * 3, 0)",
			2, "(x, y) = (0.3, 0) is outside the domain [0, 0.07] x [0, 0.07]"},
		{"period", small + "sim:every(0.1 + 0.2, function() error('boom') end)\nfunction main() vp.wait(1) end",
			2, "(in the sim:every(0.3) callback defined at u.lua:2"},
		{"heightfield point", "local sim = vp.sim{ size = {0.07, 0.07}, height = 0.01, dx = 0.0007, workers = 1 }\nsim:terrain(vp.heightfield(function(x, y)\n  if x > 0.0315 then error('steep') end\n  return 0.001\nend))",
			3, "(in the vp.heightfield fn at x = 0.03185, y = 0.00035)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := LoadSource("u.lua", []byte(c.src), opts(nil))
			if err == nil {
				t.Cleanup(s.Close)
				err = runToEnd(t, s, 100)
			}
			e := wantError(t, err, "u.lua", c.line, c.want)
			if strings.Contains(e.Msg, "0000000") || strings.Contains(e.Msg, "9999999") {
				t.Errorf("float noise in %q", e.Msg)
			}
		})
	}
}
