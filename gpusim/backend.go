package gpusim

// What Sim asks of a solver backend (the CPU one, cpu.go, and the device one, device.go):
// the backend and pipelinedBackend interfaces, the per-step constants and the options it
// is made with, and newBackend, which picks one.

import (
	"fmt"

	"github.com/vpbench/vpbench/gpusim/internal/element"
)

// backend is what a solver backend implements: the state lives in the backend (host or
// device memory); Sim keeps everything else (settings, emitters, accounting, snapshots).
type backend interface {
	name() string
	workers() int
	setWorkers(n int)
	setParams(p stepParams)
	// step advances n steps from simulated time t0, applying em after each, and returns
	// the volume sources and sinks moved. It also copies the heights and residuals after
	// the last step into height and residual (the snapshot being published).
	step(n int, t0 float64, em *emitterSet, height, residual []float32) accounting
	readHeight(dst []float32)
	// readResidual copies the per-column height rounding still to be applied (m).
	readResidual(dst []float32)
	writeResidual(src []float32)
	writeHeight(src []float32)
	readFlux(dst []float32)
	writeFlux(src []float32)
	// liftFloors sets the floors of the columns cols to floor (each in [Base, Max), with
	// room for the liquid above it) and moves each column's liquid with its floor
	// (floors.go).
	liftFloors(cols []int32, floor []float32) error
	// extendedCounts returns the extended pipes and passages active in the last step.
	extendedCounts() (pipes, passages int)
	close()
}

// pipelinedBackend is a backend whose steps run on a device while the host goes on (the
// device backend). step is queue, wait and take in one.
type pipelinedBackend interface {
	// queue starts n steps from t0 and an asynchronous read-back of their result; it
	// returns without waiting. One frame at a time: wait for it before the next queue.
	queue(n int, t0 float64, em *emitterSet)
	// wait waits for the frame queued and returns what its sources and sinks moved.
	wait() accounting
	// take copies the heights and residuals of the last frame waited for into height and
	// residual; it may run while the next frame is in flight.
	take(height, residual []float32)
}

// stepParams are the per-step constants derived from the settings: those of the element
// arithmetic, and the rest a step needs.
type stepParams struct {
	element.Params
	st          Settings // what they were made from (the SWE makes its substeps' from them)
	dt, dx, dx2 float64
	extended    ExtendedPipes
	cap         capParams // the capillary head (capillary.go)
}

// accounting is the volume that sources and sinks moved, m^3, and outflow what left
// through open sides (the border columns' drains, and particles that fly out).
type accounting struct {
	added, removed, rejected float64
	outflow                  float64
	// exchanged is the net volume a holder of columns moved in (held.go); the backends
	// never book it.
	exchanged float64
}

// backendOptions are choices a backend is made with that change how it computes, never
// what: the tests set them to compare the paths bit for bit. The zero value is what New
// uses. They are fixed for the backend's life (and a Sim's: SetTerrain's new backend
// takes them too), so that Sims with different options can run side by side.
type backendOptions struct {
	// general makes the backend use the general layout even where the dense one applies.
	general bool
	// noSIMD makes the CPU backend run the Go row kernels even where the AVX2 ones would.
	noSIMD bool
	// noSkip makes the dense layout sweep every row, also those that are dry and still
	// (denseSweep leaves them alone otherwise).
	noSkip bool
}

// newBackend makes the backend st.Backend names: the CPU one, or the device backend on
// a kernel runtime (cuda, or one a test registered). "auto" takes cuda when the build has
// it and a GPU is usable, else the CPU.
func newBackend(topo *topology, st Settings, o backendOptions) (backend, error) {
	name := st.Backend
	if name == "auto" {
		name = "cpu"
		if _, err := CUDAAvailable(); err == nil {
			name = "cuda"
		}
	}
	if st.Method == MethodSWE {
		o.general = true // the SWE runs on the general layout (swe.go), on either backend
	}
	if name == "" || name == "cpu" {
		return newCPUBackend(topo, st.Workers, st.ExtendedPipes, st.Method, o), nil
	}
	open, ok := runtimes[name]
	if !ok {
		return nil, fmt.Errorf("backend is %q: want \"auto\", \"cpu\" or \"cuda\"", name)
	}
	rt, err := open()
	if err != nil {
		return nil, err
	}
	return newDeviceBackend(topo, rt, st.ExtendedPipes, st.Method, o)
}
