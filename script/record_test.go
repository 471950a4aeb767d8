package script

import (
	"errors"
	"strings"
	"testing"
)

// TestRecordChecks: sim:record checks its fields before it asks the host, and says what
// is needed without one; rec:stop() reaches the host's stop.
func TestRecordChecks(t *testing.T) {
	const grid = "local sim = vp.sim{ size = {0.01, 0.01}, dx = 0.001, layers = 1 }\n"
	var started []string
	stopped := 0
	o := opts(nil)
	o.Record = func(path string, fps float64) (func() error, error) {
		if strings.HasPrefix(path, "fail") {
			return nil, errors.New("no ffmpeg here")
		}
		started = append(started, path)
		return func() error { stopped++; return nil }, nil
	}
	for _, tc := range []struct{ src, want string }{
		{`sim:record{ fps = 30 }`, "path is nil"},
		{`sim:record{ path = "/tmp/x.mp4" }`, "absolute path"},
		{`sim:record{ path = "../x.mp4" }`, "leaves the working folder"},
		{`sim:record{ path = "x.mp4", fps = 0 }`, "fps is 0"},
		{`sim:record{ path = "x.mp4", speed = 2 }`, `unknown field "speed"`},
		{`sim:record{ path = "fail.mp4" }`, "no ffmpeg here"},
	} {
		_, err := LoadSource("rec.lua", []byte(grid+tc.src), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rec.lua:2") {
			t.Errorf("%s: %v, want rec.lua:2 and %q", tc.src, err, tc.want)
		}
	}
	s := mustLoad(t, "ok.lua", grid+`local rec = sim:record{ path = "out/c.mp4", fps = 25 }
assert(rec.path == "out/c.mp4" and rec.fps == 25)
rec:stop()
`, o)
	_ = s
	if len(started) != 1 || started[0] != "out/c.mp4" || stopped != 1 {
		t.Errorf("started %v, stopped %d: want out/c.mp4 once, stopped once", started, stopped)
	}
	if _, err := LoadSource("none.lua", []byte(grid+`sim:record{ path = "c.mp4" }`), opts(nil)); err == nil || !strings.Contains(err.Error(), "recording needs the preview") {
		t.Errorf("without a host: %v", err)
	}
}
