#!/usr/bin/env bash
# The soak benchmark (docs/benchmarks.md, "Soak"): ten simulated minutes of
# tools/soak/soak.lua, headless with the liquid surface built every frame, the resident
# memory of the process sampled every 10 s of wall time. It prints the script's lines
# (volume, balance), the samples, and a summary: the resident memory at the first sample
# after one simulated minute against the last, and the real-time factor of the first and
# the last simulated minute.
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
	simt=$(grep -o 't = [0-9.]* s' "$out/log" | tail -1 | awk '{print $3}')
	[ -n "$rss" ] && printf '%.1f %s %s\n' "$(echo "$now - $start" | bc)" "${simt:-0}" "$rss" >>"$out/samples"
	sleep 10
done
wait "$pid"
grep '^soak' "$out/log" || true
tail -12 "$out/log"
echo "# wall s, simulated s, resident KiB"
cat "$out/samples"
awk -v until="$until" '
	{ w[NR] = $1; s[NR] = $2; r[NR] = $3 }
	END {
		for (i = 1; i <= NR; i++) if (s[i] >= 60) { f = i; break }
		if (!f) { print "soak: no sample after one simulated minute"; exit }
		printf "resident: %d KiB at %.0f s simulated, %d KiB at the end (%+.1f%%)\n", r[f], s[f], r[NR], 100 * (r[NR] - r[f]) / r[f]
		for (i = 1; i <= NR; i++) if (s[i] >= 60) { a = i; break }
		for (i = NR; i >= 1; i--) if (s[i] <= s[NR] - 60) { b = i; break }
		if (a > 1 && b) printf "real time: %.2fx over the first minute, %.2fx over the last\n", (s[a] - 0) / w[a], (s[NR] - s[b]) / (w[NR] - w[b])
	}' "$out/samples"
rm -rf "$out"
