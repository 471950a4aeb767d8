# Clips (`vpbench render --to B --out clip.mp4`, internal/clip) are encoded by the
# ffmpeg program. deps-ffmpeg installs Debian's ffmpeg when it is missing (as root; apt-get
# update only when the package lists lack it), and VPBENCH_REQUIRE_FFMPEG makes the clip
# test fail rather than skip when ffmpeg is absent.

TEST_DEPS += deps-ffmpeg
TEST_ENV += VPBENCH_REQUIRE_FFMPEG=1

.PHONY: deps-ffmpeg
deps-ffmpeg:
	@command -v ffmpeg >/dev/null 2>&1 && exit 0; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "deps-ffmpeg: ffmpeg is missing and there is no apt-get: install ffmpeg (vpbench render writes videos with it)"; exit 1; \
	fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	echo "deps-ffmpeg: installing ffmpeg (apt-get)"; \
	if ! { apt-cache show ffmpeg >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null 2>&1; }; then \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null; \
	fi; \
	command -v ffmpeg >/dev/null || { echo "deps-ffmpeg: ffmpeg is still missing after apt-get install ffmpeg"; exit 1; }
