package sweep

import (
	"os/exec"
	"syscall"
)

// setDeathSignal has the kernel kill the task when the thread that started it ends: when
// the study's process dies, even by SIGKILL.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
