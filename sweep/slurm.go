package sweep

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ArraySpec is Slurm's --array value for the tasks (ascending indices): runs of
// consecutive indices as ranges ("0-3,5,7-9"), and %K to run at most K at once.
func ArraySpec(tasks []Task, maxParallel int) string {
	var parts []string
	for i := 0; i < len(tasks); {
		j := i
		for j+1 < len(tasks) && tasks[j+1].Index == tasks[j].Index+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(tasks[i].Index))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", tasks[i].Index, tasks[j].Index))
		}
		i = j + 1
	}
	spec := strings.Join(parts, ",")
	if maxParallel > 0 {
		spec += "%" + strconv.Itoa(maxParallel)
	}
	return spec
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SbatchScript is a batch script for a job array of the tasks: each array task runs
// `EXE sweep task STUDY --out OUT --index $SLURM_ARRAY_TASK_ID`, with its output in
// OUT/logs/slurm-JOB_TASK.log. The paths are made absolute: the job runs wherever Slurm
// starts it, on a file system the nodes share.
func SbatchScript(s *Study, out Folder, exe string, tasks []Task, o SlurmOptions) (string, error) {
	study, err := filepath.Abs(s.Path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.Abs(string(out))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	name := strings.TrimSuffix(filepath.Base(s.Path), filepath.Ext(s.Path))
	fmt.Fprintf(&b, "#SBATCH --job-name=vpbench-%s\n", jobName(name))
	fmt.Fprintf(&b, "#SBATCH --array=%s\n", ArraySpec(tasks, o.MaxParallel))
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(dir, "logs", "slurm-%A_%a.log"))
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	if o.CPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", o.CPUs)
	}
	if o.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", o.Partition)
	}
	if o.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", o.Time)
	}
	for _, x := range o.Sbatch {
		fmt.Fprintf(&b, "#SBATCH %s\n", x)
	}
	fmt.Fprintf(&b, "\n# vpbench sweep slurm: %d tasks of %s (plan %s). Each array task writes its\n", len(tasks), study, s.Plan())
	fmt.Fprintf(&b, "# result to %s/tasks/; collect them with: vpbench sweep collect %s\n", dir, dir)
	fmt.Fprintf(&b, "exec %s sweep task %s --out %s --index \"$SLURM_ARRAY_TASK_ID\"\n", shellQuote(exe), shellQuote(study), shellQuote(dir))
	return b.String(), nil
}

var jobNameBad = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func jobName(s string) string {
	s = jobNameBad.ReplaceAllString(s, "-")
	if s == "" {
		s = "study"
	}
	return s
}

// Submit hands a batch script to sbatch and returns the job's id.
func Submit(ctx context.Context, script string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", "--parsable", script)
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("sbatch %s: %s", script, msg)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";") // "ID;cluster"
	if id == "" {
		return "", fmt.Errorf("sbatch %s printed no job id", script)
	}
	return id, nil
}
