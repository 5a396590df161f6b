#!/usr/bin/env bash
# Runs cmocka test binaries and adds up their results.
# Usage: run_unit.sh BIN...   Prints "unit: N passed, N failed" and writes
# the counts to $CF_COUNTS (if set) as "passed failed".
set -u
passed=0; failed=0
for bin in "$@"; do
	out=$("$bin" 2>&1); rc=$?
	p=$(printf '%s\n' "$out" | sed -n 's/.*\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/.*\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	p=${p:-0}; f=${f:-0}
	# A binary that crashed (sanitizer, signal) before its summary counts
	# as one failure even if cmocka printed nothing.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f))
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" | grep -v '^\[ \(RUN\|       OK\) ' | tail -40
		echo "FAIL $(basename "$bin"): $p passed, $f failed (exit $rc)"
	else
		echo "ok   $(basename "$bin"): $p passed"
	fi
done
echo "unit: $passed passed, $failed failed"
if [ -n "${CF_COUNTS:-}" ]; then echo "$passed $failed" >> "$CF_COUNTS"; fi
[ "$failed" -eq 0 ]
