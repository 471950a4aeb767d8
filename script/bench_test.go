package script

import "testing"

// BenchmarkHeightfield extracts a 200 x 200 heightfield terrain (one Lua call a cell).
func BenchmarkHeightfield(b *testing.B) {
	src := "local sim = vp.sim{ size = {0.1, 0.1}, dx = 0.0005, layers = 1, workers = 1 }\n" +
		"local hf = vp.heightfield{ fn = function(x, y) return 0.001 + 0.01 * x end }\n" +
		"sim:terrain(hf)\nfunction again() sim:terrain(hf) end"
	s, err := LoadSource("b.lua", []byte(src), Options{Workers: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	fn := s.L.G.Global.RawGetString("again")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.L.Push(fn)
		if err := s.L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/40000, "ns/cell")
}
