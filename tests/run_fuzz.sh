#!/usr/bin/env bash
# Runs libFuzzer harnesses for SECONDS each over their committed corpus
# (read-only: new inputs go to a temp dir) and reports executions.
# Usage: run_fuzz.sh SECONDS HARNESS...
# With FUZZ_RUNS=N in the environment each runs N executions instead (a
# campaign; SECONDS then only labels the output).
set -u
secs=$1; shift
limit=(-max_total_time="$secs")
[ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0; failed=0
for h in "$@"; do
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
		passed=$((passed + 1))
		echo "ok   fuzz $h: ${runs:-?} executions in ${secs}s, no crash"
	else
		failed=$((failed + 1))
		grep -E 'ERROR|SUMMARY|==[0-9]+==' "$work/log" | head -20
		echo "FAIL fuzz $h: crash after ${runs:-?} executions; artifacts:"
		ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null
		cp "$work"/crash-* "$work"/leak-* "$top/tests/fuzz/" 2>/dev/null
	fi
	rm -rf "$work"
done
echo "fuzz: $passed passed, $failed failed"
if [ -n "${CF_COUNTS:-}" ]; then echo "$passed $failed" >> "$CF_COUNTS"; fi
[ "$failed" -eq 0 ]
