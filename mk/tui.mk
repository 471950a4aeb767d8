# The terminal UI (tui/, `vpbench scenario.lua`): its end-to-end test runs the real binary
# in tmux (cmd/vpbench/tui_e2e_test.go). deps-tmux installs tmux when it is missing (as
# root on Debian; apt-get update only when the package lists lack tmux or are stale), and
# VPBENCH_REQUIRE_TMUX makes the test fail rather than skip when tmux is absent.

TEST_DEPS += deps-tmux
TEST_ENV += VPBENCH_REQUIRE_TMUX=1

.PHONY: deps-tmux
deps-tmux:
	@command -v tmux >/dev/null 2>&1 && exit 0; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "deps-tmux: tmux is missing and there is no apt-get: install tmux (the terminal UI's end-to-end test needs it)"; exit 1; \
	fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	echo "deps-tmux: installing tmux (apt-get)"; \
	if ! { apt-cache show tmux >/dev/null 2>&1 && apt-get install -y -qq tmux >/dev/null 2>&1; }; then \
		apt-get update -qq && apt-get install -y -qq tmux >/dev/null; \
	fi; \
	command -v tmux >/dev/null || { echo "deps-tmux: tmux is still missing after apt-get install tmux"; exit 1; }
