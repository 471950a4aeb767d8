package engine

import (
	"context"
	"testing"

	"github.com/vpbench/vpbench/script"
)

// regionScript is a channel of 2 mm cells, 5 mm deep, with a 3D region of 1 mm cells
// over its middle (8 x 10 x 8 cells) placed at 0.05 s (vp.param("region", "on");
// "off": none), and removed at 0.1 s with vp.param("remove", "yes").
const regionScript = `local sim = vp.sim{ size = {0.02, 0.01}, height = 0.012, dx = 0.002, layers = 1, capillarity = "off" }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.02, 0.01, 0.001} })
sim:fill{ at = {0.01, 0.005, 0.002}, level = 0.005 }
local rg
if vp.param("region", "on") == "on" then
  sim:at(0.05, function() rg = sim:region{ min = {0.006, 0, 0}, max = {0.014, 0.01, 0.008}, refine = 2 } end)
end
if vp.param("remove", "no") == "yes" then
  sim:at(0.1, function() rg:remove() end)
end
`

// runRegion runs regionScript headless to 0.15 s with params and returns how it ended.
func runRegion(t *testing.T, params map[string]string) Result {
	t.Helper()
	p := &probe{}
	r := New(Config{Source: []byte(regionScript), SourceName: "region.lua", Speed: Speed{Max: true}, Headless: true, Until: 0.15,
		NoMap: true, Script: script.Options{Workers: 1, Params: params}}, p.send)
	r.Run(context.Background())
	res := r.Result()
	if res.Err != nil {
		t.Fatalf("run: %v\n%s", res.Err, p.logText())
	}
	return res
}

// TestRunnerCarriesTheRegion: the State carries the region in place (its cells and
// particles, scene.RegionInfo) and Table 1's region row: the region's own time per
// frame, from the frames it stepped in, over its own steps (the region's, placed after
// the first frames: fewer than the run's). The simulation row counts every frame, as
// without a region. Without a region the row is empty and the State says none; a
// region removed before the end leaves its row and takes its description.
func TestRunnerCarriesTheRegion(t *testing.T) {
	res := runRegion(t, nil)
	st := res.State
	if !st.HasRegion || st.Region.NX != 8 || st.Region.NY != 10 || st.Region.NZ != 8 || st.Region.H != 0.001 || st.Region.Particles == 0 {
		t.Errorf("the State's region: %v, %+v; want 8 x 10 x 8 cells of 1 mm with particles", st.HasRegion, st.Region)
	}
	tm := st.Total
	if tm.Region.Frames == 0 || !(tm.Region.AvgMs > 0) || !(tm.Region.MaxMs >= tm.Region.AvgMs) {
		t.Errorf("Table 1's region row: %+v", tm.Region)
	}
	if tm.RegionSteps != st.Region.Steps || tm.RegionSteps == 0 || tm.RegionSteps >= tm.Steps {
		t.Errorf("the region row's steps %d, the region's own %d, the run's %d: want the region's, fewer than the run's", tm.RegionSteps, st.Region.Steps, tm.Steps)
	}
	if tm.Region.Frames >= tm.Simulation.Frames {
		t.Errorf("%d region frames of %d: the frames before the region counted", tm.Region.Frames, tm.Simulation.Frames)
	}
	if st.Window.Region.Frames == 0 || st.Window.Region.Frames > st.Window.Simulation.Frames {
		t.Errorf("the window's region row %+v, simulation %+v", st.Window.Region, st.Window.Simulation)
	}

	off := runRegion(t, map[string]string{"region": "off"})
	if off.State.HasRegion || off.State.Total.Region.Frames != 0 || off.State.Total.RegionSteps != 0 || off.State.Window.Region.Frames != 0 {
		t.Errorf("without a region: %v, total %+v (%d steps), window %+v", off.State.HasRegion, off.State.Total.Region, off.State.Total.RegionSteps, off.State.Window.Region)
	}
	if off.State.Total.Simulation.Frames != tm.Simulation.Frames {
		t.Errorf("%d simulation frames without a region, %d with: a frame is a frame", off.State.Total.Simulation.Frames, tm.Simulation.Frames)
	}

	gone := runRegion(t, map[string]string{"remove": "yes"})
	if gone.State.HasRegion || gone.State.Total.Region.Frames == 0 || gone.State.Total.RegionSteps >= tm.RegionSteps {
		t.Errorf("a region removed at 0.1 s: in place %v, its row %+v over %d steps (kept to the end: %d)",
			gone.State.HasRegion, gone.State.Total.Region, gone.State.Total.RegionSteps, tm.RegionSteps)
	}
}
