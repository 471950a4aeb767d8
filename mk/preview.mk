# The preview window (preview/): GLFW and OpenGL through cgo need the X11 and GL
# development packages to build, and Mesa (llvmpipe) to draw without a GPU: what building
# and running vpbench needs (deps-preview). Xvfb is for the picture tests on a machine
# without a display (the tests start a private one; so does `vpbench render` there when
# Xvfb is installed): make test installs it (deps-xvfb). The picture tests must run, not
# skip, under make test.
PREVIEW_PKGS := libgl1-mesa-dev libgl1-mesa-dri libx11-dev libxcursor-dev libxrandr-dev \
	libxinerama-dev libxi-dev libxxf86vm-dev
PREVIEW_TEST_PKGS := xvfb

RUN_DEPS += deps-preview
TEST_DEPS += deps-xvfb
TEST_ENV += VPBENCH_REQUIRE_DISPLAY=1

.PHONY: deps-preview deps-xvfb
deps-preview:
	@$(call install-debs,$(PREVIEW_PKGS),the preview's packages)

deps-xvfb:
	@$(call install-debs,$(PREVIEW_TEST_PKGS),Xvfb (the preview's picture tests and offscreen rendering without a display))

# install-debs,PKGS,WHAT: apt-get install the packages of PKGS that dpkg lacks.
define install-debs
	missing=""; for p in $(1); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing $(2):$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y --no-install-recommends $$missing >/dev/null 2>&1 || \
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends $$missing; } || \
		{ echo "cannot install$$missing (run as root, or install them yourself)"; exit 1; }; \
	fi
endef
