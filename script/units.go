package script

import (
	"fmt"
	"strings"
)

// A scene of small amounts of liquid (docs/scripting.md, "Units") lies within these
// bounds; a figure beyond one is most likely in the wrong unit (millimetres for metres,
// ml/s for m^3/s) and is warned, not refused: vpbench runs it as written.
const (
	unitMaxExtent = 5    // m: a domain side or height
	unitMaxDx     = 0.01 // m: a cell
	unitMaxRate   = 1e-3 // m^3/s (1 l/s): a source's, sink's or spray's rate
	unitMaxVolume = 1e-2 // m^3 (10 l): what a fill adds, a drop's volume
)

// warn records a warning at the script line that made the call: "file:line: fn: msg".
// The same field warned at the same line again (a callback called over and over) is
// not repeated: key, when not empty, is what identifies it ("rate").
func (c call) warn(key, format string, a ...any) {
	at := c.where()
	head := fmt.Sprintf("%s:%d: %s: ", at.file, at.line, c.fn)
	if key != "" {
		for _, w := range c.s.warnings {
			if strings.HasPrefix(w, head+key+" ") {
				return
			}
		}
	}
	c.s.warn(head + fmt.Sprintf(format, a...))
}

// checkSimUnits warns about vp.sim's size, height and dx beyond a small-liquid scene's.
func (c call) checkSimUnits(size []float64, height, dx float64) {
	if big := max(size[0], size[1]); big > unitMaxExtent {
		extent := fmtNum(size[0]) + " x " + fmtNum(size[1]) + " m"
		if size[0] == size[1] {
			extent = fmtNum(size[0]) + " m a side"
		}
		c.warn("size", "size = {%s, %s} is %s, far beyond a small-liquid scene (at most %d m): vpbench works in metres; %s mm is %s",
			fmtNum(size[0]), fmtNum(size[1]), extent, unitMaxExtent, fmtNum(big), fmtNum(big*1e-3))
	}
	if height > unitMaxExtent {
		c.warn("height", "height = %s is %s m, far beyond a small-liquid scene (at most %d m): vpbench works in metres; %s mm is %s",
			fmtNum(height), fmtNum(height), unitMaxExtent, fmtNum(height), fmtNum(height*1e-3))
	}
	if dx > unitMaxDx {
		c.warn("dx", "dx = %s is a cell of %s m, far coarser than a small-liquid scene's (at most %s m): vpbench works in metres; %s mm is %s",
			fmtNum(dx), fmtNum(dx), fmtNum(unitMaxDx), fmtNum(dx), fmtNum(dx*1e-3))
	}
}

// checkRate warns about a rate (m^3/s) beyond a small-liquid scene's: sim:source,
// sim:sink, sim:spray and source:set_rate.
func (c call) checkRate(rate float64) {
	if rate > unitMaxRate {
		c.warn("rate", "rate = %s is %s m^3/s (%s l/s), far beyond a small-liquid scene (at most %s m^3/s): vpbench works in m^3/s; %s ml/s is %s",
			fmtNum(rate), fmtNum(rate), fmtNum(rate*1e3), fmtNum(unitMaxRate), fmtNum(rate), fmtNum(rate*1e-6))
	}
}

// checkDropVolume warns about sim:drop's volume (m^3) beyond a small-liquid scene's.
func (c call) checkDropVolume(vol float64) {
	if vol > unitMaxVolume {
		c.warn("volume", "volume = %s is %s m^3 (%s l), far beyond a small-liquid scene (at most %s m^3): vpbench works in m^3; %s ml is %s",
			fmtNum(vol), fmtNum(vol), fmtNum(vol*1e3), fmtNum(unitMaxVolume), fmtNum(vol), fmtNum(vol*1e-6))
	}
}

// checkFillVolume warns about what sim:fill added (m^3) beyond a small-liquid scene's:
// its level, or the domain, is likely in millimetres.
func (c call) checkFillVolume(level, added float64) {
	if added > unitMaxVolume {
		c.warn("level", "level = %s filled %s m^3 (%s l), far beyond a small-liquid scene (at most %s m^3): vpbench works in metres (%s mm is %s) and m^3 (1 ml is 1e-06)",
			fmtNum(level), fmtNum(added), fmtNum(added*1e3), fmtNum(unitMaxVolume), fmtNum(level), fmtNum(level*1e-3))
	}
}
