package gpusim

import (
	"github.com/vpbench/vpbench/terrain"
)

// topology is the pipe network of one terrain's columns. It is backend-neutral and
// immutable: every backend uploads the same arrays.
//
// A pipe joins column a of cell c and column b of the +x or +y neighbour cell of c when
// their liquid ranges [base, max] overlap; a column may have several pipes into one
// neighbour cell. Each pipe carries one flux, positive from a to b, stored once. Pipes are
// ordered by a (their owner), so the pipes of consecutive columns are contiguous.
//
// adj lists, for each column i, the pipes it is an end of (CSR: adjStart[i] ..
// adjStart[i+1]-1, in pipe order): adjPipe = the pipe, adjOther = the column at its other
// end, adjSign = +1 if i is the pipe's a (a positive flux leaves i), -1 if it is b,
// adjDir = the side of i the other end lies on.
type topology struct {
	cols  *terrain.Columns
	pipeA []int32
	pipeB []int32

	adjStart []int32
	adjPipe  []int32
	adjOther []int32
	adjSign  []float32
	adjDir   []uint8 // the side of the column adjOther lies on: sideMinusX ... sidePlusY
}

// The sides of a column (topology.adjDir). A column's list runs -y, -x, +x, +y: its -y
// neighbours' pipes come first (their a is a row back), then its -x neighbours', then its
// own, +x before +y (forEachPipe).
const (
	sideMinusX uint8 = iota
	sidePlusX
	sideMinusY
	sidePlusY
)

// overlaps tells whether two columns' liquid ranges share a stretch of positive length.
func overlaps(c *terrain.Columns, i, j int) bool {
	return max(c.Base[i], c.Base[j]) < min(c.Max[i], c.Max[j])
}

// forEachPipe calls fn(a, b, alongY) for every pipe in pipe order, alongY telling
// whether b is in a's +y neighbour cell (else its +x one).
func forEachPipe(c *terrain.Columns, fn func(a, b int, alongY bool)) {
	for y := 0; y < c.Ny; y++ {
		for x := 0; x < c.Nx; x++ {
			lo, hi := c.Cell(x, y)
			for a := lo; a < hi; a++ {
				if x+1 < c.Nx {
					nlo, nhi := c.Cell(x+1, y)
					for b := nlo; b < nhi; b++ {
						if overlaps(c, a, b) {
							fn(a, b, false)
						}
					}
				}
				if y+1 < c.Ny {
					nlo, nhi := c.Cell(x, y+1)
					for b := nlo; b < nhi; b++ {
						if overlaps(c, a, b) {
							fn(a, b, true)
						}
					}
				}
			}
		}
	}
}

// countPipes returns the number of pipes without allocating, so that memory can be
// checked before anything large is made.
func countPipes(c *terrain.Columns) int {
	n := 0
	forEachPipe(c, func(int, int, bool) { n++ })
	return n
}

// What a topology and a CPU backend hold. Per column: h, r, K, S, two snapshot
// buffers, two host copies, adjStart, the construction's fill list, the workers' flag
// lists (13 x 4 bytes); the extended pipes' per-column arrays (30 bytes) and list of
// capped columns (up to 8 with its growth); the particle phase's column flags and cells
// (5 bytes, falling.go); the vector path's regular and strided flags and gathered fluxes
// (2 + 6 x 4 bytes, kernels_csr.go); the still units' column map and, while they are
// made, each column's first pipe, and a second worker's flag list, which may hold every
// column (3 x 4 bytes, csrskip.go). Per pipe: a, b, flux, two adjacency entries of three
// 4-byte values, a direction flag, and the vector path's paired-group entry and the floors of
// its ends (1 + 2 x 4 bytes).
const (
	topologyColumnBytes = 13*4 + 30 + 8 + 5 + 2 + 6*4 + 3*4
	topologyPipeBytes   = 4*9 + 1 + 1 + 2*4
)

// topologyBytes estimates what a topology and a CPU backend hold for n columns and np
// pipes.
func topologyBytes(n, np int) uint64 {
	return uint64(n)*topologyColumnBytes + uint64(np)*topologyPipeBytes
}

func newTopology(c *terrain.Columns, npipes int) *topology {
	n := c.NumColumns()
	t := &topology{
		cols:     c,
		pipeA:    make([]int32, 0, npipes),
		pipeB:    make([]int32, 0, npipes),
		adjStart: make([]int32, n+1),
		adjPipe:  make([]int32, 2*npipes),
		adjOther: make([]int32, 2*npipes),
		adjSign:  make([]float32, 2*npipes),
		adjDir:   make([]uint8, 2*npipes),
	}
	alongY := make([]bool, 0, npipes) // whether pipe p joins a column to its +y neighbour (else +x)
	forEachPipe(c, func(a, b int, y bool) {
		t.pipeA = append(t.pipeA, int32(a))
		alongY = append(alongY, y)
		t.pipeB = append(t.pipeB, int32(b))
		t.adjStart[a+1]++
		t.adjStart[b+1]++
	})
	for i := range n {
		t.adjStart[i+1] += t.adjStart[i]
	}
	fill := make([]int32, n)
	copy(fill, t.adjStart[:n])
	for p := range t.pipeA {
		a, b := t.pipeA[p], t.pipeB[p]
		toB, toA := sidePlusX, sideMinusX
		if alongY[p] {
			toB, toA = sidePlusY, sideMinusY
		}
		t.adjPipe[fill[a]], t.adjOther[fill[a]], t.adjSign[fill[a]], t.adjDir[fill[a]] = int32(p), b, 1, toB
		fill[a]++
		t.adjPipe[fill[b]], t.adjOther[fill[b]], t.adjSign[fill[b]], t.adjDir[fill[b]] = int32(p), a, -1, toA
		fill[b]++
	}
	return t
}

func (t *topology) numPipes() int { return len(t.pipeA) }
