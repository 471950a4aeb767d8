// Package gpusim is vpbench's solver: the extended virtual pipes method on multi-layer
// heightfield columns (docs/method.md for the method itself, docs/solver.md for its decisions), with a CPU
// backend and a CUDA backend behind one API, Sim.
//
// Units are SI throughout: metres, seconds, m^3 for volumes, m^3/s for pipe fluxes and
// for the rates of sources and sinks, m^2/s for the kinematic viscosity. The columns come
// from terrain.Columns (cell size Dx, column i's free interval [Base[i], Max[i]]); the
// state is each column's absolute liquid height h (float32) with its rounding residual,
// and each pipe's flux.
//
// Invariants every step keeps, on every backend:
//   - Base[i] <= h[i] <= Max[i] (a column neither drains below its floor nor rises
//     through its ceiling: the flux scaling of docs/method.md, "One step");
//   - volume is conserved: Snapshot.Volume == Added - Removed, to about 1e-9 of the
//     volume over long runs (float64 sums of float32 state; the residuals carry what a
//     float32 height cannot hold);
//   - the results do not depend on the number of workers, nor, on the cuda backend, on
//     the order a grid's threads run in: the CPU backend, the kernels compiled for the host
//     and (within a few roundings) the GPU give the same numbers.
//
// One goroutine drives a Sim (Step, Set, the emitter calls, Fill, SetTerrain); any
// goroutine may read the last published state with Snapshot, Heights and Stats. On the
// cuda backend the state stays on the device; Step reads the heights back once per call,
// and a pipelined Sim (SetPipelined) publishes each call's state while the next call's
// steps run (docs/cuda.md).
package gpusim
