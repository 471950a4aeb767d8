package gpusim

// The passage rebuild keeps its full columns in a list updated from the blocks where a
// flag flipped, finds the openings in the search that finds the members, and looks the
// history up by opening. These tests check that it gives exactly what the rebuild from
// scratch gave (refRebuild, the code it replaced, kept verbatim): the same full list,
// passages, members in the same order, openings, keys, gaps and carried fluxes, or the same
// axis pipes.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refRebuild is the rebuild from scratch: every capped column scanned, the members found
// by one search, the openings by a second pass, the history sorted and binary-searched.
func refRebuild(e *extended, h []float32) {
	if e.dirty {
		for _, i := range e.capped {
			e.full[i] = h[i] >= e.cols.Max[i]-e.fullTol
		}
		e.dirty = false
	}
	for _, i := range e.members {
		e.label[i] = -1
	}
	e.members = e.members[:0]
	e.pStart = append(e.pStart[:0], 0)
	e.fullList = e.fullList[:0]
	for _, i := range e.capped {
		if e.full[i] {
			e.fullList = append(e.fullList, i)
		}
	}
	t := e.topo
	var queue []int32
	for _, s := range e.fullList {
		if e.label[s] >= 0 {
			continue
		}
		p := int32(len(e.pStart) - 1)
		e.label[s] = p
		queue = append(queue[:0], s)
		for q := 0; q < len(queue); q++ {
			i := queue[q]
			e.members = append(e.members, i)
			for a := t.adjStart[i]; a < t.adjStart[i+1]; a++ {
				if j := t.adjOther[a]; e.full[j] && e.label[j] < 0 {
					e.label[j] = p
					queue = append(queue, j)
				}
			}
		}
		e.pStart = append(e.pStart, int32(len(e.members)))
	}
	switch e.mode {
	case ExtendedUnified:
		refFindOpenings(e)
	case ExtendedAxis:
		e.findRuns()
	}
}

func refGapOf(e *extended, p int) float32 {
	var s float32
	ms := e.members[e.pStart[p]:e.pStart[p+1]]
	for _, i := range ms {
		s += e.cols.Max[i] - e.cols.Base[i]
	}
	return s / float32(len(ms))
}

func refFindOpenings(e *extended) {
	t := e.topo
	var hist []axisFlux
	for k, key := range e.uKey {
		hist = append(hist, axisFlux{key: key, f: e.uF[k]})
	}
	slices.SortFunc(hist, compareAxisFlux)
	e.uCol, e.uKey, e.uF = e.uCol[:0], e.uKey[:0], e.uF[:0]
	e.uStart = append(e.uStart[:0], 0)
	e.uGap = e.uGap[:0]
	seen := make(map[int32]bool)
	for q := range len(e.pStart) - 1 {
		clear(seen)
		first := len(e.uCol)
		rep := e.members[e.pStart[q]]
		for _, i := range e.members[e.pStart[q]:e.pStart[q+1]] {
			for a := t.adjStart[i]; a < t.adjStart[i+1]; a++ {
				b := t.adjOther[a]
				if e.full[b] || seen[b] {
					continue
				}
				seen[b] = true
				key := axisKey(b, rep)
				var f float32
				if h, found := slices.BinarySearchFunc(hist, axisFlux{key: key}, compareAxisFlux); found {
					f = hist[h].f
				}
				e.uCol, e.uKey, e.uF = append(e.uCol, b), append(e.uKey, key), append(e.uF, f)
			}
		}
		if len(e.uCol)-first < 2 {
			e.uCol, e.uKey, e.uF = e.uCol[:first], e.uKey[:first], e.uF[:first]
		}
		e.uStart = append(e.uStart, int32(len(e.uCol)))
		e.uGap = append(e.uGap, refGapOf(e, q))
	}
}

