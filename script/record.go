package script

import (
	lua "github.com/yuin/gopher-lua"
)

// record is sim:record{ path = "out/clip.mp4", fps = 30 }: a recording of the preview's
// view while the scenario runs, through Options.Record. It returns a table whose
// stop() ends the recording (rec:stop()); a recording still running when the run ends
// is finished then.
func (s *Scenario) record(c call) int {
	c.ensureSim()
	t := c.table(2, `{path = "out/clip.mp4", fps = 30}`)
	c.keys(t, "path", "fps")
	pv, ok := t.RawGetString("path").(lua.LString)
	if !ok || pv == "" {
		c.fail("path is %s, want a file name: out/clip.mp4 (a video, through ffmpeg) or out/f_%%04d.png (numbered pictures)", describeValue(t.RawGetString("path")))
	}
	path := string(pv)
	if err := safeOutputPath(path); err != nil {
		c.fail("%v", err)
	}
	fps := c.num(t, "fps", 30, false, "pictures a simulated second")
	if fps <= 0 || fps > 1000 {
		c.fail("fps is %s: it must be a number of pictures a simulated second in (0, 1000]", fmtNum(fps))
	}
	if s.opt.Record == nil {
		c.fail("recording needs the preview, which this program does not provide: run the scenario with vpbench (run or the UI), which renders offscreen when no window is open")
	}
	resume := s.pauseWatchdog() // starting ffmpeg and the first picture are Go work
	stop, err := s.opt.Record(path, fps)
	resume()
	if err != nil {
		c.fail("%v", err)
	}
	L := c.L
	rec := L.NewTable()
	rec.RawSetString("path", lua.LString(path))
	rec.RawSetString("fps", lua.LNumber(fps))
	rec.RawSetString("stop", L.NewFunction(func(L *lua.LState) int {
		c := call{s, L, "recording:stop"}
		if _, ok := L.Get(1).(*lua.LTable); !ok {
			c.fail("call it with a colon: rec:stop()")
		}
		resume := s.pauseWatchdog()
		err := stop()
		resume()
		if err != nil {
			c.fail("%v", err)
		}
		return 0
	}))
	L.Push(rec)
	return 1
}
