package sweep

import (
	"fmt"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// K8sJob is a Kubernetes Indexed Job running every task of the study: pod i runs
// `vpbench sweep task STUDY --out OUT`, which reads its index from JOB_COMPLETION_INDEX
// (the Job controller sets it). The study and its folder must be on a volume every pod
// mounts (o.Claim at o.MountPath): the paths in the command are the study's and the
// folder's as given, made absolute under the mount when relative. A task whose result
// is there already returns at once, so the Job may be run again to finish a study.
func K8sJob(s *Study, out Folder, o K8sOptions) ([]byte, error) {
	if o.Image == "" {
		return nil, fmt.Errorf("%s: no image: give --image (or [kubernetes] image = \"...\"), an image with vpbench in it", s.Path)
	}
	mount := o.MountPath
	if mount == "" {
		mount = "/work"
	}
	in := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.ToSlash(filepath.Join(mount, p))
	}
	command := o.Command
	if command == "" {
		command = "vpbench"
	}
	parallel := o.Parallelism
	if parallel <= 0 {
		parallel = min(len(s.Tasks), 10)
	}
	name := "vpbench-" + strings.ToLower(jobName(strings.TrimSuffix(filepath.Base(s.Path), filepath.Ext(s.Path))))
	name = strings.Trim(strings.ReplaceAll(strings.ReplaceAll(name, "_", "-"), ".", "-"), "-")
	container := map[string]any{
		"name":       "task",
		"image":      o.Image,
		"command":    []string{command, "sweep", "task", in(s.Path), "--out", in(string(out))},
		"workingDir": mount,
	}
	res := map[string]any{}
	if o.CPUs != "" {
		res["cpu"] = o.CPUs
	}
	if o.Memory != "" {
		res["memory"] = o.Memory
	}
	if len(res) > 0 {
		container["resources"] = map[string]any{"requests": res, "limits": res}
	}
	pod := map[string]any{"restartPolicy": "Never", "containers": []any{container}}
	if o.Claim != "" {
		container["volumeMounts"] = []any{map[string]any{"name": "study", "mountPath": mount}}
		pod["volumes"] = []any{map[string]any{"name": "study", "persistentVolumeClaim": map[string]any{"claimName": o.Claim}}}
	}
	meta := map[string]any{"name": name, "labels": map[string]any{"app.kubernetes.io/name": "vpbench-sweep", "vpbench/plan": s.Plan()}}
	if o.Namespace != "" {
		meta["namespace"] = o.Namespace
	}
	job := map[string]any{
		"apiVersion": "batch/v1",
		"kind":       "Job",
		"metadata":   meta,
		"spec": map[string]any{
			"completionMode": "Indexed",
			"completions":    len(s.Tasks),
			"parallelism":    parallel,
			// A failed scenario is a result (the task exits 1 after writing it); retry
			// each index once for what is not (a node lost), without failing the others.
			"backoffLimitPerIndex": 1,
			"template":             map[string]any{"spec": pod},
		},
	}
	b, err := yaml.Marshal(job)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("# vpbench sweep k8s: %d tasks of %s (plan %s); apply with kubectl apply -f FILE,\n# then collect with: vpbench sweep collect %s\n",
		len(s.Tasks), s.Path, s.Plan(), string(out))
	return append([]byte(head), b...), nil
}
