# Parameter studies on Slurm (`vpbench sweep slurm`, docs/sweeps.md): the test
# TestSweepSlurm (cmd/vpbench/sweep_test.go, run by `make test`'s go test) starts munged,
# slurmctld and slurmd as plain processes on this machine, submits a job array and
# checks its table against a local run's. deps-slurm installs Debian's slurmctld, slurmd,
# slurm-client and munge when missing (as root; apt-get update only when the package
# lists lack them). Slurm is needed by that test only, not to build or run vpbench: when
# it cannot be installed, deps-slurm says so and goes on, and the test is skipped with
# the reason (VPBENCH_REQUIRE_SLURM=1 in the environment makes it fail instead).

TEST_DEPS += deps-slurm

SLURM_PKGS := slurmctld slurmd slurm-client munge

.PHONY: deps-slurm
deps-slurm:
	@command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 && \
		command -v sbatch >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 && exit 0; \
	PATH="$$PATH:/usr/sbin:/sbin"; \
	if ! command -v apt-get >/dev/null 2>&1; then \
		echo "deps-slurm: Slurm is missing and there is no apt-get: TestSweepSlurm will be skipped (install $(SLURM_PKGS))"; exit 0; \
	fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	echo "deps-slurm: installing $(SLURM_PKGS) (apt-get)"; \
	if ! { apt-cache show $(SLURM_PKGS) >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $(SLURM_PKGS) >/dev/null 2>&1; }; then \
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $(SLURM_PKGS) >/dev/null; } || \
		echo "deps-slurm: apt-get could not install $(SLURM_PKGS): TestSweepSlurm will be skipped"; \
	fi; \
	exit 0
