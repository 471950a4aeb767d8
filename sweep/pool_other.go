//go:build !linux

package sweep

import "os/exec"

// setDeathSignal: only Linux kills a child with its parent; elsewhere a killed study's
// tasks in flight run to their end and write their results, which a resumed study takes.
func setDeathSignal(cmd *exec.Cmd) {}
