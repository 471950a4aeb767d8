#!/usr/bin/env bash
# The soak benchmark (docs/benchmarks.md, "Soak"): ten simulated minutes of
# tools/soak/soak.lua, headless with the liquid surface built every frame, the resident
# memory of the process sampled every 10 s of wall time. It prints the script's lines
# (volume, balance), the samples, and a summary: the resident memory's peak over the first
# half of the run after its first simulated minute against its peak over the second, and
# the real-time factor of the first and the last simulated minute.
#
#   tools/soak/run.sh [until-seconds]      (default 600; needs bin/vpbench: make build)
set -euo pipefail
cd "$(dirname "$0")/../.."
until=${1:-600}
out=$(mktemp -d)
bin/vpbench run --headless --surface --until "$until" --every 1 tools/soak/soak.lua >"$out/log" 2>&1 &
pid=$!
start=$(date +%s.%N)
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null || true)
	now=$(date +%s.%N)
	simt=$( (grep -o 't = [0-9.]* s' "$out/log" || true) | tail -1 | awk '{print $3}')
	[ -n "$rss" ] && printf '%.1f %s %s\n' "$(echo "$now - $start" | bc)" "${simt:-0}" "$rss" >>"$out/samples"
	sleep 10
done
wait "$pid" || echo "soak: vpbench exited with status $?"
grep '^soak' "$out/log" || true
tail -12 "$out/log"
echo "# wall s, simulated s, resident KiB"
cat "$out/samples"
awk '
	{ w[NR] = $1; s[NR] = $2; r[NR] = $3 }
	END {
		for (i = 1; i <= NR; i++) if (s[i] >= 60) { f = i; break }
		if (!f) { print "soak: no sample after one simulated minute"; exit }
		# The resident memory saws with the garbage collector: compare the peaks of the
		# two halves of the run after its first minute, not two single samples.
		m = int((f + NR) / 2)
		for (i = f; i <= NR; i++) { if (i <= m && r[i] > p1) p1 = r[i]; if (i > m && r[i] > p2) p2 = r[i] }
		printf "resident: peak %d KiB from %.0f to %.0f s simulated, %d KiB after (%+.1f%%); %d KiB at the end\n", p1, s[f], s[m], p2, 100 * (p2 - p1) / p1, r[NR]
		for (i = NR; i >= 1; i--) if (s[i] <= s[NR] - 60) { b = i; break }
		if (f > 1 && b) printf "real time: %.2fx over the first minute, %.2fx over the last\n", s[f] / w[f], (s[NR] - s[b]) / (w[NR] - w[b])
	}' "$out/samples"
rm -rf "$out"
