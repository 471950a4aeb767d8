package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vpbench/vpbench/engine"
)

func TestDepthMapRender(t *testing.T) {
	// 2 x 3 pixels: row 0 deep | dry floor, row 1 solid | shallow, row 2 (alone in the
	// second character row) dry | deep.
	m := engine.DepthMap{W: 2, H: 3, MaxDepth: 0.004,
		Depth:  []float32{0.004, 0, -1, 0.0001, 0, 0.004},
		Ground: []float32{0, 0, 0, 0, 1, 0}}
	rows := renderDepthMap(&m)
	if len(rows) != 2 {
		t.Fatalf("%d rows for 3 pixel rows; want 2", len(rows))
	}
	sgr := func(fg, bg rgb) string {
		return fmt.Sprintf("\x1b[38;2;%d;%d;%d;48;2;%d;%d;%dm▀", fg.r, fg.g, fg.b, bg.r, bg.g, bg.b)
	}
	shallow := lerp(colourShallow, colourDeep, 0.0001/0.004)
	want0 := sgr(colourDeep, colourNone) + sgr(colourDryLow, shallow) + "\x1b[m"
	want1 := sgr(colourDryHigh, colourNone) + sgr(colourDeep, colourNone) + "\x1b[m"
	if rows[0] != want0 {
		t.Errorf("row 0 = %q\nwant    %q", rows[0], want0)
	}
	if rows[1] != want1 {
		t.Errorf("row 1 = %q\nwant    %q", rows[1], want1)
	}
	if !strings.Contains(depthLegend(&m), "0 to 4.00 mm deep") {
		t.Errorf("legend %q: want the scale up to 4.00 mm", depthLegend(&m))
	}
}
