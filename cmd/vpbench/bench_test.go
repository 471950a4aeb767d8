package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// channelScript is a channel of 2 mm cells, 5 mm deep; with region = "on" a 3D region of
// 1 mm cells (8 x 10 x 8) over its middle from the start.
const channelScript = `local sim = vp.sim{ size = {0.02, 0.01}, height = 0.012, dx = 0.002, layers = 1, capillarity = "off" }
sim:terrain(vp.box{ min = {0, 0, 0}, max = {0.02, 0.01, 0.001} })
sim:fill{ at = {0.01, 0.005, 0.002}, level = 0.005 }
if REGION == "on" then
  sim:region{ min = {0.006, 0, 0}, max = {0.014, 0.01, 0.008}, refine = 2 }
end
`

// TestBenchRegion: bench reports a 3D region's cost for the scene that places one (a row
// under its Table 1, part of its simulation row, with its time a step and the region at
// the end; a summary column; a "region" object in the JSON), and nothing of it for the
// scene without one, whose row in the summary has a dash.
func TestBenchRegion(t *testing.T) {
	dir := t.TempDir()
	for name, on := range map[string]string{"channel": "on", "plain": "off"} {
		src := strings.ReplaceAll(channelScript, "REGION", `"`+on+`"`)
		if err := os.WriteFile(filepath.Join(dir, name+".lua"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jsonPath := filepath.Join(t.TempDir(), "bench.json")
	code, out, errOut := runCLI(t, "bench", "--until", "0.05", "--json", jsonPath, "--workers", "1", dir)
	if code != exitOK {
		t.Fatalf("exit %d, stderr: %s\n%s", code, errOut, out)
	}
	channel, plain, ok := strings.Cut(out, "\nplain.lua:")
	if !ok {
		t.Fatalf("no plain.lua report:\n%s", out)
	}
	plain, summary, _ := strings.Cut(plain, "\nscenario ")
	if !regexp.MustCompile(`\n  3D region +[0-9.]+ +[0-9.]+   \(part of simulation: [0-9.]+ ms a step over its \d+ steps; 8×10×8 cells of 1 mm, \d+ particles at the end\)\n`).MatchString(channel) {
		t.Errorf("the region's scene lacks its region row:\n%s", channel)
	}
	if strings.Contains(plain, "region") {
		t.Errorf("the scene without a region reports one:\n%s", plain)
	}
	if !strings.Contains(summary, "x steady region/step") || !regexp.MustCompile(`\nchannel\.lua .* [0-9.]+ +[0-9.]+\n`).MatchString(summary) ||
		!regexp.MustCompile(`\nplain\.lua .* +-\n`).MatchString(summary) {
		t.Errorf("the summary's region column:\nscenario %s", summary)
	}
	var reps []map[string]any
	b, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(b, &reps); err != nil || len(reps) != 2 {
		t.Fatalf("bench JSON: %v, %d reports", err, len(reps))
	}
	for _, r := range reps {
		g, has := r["region"].(map[string]any)
		switch r["scenario"] {
		case "plain.lua":
			if _, in := r["region"]; in {
				t.Errorf("plain.lua's JSON has a region: %v", r["region"])
			}
		case "channel.lua":
			num := func(k string) float64 { v, _ := g[k].(float64); return v }
			if !has || num("frames") == 0 || !(num("avg_ms") > 0) || !(num("max_ms") >= num("avg_ms")) || !(num("step_ms") > 0) ||
				num("steps") == 0 || num("nx") != 8 || num("ny") != 10 || num("nz") != 8 || num("cell_mm") != 1 || num("particles") == 0 {
				t.Errorf("channel.lua's region in the JSON: %v", r["region"])
			}
			sim, _ := r["simulation"].(map[string]any)
			if f, _ := sim["frames"].(float64); num("frames") != f || num("steps") != r["steps"] {
				t.Errorf("the region placed at the start stepped in %v frames over %v steps; the run %v over %v", g["frames"], g["steps"], f, r["steps"])
			}
		default:
			t.Errorf("a report of %v", r["scenario"])
		}
	}
}
