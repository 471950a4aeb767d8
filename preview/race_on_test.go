//go:build race

package preview

// raceEnabled: the tests run under the race detector (make test's second pass). The
// tests that only measure pictures of library scenes run up to seconds of simulation
// (TestLiquidEdgeSpecksAndRoughness: 4 s plain, a minute under -race on 2 cores) and
// exercise nothing concurrent that the other tests do not: they skip there and run in
// the plain pass.
const raceEnabled = true
