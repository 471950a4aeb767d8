// Package sweep runs parameter studies of a vpbench scenario: a study file (TOML) names
// a scenario, the parameters to vary (vp.param names) with their values, the simulated
// time and the outputs wanted; the package expands it into numbered tasks, runs them as
// subprocesses on a local pool or hands them to a Slurm job array or a Kubernetes
// Indexed Job, keeps each task's result in its own file (written atomically, so that an
// interrupted study resumes where it stopped), and collects the results into a table,
// plots and a summary. docs/sweeps.md is the reference.
//
// The package knows nothing of how a task is run: the command (cmd/vpbench/sweep.go)
// runs one scenario and hands back its report, and the package decides which tasks are
// left, where their results go and what the table holds.
package sweep
