#!/usr/bin/env bash
# Runs libFuzzer harnesses for SECONDS each over their committed corpus
# (read-only: new inputs go to a temp dir) and reports executions.
# Usage: run_fuzz.sh SECONDS HARNESS...
# FUZZ_JOBS=N runs N harnesses at once (make check: one per core).
# With FUZZ_RUNS=N in the environment each runs N executions instead (a
# campaign; SECONDS then only labels the output).
set -u
secs=$1; shift
limit=(-max_total_time="$secs")
[ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
top=$(cd "$(dirname "$0")/.." && pwd)
# fuzz_one HARNESS: one run, its line into $res/HARNESS and 0 or 1 into
# $res/HARNESS.rc (harnesses run FUZZ_JOBS at a time, lines in order).
res=$(mktemp -d /tmp/cf-fuzzres.XXXXXX)
trap 'rm -rf "$res"' EXIT
fuzz_one() {
	local h=$1 bin work t0 rc runs secs
	bin=$top/build/fuzz/$h
	work=$(mktemp -d /tmp/cf-fuzz.XXXXXX)
	mkdir -p "$top/tests/fuzz/corpus/$h"
	t0=$(date +%s)
	"$bin" "${limit[@]}" -print_final_stats=1 \
		-artifact_prefix="$work/" -rss_limit_mb=2048 \
		"$work" "$top/tests/fuzz/corpus/$h" >"$work/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
	secs=$(( $(date +%s) - t0 ))
	if [ $rc -eq 0 ]; then
		echo "ok   fuzz $h: ${runs:-?} executions in ${secs}s, no crash" > "$res/$h"
		echo 0 > "$res/$h.rc"
	else
		{ grep -E 'ERROR|SUMMARY|==[0-9]+==' "$work/log" | head -20
		  echo "FAIL fuzz $h: crash after ${runs:-?} executions; artifacts:"
		  ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null; } > "$res/$h"
		cp "$work"/crash-* "$work"/leak-* "$top/tests/fuzz/" 2>/dev/null
		echo 1 > "$res/$h.rc"
	fi
	rm -rf "$work"
}
jobs_max=${FUZZ_JOBS:-1}
for h in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	fuzz_one "$h" &
done
wait
passed=0; failed=0
for h in "$@"; do
	cat "$res/$h"
	if [ "$(cat "$res/$h.rc" 2>/dev/null)" = 0 ]; then passed=$((passed + 1))
	else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
if [ -n "${CF_COUNTS:-}" ]; then echo "$passed $failed" >> "$CF_COUNTS"; fi
[ "$failed" -eq 0 ]
