//go:build cgo

package engine

import (
	"testing"

	"github.com/vpbench/vpbench/scene"
)

func init() { scene.RegisterHostKernelBackends() }

// TestRunnerPipelinedPauseStep: on the device backend (its kernels run on the host, every
// device operation deferred until the host waits) the runner steps pipelined; pausing and
// single steps must still show the state of the last step taken (the runner Syncs).
func TestRunnerPipelinedPauseStep(t *testing.T) {
	pauseStepViscosityQuit(t, "host-kernels-deferred", "host-kernels (deferred)")
}
