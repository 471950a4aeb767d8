# mk/cuda.mk: the cuda edition (docs/cuda.md).
#
#   make generate   write the Go twins of the kernels' argument blocks from vp_args.h
#                   (go generate ./gpusim/kernels/: args_gen.go, vp_args_layout.h)
#   make generate-check  fail when they are stale (Go only, no nvcc)
#   make ptx        compile gpusim/kernels/vpbench.cu to the committed vpbench.ptx (after
#                   make generate)
#   make ptx-check  fail when the committed PTX differs from a fresh compile (after
#                   make generate-check)
#   make cuda       bin/vpbench-cuda: vpbench with the cuda backend (-tags cuda)
#   make cuda-vet   go vet and compile the tests of the cuda build (no GPU needed)
#
# tools/cuda-toolchain.sh extracts nvcc 11.8, the headers and the stub libcuda from
# Debian's non-free packages into .cache/cuda once (about a minute); later runs reuse it.
# The plain build and `make test` need none of this: the kernels' host conformance tests
# need only g++.

CUDA_KERNELS := gpusim/kernels
# compute_70: PTX for Volta and later, which newer drivers compile for their GPU. No
# fused multiply-add, IEEE division and denormals: the kernels then round like Go.
NVCC_FLAGS := -ccbin g++-11 -ptx -arch=compute_70 -O3 -fmad=false -prec-div=true -prec-sqrt=true -ftz=false
CUDA_BIN := bin/vpbench-cuda
CUDA_ENV = CUDA_HOME=$$(tools/cuda-toolchain.sh) && export CGO_CFLAGS="-I$$CUDA_HOME/include" \
	CGO_LDFLAGS="-L$$CUDA_HOME/lib64/stubs"

.PHONY: cuda-toolchain generate generate-check ptx ptx-check cuda cuda-vet deps-cxx

# The kernels' host conformance tests (gpusim/internal/hostkernels, cgo) compile the
# kernels with g++: every `make test` needs it.
DEPS += deps-cxx
deps-cxx:
	@command -v g++ >/dev/null 2>&1 || { echo "installing g++ (the CUDA kernels' host tests compile them with it)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y --no-install-recommends g++ >/dev/null 2>&1 || \
	{ apt-get update >/dev/null && apt-get install -y --no-install-recommends g++ >/dev/null; } || \
	{ echo "cannot install g++ (run as root, or install it yourself)"; exit 1; }; }

cuda-toolchain:
	@tools/cuda-toolchain.sh >/dev/null

# The kernels' argument blocks: vp_args.h is the source, gpusim/kernels/internal/argsgen
# writes their Go structs and layout table (docs/cuda.md, "Kernel arguments"). Only
# ./gpusim/kernels/: the row kernels' go:generate (gpusim/internal/rows) needs the avo
# module of gpusim/internal/asmgen. `make test` checks the same (TestArgsGenUpToDate).
generate:
	@$(GO) generate ./gpusim/kernels/ && echo "generate: $(CUDA_KERNELS)/args_gen.go and vp_args_layout.h are vp_args.h's"

generate-check:
	@$(GO) run ./gpusim/kernels/internal/argsgen -dir $(CUDA_KERNELS) -check && \
	echo "generate-check: $(CUDA_KERNELS)/args_gen.go and vp_args_layout.h are up to date"

ptx: generate
	@CUDA_HOME=$$(tools/cuda-toolchain.sh) && cd $(CUDA_KERNELS) && \
	$$CUDA_HOME/bin/nvcc $(NVCC_FLAGS) -o vpbench.ptx vpbench.cu && echo "wrote $(CUDA_KERNELS)/vpbench.ptx"

ptx-check: generate-check
	@CUDA_HOME=$$(tools/cuda-toolchain.sh) && tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	(cd $(CUDA_KERNELS) && $$CUDA_HOME/bin/nvcc $(NVCC_FLAGS) -o $$tmp/vpbench.ptx vpbench.cu) && \
	if cmp -s $$tmp/vpbench.ptx $(CUDA_KERNELS)/vpbench.ptx; then echo "ptx-check: $(CUDA_KERNELS)/vpbench.ptx is up to date"; \
	else diff $$tmp/vpbench.ptx $(CUDA_KERNELS)/vpbench.ptx | head -20; \
	echo "ptx-check: $(CUDA_KERNELS)/vpbench.ptx is stale: run 'make ptx' and commit it"; exit 1; fi

# The binary is linked against the stub libcuda, then libcuda.so.1 is dropped from its
# needed libraries: gpusim/internal/cudaprobe loads the driver with dlopen before cu's
# init calls into it (lazy binding resolves cu's calls then), so that on a machine
# without the driver the binary starts and says plainly what to run instead.
cuda: deps
	@$(CUDA_ENV) && $(GO) build -tags cuda -o $(CUDA_BIN) ./cmd/vpbench && \
	patchelf --remove-needed libcuda.so.1 $(CUDA_BIN) && \
	echo "built $(CUDA_BIN) (the cuda backend; it runs where an NVIDIA driver and GPU are)"

cuda-vet: deps
	@$(CUDA_ENV) && $(GO) vet -tags cuda ./gpusim/... ./script/... ./scripts/... ./cmd/... && \
	$(GO) test -c -tags cuda -o /dev/null ./gpusim/ && $(GO) test -c -tags cuda -o /dev/null ./scripts/ && echo "cuda-vet: the cuda build vets and its tests compile"

# gpu-bundle: what a machine with a GPU runs (the device tool's has no Go toolchain): the
# cuda builds of the gpusim and scripts test binaries and bin/vpbench-cuda, in
# .cache/gpu (carry that path); tools/gpu-run.sh runs them there (docs/cuda.md). Its
# vpbench-cuda is built without the preview (tag nopreview): GPU servers often have no libGL.
GPU_BUNDLE := .cache/gpu
.PHONY: gpu-bundle
gpu-bundle: cuda
	@$(CUDA_ENV) && mkdir -p $(GPU_BUNDLE) && \
	$(GO) test -c -tags cuda -o $(GPU_BUNDLE)/gpusim.test ./gpusim/ && \
	$(GO) test -c -tags cuda -o $(GPU_BUNDLE)/scripts.test ./scripts/ && \
	$(GO) build -tags "cuda nopreview" -o $(GPU_BUNDLE)/vpbench-cuda ./cmd/vpbench && \
	patchelf --remove-needed libcuda.so.1 $(GPU_BUNDLE)/vpbench-cuda && du -sh $(GPU_BUNDLE) && \
	echo "carry $(GPU_BUNDLE) and run tools/gpu-run.sh on the GPU machine"
