//go:build !race

package preview

// raceEnabled: see race_on_test.go.
const raceEnabled = false
