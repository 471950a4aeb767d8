//go:build race

package main

// raceEnabled: the tests run under the race detector (make test's second pass). The
// tests that drive a built vpbench as subprocesses skip there: the subprocesses are not
// instrumented, and building and running them beside the race pass's other packages
// starved their timing-sensitive tests (the script memory watchdog's) on 2 cores. They
// run in the plain pass.
const raceEnabled = true