// cloneForRef copies what a rebuild reads and writes into a fresh extended, for
// refRebuild.
func cloneForRef(e *extended) *extended {
	return &extended{
		mode: e.mode, cols: e.cols, topo: e.topo, capped: e.capped, dirY: e.dirY, fullTol: e.fullTol,
		dirty:    e.dirty,
		full:     slices.Clone(e.full),
		label:    slices.Clone(e.label),
		members:  slices.Clone(e.members),
		pStart:   slices.Clone(e.pStart),
		fullList: slices.Clone(e.fullList),
		uCol:     slices.Clone(e.uCol),
		uKey:     slices.Clone(e.uKey),
		uF:       slices.Clone(e.uF),
		uStart:   slices.Clone(e.uStart),
		uGap:     slices.Clone(e.uGap),
		aPrev:    slices.Clone(e.aPrev),
		axis:     slices.Clone(e.axis),
	}
}

// sameRebuild fails unless e and ref hold the same passages and openings, bit for bit.
func sameRebuild(t *testing.T, at string, e, ref *extended) {
	t.Helper()
	bitsOf := func(fs []float32) []uint32 {
		b := make([]uint32, len(fs))
		for k, f := range fs {
			b[k] = math.Float32bits(f)
		}
		return b
	}
	check := func(what string, same bool) {
		t.Helper()
		if !same {
			t.Fatalf("%s: %s differ from the rebuild from scratch", at, what)
		}
	}
	check("full flags", slices.Equal(e.full, ref.full))
	check("full lists", slices.Equal(e.fullList, ref.fullList))
	for i, l := range e.listed {
		if want := ref.full[i] && e.isCapped[i]; l != want {
			t.Fatalf("%s: column %d listed %v, full %v", at, i, l, want)
		}
	}
	check("labels", slices.Equal(e.label, ref.label))
	check("members", slices.Equal(e.members, ref.members))
	check("passage starts", slices.Equal(e.pStart, ref.pStart))
	switch e.mode {
	case ExtendedUnified:
		check("openings", slices.Equal(e.uCol, ref.uCol))
		check("keys", slices.Equal(e.uKey, ref.uKey))
		check("opening starts", slices.Equal(e.uStart, ref.uStart))
		check("gaps", slices.Equal(bitsOf(e.uGap), bitsOf(ref.uGap)))
		check("carried fluxes", slices.Equal(bitsOf(e.uF), bitsOf(ref.uF)))
	case ExtendedAxis:
		check("axis pipes", slices.Equal(e.axis, ref.axis))
	}
}

// flipRandom toggles the full flags of n random capped columns as a height phase would
// (through updateFull, counted in flips), some of them twice, and returns how many flags
// flipped.
func flipRandom(e *extended, rng *rand.Rand, n int) int {
	flipped := 0
	for range n {
		i := int(e.capped[rng.IntN(len(e.capped))])
		c := e.cols
		h := c.Max[i]
		if e.full[i] {
			if c.Base[i] >= c.Max[i]-e.fullTol {
				continue // too thin to be anything but full
			}
			h = c.Base[i]
		}
		for range 1 + rng.IntN(2) { // once, or there and back
			if e.updateFull(i, h) {
				e.flips[0]++
				flipped++
			}
			if h == c.Max[i] {
				h = c.Base[i]
			} else {
				h = c.Max[i]
			}
		}
	}
	return flipped
}

// TestRebuildMatchesFromScratch: random flooded multi-layer states, stepped, with random
// flips on top of the ones the height phase makes; before every step that rebuilds, the
// rebuild must give exactly what the rebuild from scratch gives from the same flags and
// history, in both modes, with 1 and 3 workers.
func TestRebuildMatchesFromScratch(t *testing.T) {
	for _, mode := range []ExtendedPipes{ExtendedUnified, ExtendedAxis} {
		for _, workers := range []int{1, 3} {
			for seed := range uint64(3) {
				rebuildMatchesFromScratch(t, mode, workers, seed)
			}
		}
	}
}

