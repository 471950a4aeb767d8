package script

import (
	"fmt"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// outputMethods are the sim methods that write files: meshes, pictures and clips. The
// pictures are the preview's, through the hooks the run loop gives (Options.Screenshot,
// Options.Record): this package draws nothing.
func (s *Scenario) outputMethods() []decl {
	return []decl{
		{"export_mesh", s.simExportMesh, "sim:export_mesh(path[, {ascii}]): writes the liquid surface, OBJ or PLY (binary, or ASCII)"},
		{"export_bodies", s.simExportBodies, "sim:export_bodies(path[, {ascii}]): writes the floating bodies' surfaces as they are now, OBJ or PLY (binary, or ASCII)"},
		{"export_terrain", s.simExportTerrain, "sim:export_terrain(path[, {ascii}]): writes the terrain's mesh, OBJ or PLY (binary, or ASCII)"},
		{"camera", s.simCamera, "sim:camera{eye, target, fov}: the preview's camera (sim:camera(nil): back to the presets)"},
		{"screenshot", s.simScreenshot, "sim:screenshot(path): writes the preview's picture of the state now, PNG"},
		{"record", s.simRecord, "sim:record{path, fps} -> recording: records the preview's view while the scenario runs"},
	}
}

func (s *Scenario) simExportMesh(L *lua.LState) int {
	return s.exportMeshCall(L, "export_mesh", s.scene.ExportMeshFormat)
}

func (s *Scenario) simScreenshot(L *lua.LState) int {
	c := s.simCall(L, "screenshot")
	c.ensureSolver()
	path := c.pathArg(2)
	if err := safeOutputPath(path); err != nil {
		c.fail("%v", err)
	}
	if !strings.EqualFold(path[max(0, len(path)-4):], ".png") {
		c.fail("%q: screenshots are PNG files (the name must end in .png)", path)
	}
	if s.opt.Screenshot == nil {
		c.fail("screenshots need the preview, which this program does not provide: run the scenario with vpbench (run, render or the UI), which renders offscreen when no window is open")
	}
	resume := s.pauseWatchdog() // rendering is Go work, not the script's
	err := s.opt.Screenshot(s.scene, path)
	resume()
	if err != nil {
		c.fail("%v", err)
	}
	return 0
}

// simRecord is sim:record{ path = "out/clip.mp4", fps = 30 }: a recording of the
// preview's view while the scenario runs, through Options.Record. It returns a table
// whose stop() ends the recording (rec:stop()); a recording still running when the run
// ends is finished then.
func (s *Scenario) simRecord(L *lua.LState) int {
	c := s.simCall(L, "record")
	c.ensureSolver()
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
	fps := c.num(t, "fps", numField{def: 30})
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

// pathArg reads argument n, the path of a file to write: a string (gopher-lua's
// CheckString would raise "bad argument #2 to ?", naming no function).
func (c call) pathArg(n int) string {
	v := c.L.Get(n)
	p, ok := v.(lua.LString)
	if !ok {
		c.fail("the path is %s, want a file name (a string)", describeValue(v))
	}
	return string(p)
}

// safeOutputPath checks a path a script wants to write: relative, inside the working
// folder (no ".."), so that a scenario cannot write anywhere else.
func safeOutputPath(p string) error {
	if p == "" {
		return fmt.Errorf("the path is empty")
	}
	if filepath.IsAbs(p) {
		return fmt.Errorf("%q is an absolute path: scripts write below the working folder (use a relative path)", p)
	}
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
		if part == ".." {
			return fmt.Errorf("%q leaves the working folder", p)
		}
	}
	return nil
}
