# The preview window (preview/): GLFW and OpenGL through cgo need the X11 and GL
# development packages to build, Mesa (llvmpipe) to draw without a GPU, and Xvfb for the
# picture tests on a machine without a display (the tests start a private one). The
# picture tests must run, not skip, under make test.
PREVIEW_PKGS := libgl1-mesa-dev libgl1-mesa-dri libx11-dev libxcursor-dev libxrandr-dev \
	libxinerama-dev libxi-dev libxxf86vm-dev xvfb

DEPS += deps-preview
TEST_ENV += VPBENCH_REQUIRE_DISPLAY=1

.PHONY: deps-preview
deps-preview:
	@missing=""; for p in $(PREVIEW_PKGS); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing the preview's packages:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y --no-install-recommends $$missing >/dev/null 2>&1 || \
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends $$missing; } || \
		{ echo "cannot install$$missing (run as root, or install them yourself)"; exit 1; }; \
	fi