// floodRandomly sets a random flooded state: capped columns at, just under or well under
// their ceilings, open ones shallow.
func floodRandomly(t *testing.T, sim *Sim, rng *rand.Rand) {
	t.Helper()
	c := sim.Columns()
	e := sim.be.(*cpuBackend).ext
	h := make([]float32, c.NumColumns())
	for i := range h {
		b, m := c.Base[i], c.Max[i]
		switch r := rng.Float64(); {
		case !e.isCapped[i]:
			h[i] = min(m, b+float32(0.004*rng.Float64()))
		case r < 0.5:
			h[i] = m - float32(rng.Float64()*1.5)*e.fullTol
		default:
			h[i] = b + float32(rng.Float64())*(m-b)
		}
		h[i] = max(b, min(m, h[i]))
	}
	if err := sim.SetHeights(h); err != nil {
		t.Fatal(err)
	}
}

func rebuildMatchesFromScratch(t *testing.T, mode ExtendedPipes, workers int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	c := fiveLayerScene(t, 48, 40, 0.0005)
	st := settings(0.003, 4e-6, workers)
	st.ExtendedPipes = mode
	sim := newSim(t, c, st)
	be := sim.be.(*cpuBackend)
	e := be.ext
	if e == nil {
		t.Fatal("the scene has no capped column")
	}
	floodRandomly(t, sim, rng)
	if _, err := sim.AddEmitter(Emitter{X: 0.012, Y: 0.01, Z: 0.03, Radius: 0.003, Rate: 2e-6}); err != nil {
		t.Fatal(err)
	}
	rebuilds, flipped := 0, 0
	for step := range 120 {
		if step%3 == 1 {
			flipped += flipRandom(e, rng, 1+rng.IntN(20))
		}
		if step%17 == 5 {
			e.dirty = true // as SetHeights does
		}
		if e.changed() {
			ref := cloneForRef(e)
			e.rebuild(be.h)
			refRebuild(ref, be.h)
			sameRebuild(t, fmt.Sprintf("%v, %d workers, seed %d, step %d", mode, workers, seed, step), e, ref)
			rebuilds++
		}
		sim.Step(1)
	}
	if rebuilds < 60 || e.scans*3 > e.rebuilds {
		t.Fatalf("%v, %d workers, seed %d: %d rebuilds compared, %d of %d scanned every capped column: the incremental path is not exercised", mode, workers, seed, rebuilds, e.scans, e.rebuilds)
	}
	t.Logf("%v, %d workers, seed %d: %d rebuilds compared (%d scans), %d random flips, %d passages, %d extended pipes at the end",
		mode, workers, seed, rebuilds, e.scans, flipped, len(e.pStart)-1, len(e.uCol)+len(e.axis))
}

// TestFloodedStepAllocs: stepping a flooded five-layer state whose passages are rebuilt
// in most steps allocates nothing once the lists have grown, in both modes, with 1 and 2
// workers.
func TestFloodedStepAllocs(t *testing.T) {
	for _, mode := range []ExtendedPipes{ExtendedUnified, ExtendedAxis} {
		for _, workers := range []int{1, 2} {
			c := fiveLayerScene(t, 48, 40, 0.0005)
			st := settings(0.003, 4e-6, workers)
			st.ExtendedPipes = mode
			sim := newSim(t, c, st)
			e := sim.be.(*cpuBackend).ext
			floodRandomly(t, sim, rand.New(rand.NewPCG(1, 2)))
			if _, err := sim.AddEmitter(Emitter{X: 0.012, Y: 0.01, Z: 0.03, Radius: 0.003, Rate: 2e-6}); err != nil {
				t.Fatal(err)
			}
			sim.Step(300)
			r0 := e.rebuilds
			if a := testing.AllocsPerRun(20, func() { sim.Step(5) }); a != 0 {
				t.Errorf("%v, %d workers: Step(5) allocates %g times", mode, workers, a)
			}
			p, q := e.counts()
			t.Logf("%v, %d workers: %d rebuilds in 105 steps (%d scans in all), %d passages, %d extended pipes", mode, workers, e.rebuilds-r0, e.scans, q, p)
			if e.rebuilds-r0 < 10 || p == 0 {
				t.Errorf("%v, %d workers: %d rebuilds in 105 steps, %d extended pipes: the scene does not test the rebuild", mode, workers, e.rebuilds-r0, p)
			}
		}
	}
}
