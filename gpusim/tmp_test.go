//go:build librarybench

package gpusim_test

import "testing"

func BenchmarkTMPRockSteps(b *testing.B) {
	sc := loadLibrary(b, "rock.lua", 1)
	b.ResetTimer()
	for i := 0; i < b.N; i += 25 {
		if _, err := sc.Advance(25); err != nil {
			b.Fatal(err)
		}
	}
}
