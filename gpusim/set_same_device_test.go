//go:build cgo

package gpusim

import "testing"

// TestSetSameSettingsHostKernels: TestSetSameSettingsSameBits on the device kernels
// compiled for the host (the device's capillary head restarted at every Set too).
func TestSetSameSettingsHostKernels(t *testing.T) { setSameRuns(t, "host-kernels") }
