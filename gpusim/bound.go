package gpusim

// BytesPerColumnStep is the least memory one column-step must move in the dense
// (one-column-per-cell) layout: read the state h, r, fx, fy and the constants base and
// max (6 x 4 bytes), and write the state back (4 x 4 bytes); docs/cuda.md, "Performance:
// what a step must move", counts it. With a memory bandwidth of B bytes/s (measured by
// internal/roofline.Triad in the same run), no kernel whose state streams from memory can
// step more than B/BytesPerColumnStep columns a second (one whose state fits in a cache
// can); the step benchmarks report their colsteps/s over
// that bound as "of-bound" (and `vpbench bench --roofline` is to print the same ratio).
const BytesPerColumnStep = 40
