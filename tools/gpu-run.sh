#!/usr/bin/env bash
# tools/gpu-run.sh: on a machine with an NVIDIA GPU, from the repository root, runs what
# `make gpu-bundle` built into .cache/gpu (no Go toolchain needed there): both GPU
# conformance tests, the GPU benchmarks and `vpbench bench` on the cuda backend. Each
# result goes to a file in ${OUT:-out/gpu}; a summary goes to stdout. Exit status: 0 when
# both conformance tests pass.
set -uo pipefail
cd "$(dirname "$0")/.."
bundle=.cache/gpu
out=${OUT:-out/gpu}
mkdir -p "$out"
for f in gpusim.test scripts.test vpbench-cuda; do
	[ -x "$bundle/$f" ] || { echo "gpu-run: $bundle/$f is missing: run 'make gpu-bundle' first (where Go is)"; exit 2; }
done
nvidia-smi >"$out/nvidia-smi.txt" 2>&1 && head -15 "$out/nvidia-smi.txt"

status=0
"$bundle/gpusim.test" -test.run 'CUDA' -test.v -test.count 1 >"$out/gpusim-conformance.txt" 2>&1 || status=1
echo "gpusim conformance: $(grep -cE '^(=== RUN|    --- PASS)' "$out/gpusim-conformance.txt") lines; $(tail -1 "$out/gpusim-conformance.txt")"
(cd scripts && "../$bundle/scripts.test" -test.run 'LibraryCUDA' -test.v -test.count 1) >"$out/scripts-conformance.txt" 2>&1 || status=1
echo "library conformance: $(tail -1 "$out/scripts-conformance.txt")"

"$bundle/gpusim.test" -test.run '^$' -test.bench 'CUDA' -test.benchtime 2000x >"$out/gpusim-bench.txt" 2>&1
grep -E '^Benchmark' "$out/gpusim-bench.txt"
(cd scripts && "../$bundle/scripts.test" -test.run '^$' -test.bench 'LibraryCUDASurgery' -test.benchtime 3000x) >"$out/surgery-bench.txt" 2>&1
grep -E '^Benchmark' "$out/surgery-bench.txt"
"$bundle/vpbench-cuda" bench --backend cuda --until 1 --surface=false --json "$out/bench.json" >"$out/bench.txt" 2>&1
tail -12 "$out/bench.txt"
exit $status
