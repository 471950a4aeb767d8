#!/usr/bin/env bash
# tools/cuda-toolchain.sh: the part of the CUDA 11.8 toolkit that vpbench's cuda edition
# needs (nvcc, ptxas, cicc, libdevice, libnvvm, the headers and the stub libcuda), taken
# from Debian bookworm's non-free packages and cached in .cache/cuda. It prints the
# toolkit's root (CUDA_HOME) on stdout; progress goes to stderr.
#
#   CUDA_HOME=$(tools/cuda-toolchain.sh)
#   $CUDA_HOME/bin/nvcc -ccbin g++-11 ...
#
# The full toolkit (apt-get install nvidia-cuda-toolkit) installs 5.5 GB; this extracts
# about 200 MB from the downloaded packages with dpkg-deb and takes under a minute. A
# second run finds the cache and returns at once. nvcc 11.8 accepts g++ up to 11 as host
# compiler: bookworm has g++-11, which this script installs when it is missing (root, or
# sudo), with patchelf. It needs root for apt-get only when the non-free component,
# g++-11 or patchelf is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=11.8.89~11.8.0-5~deb12u1
ROOT=${VPBENCH_CUDA_CACHE:-$PWD/.cache/cuda}
HOME_DIR=$ROOT/11.8.89
STAMP=$HOME_DIR/.complete

log() { echo "cuda-toolchain: $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_gxx11() {
	if command -v g++-11 >/dev/null 2>&1; then return; fi
	log "installing g++-11 (nvcc 11.8's newest supported host compiler)"
	as_root apt-get install -y --no-install-recommends g++-11 >&2 ||
		{ log "could not install g++-11: install it with apt-get, then run again"; exit 1; }
}

# patchelf drops libcuda.so.1 from bin/vpbench-cuda's needed libraries (mk/cuda.mk), so
# that on a machine without the driver the binary starts and says so plainly.
ensure_patchelf() {
	if command -v patchelf >/dev/null 2>&1; then return; fi
	log "installing patchelf"
	as_root apt-get install -y --no-install-recommends patchelf >&2 ||
		{ log "could not install patchelf: install it with apt-get, then run again"; exit 1; }
}

if [ -f "$STAMP" ]; then
	ensure_gxx11
	ensure_patchelf
	echo "$HOME_DIR"
	exit 0
fi

# has_candidate: apt offers the toolkit's version. (The policy is read whole before grep:
# with pipefail, grep -q quitting early would make apt-cache's SIGPIPE fail the test.)
has_candidate() {
	local policy
	policy=$(apt-cache policy nvidia-cuda-toolkit 2>/dev/null || true)
	grep -q "Candidate: $VERSION" <<<"$policy"
}

ensure_nonfree() {
	if has_candidate; then return; fi
	log "adding Debian's contrib, non-free and non-free-firmware components to apt's sources"
	as_root tee /etc/apt/sources.list.d/vpbench-nonfree.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	as_root apt-get update -qq >&2
	if ! has_candidate; then
		log "apt offers no nvidia-cuda-toolkit $VERSION: this script expects Debian 12 (bookworm)"
		apt-cache policy nvidia-cuda-toolkit >&2 || true
		exit 1
	fi
}

ensure_nonfree
ensure_gxx11
ensure_patchelf

DL=$ROOT/deb
mkdir -p "$DL"
chmod 777 "$DL" 2>/dev/null || true # apt's _apt user downloads into it when it can
pkgs=(nvidia-cuda-toolkit nvidia-cuda-dev libnvvm4)
for p in "${pkgs[@]}"; do
	if ! ls "$DL/${p}_"*.deb >/dev/null 2>&1; then
		log "downloading $p $VERSION"
		(cd "$DL" && apt-get download -q "$p=$VERSION" >&2 2>/dev/null) ||
			(cd "$DL" && apt-get download "$p=$VERSION" >&2)
	fi
done

TMP=$ROOT/tmp.$$
rm -rf "$TMP" "$HOME_DIR"
mkdir -p "$TMP" "$HOME_DIR"/{bin,include,lib,lib64/stubs,nvvm/libdevice}
trap 'rm -rf "$TMP"' EXIT

log "extracting nvcc, ptxas, cicc and libdevice"
dpkg-deb -x "$DL"/nvidia-cuda-toolkit_*.deb "$TMP/tk"
for b in ptxas cudafe++ fatbinary nvlink bin2c nvprune cuobjdump; do
	cp "$TMP/tk/usr/bin/$b" "$HOME_DIR/bin/"
done
cp "$TMP/tk/usr/lib/nvidia-cuda-toolkit/bin/nvcc" "$TMP/tk/usr/lib/nvidia-cuda-toolkit/bin/cicc" "$HOME_DIR/bin/"
cp -r "$TMP/tk/usr/lib/nvidia-cuda-toolkit/bin/crt" "$HOME_DIR/bin/"
cp "$TMP/tk/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$HOME_DIR/nvvm/libdevice/"
cp "$TMP/tk/usr/include/nvvm.h" "$HOME_DIR/include/"

log "extracting libnvvm"
dpkg-deb -x "$DL"/libnvvm4_*.deb "$TMP/nvvm"
cp -P "$TMP/nvvm/usr/lib/x86_64-linux-gnu/"libnvvm.so* "$HOME_DIR/lib/"

log "extracting the headers and the stub libcuda (the largest package: about 40 s)"
mkdir -p "$TMP/dev"
dpkg-deb --fsys-tarfile "$DL"/nvidia-cuda-dev_*.deb |
	tar -x -C "$TMP/dev" --wildcards './usr/include/*' './usr/lib/x86_64-linux-gnu/stubs/libcuda.so'
cp -r "$TMP/dev/usr/include/." "$HOME_DIR/include/"
cp "$TMP/dev/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" "$HOME_DIR/lib64/stubs/"

# nvcc reads nvcc.profile next to its binary; paths relative to it keep the cache movable.
cat >"$HOME_DIR/bin/nvcc.profile" <<'PROF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(TOP)/bin:
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
PROF

rm -rf "$DL" # the .debs (870 MB) are not needed once extracted
touch "$STAMP"
log "ready: $(du -sh "$HOME_DIR" | cut -f1) in $HOME_DIR"
echo "$HOME_DIR"
