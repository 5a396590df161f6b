#!/usr/bin/env bash
# 'make check': unit tests, the same under ASan+UBSan, one round of
# integration scenarios (tests/run_integration.sh: sanitizer build but for
# speed and Ceph, a failed scenario run once more and reported FLAKY if it
# then passes), unit tests under valgrind, then short fuzz runs when clang
# is there. Ends with each phase's time, every flake of the run, and one
# line "N passed, N failed" over all of them.
#
# SCENARIOS="matrix probes" runs only those integration scenarios (same
# builds, rerun and timing); CHECK_PHASES="unit integration" only those
# phases (unit, sanunit, integration, valgrind, fuzz).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 3
export CF_COUNTS CF_FLAKES
CF_COUNTS=$(mktemp /tmp/cf-counts.XXXXXX)
CF_FLAKES=$(mktemp /tmp/cf-flakes.XXXXXX)
times=$(mktemp /tmp/cf-phases.XXXXXX)
trap 'rm -f "$CF_COUNTS" "$CF_FLAKES" "$times"' EXIT
UNIT=${UNIT_TESTS:?run through make check}
# Builds, valgrind and the short fuzz runs use every core; the
# integration scenarios run one at a time (their timings judge).
J=${NPROC:-$(nproc 2>/dev/null || echo 2)}
if [ -n "${SCENARIOS:-}" ]; then
	PHASES=${CHECK_PHASES:-integration}
else
	PHASES=${CHECK_PHASES:-unit sanunit integration valgrind fuzz}
fi
want() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
# phase NAME TITLE FN: runs FN under the title, records its seconds.
phase() {
	local t0=$SECONDS
	echo "== $2"
	"$3"
	echo "$1 $(( SECONDS - t0 ))" >> "$times"
}

unit() { tests/run_unit.sh $(for t in $UNIT; do echo build/tests/$t; done); }
sanunit() {
	if make --no-print-directory -j"$J" unit-asan-build >/tmp/cf-asan-build.log 2>&1; then
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			tests/run_unit.sh $(for t in $UNIT; do echo build/asan/tests/$t; done)
	else
		tail -20 /tmp/cf-asan-build.log
		echo "0 1" >> "$CF_COUNTS"
		echo "FAIL: sanitizer build"
	fi
}
integration() {
	# The agents and the coordinator under ASan+UBSan for the scenarios
	# that do not judge speed (run_integration.sh says which run where).
	if ! make --no-print-directory -j"$J" san-bins >/tmp/cf-asan-bins.log 2>&1; then
		tail -20 /tmp/cf-asan-bins.log
		echo "0 1" >> "$CF_COUNTS"
		echo "FAIL: sanitizer build of the agent and the coordinator"
		return
	fi
	# shellcheck disable=SC2086 # a list of names
	tests/run_integration.sh ${SCENARIOS:-}
}
valgrind_phase() {
	command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed"; return; }
	if make --no-print-directory NPROC="$J" valgrind > /tmp/cf-valgrind.log 2>&1; then
		tail -1 /tmp/cf-valgrind.log
		n=$(grep -c '^ok   valgrind' /tmp/cf-valgrind.log)
		echo "$n 0" >> "$CF_COUNTS"
	else
		tail -40 /tmp/cf-valgrind.log
		echo "0 1" >> "$CF_COUNTS"
	fi
}
fuzz() {
	command -v clang >/dev/null 2>&1 || { echo "clang not installed: fuzz harnesses not run"; return; }
	if make --no-print-directory -j"$J" fuzz-build >/tmp/cf-fuzz-build.log 2>&1; then
		FUZZ_JOBS=$J tests/run_fuzz.sh "${FUZZ_CHECK_SECONDS:-3}" ${FUZZ_HARNESSES:?}
	else
		tail -20 /tmp/cf-fuzz-build.log
		echo "0 1" >> "$CF_COUNTS"
	fi
}

want unit && phase unit "unit tests" unit
want sanunit && phase sanunit "unit tests under ASan+UBSan" sanunit
want integration && phase integration "integration scenarios" integration
want valgrind && phase valgrind "unit tests under valgrind" valgrind_phase
want fuzz && phase fuzz "fuzz (short)" fuzz

passed=$(awk '{p += $1} END {print p + 0}' "$CF_COUNTS")
failed=$(awk '{f += $2} END {print f + 0}' "$CF_COUNTS")
skipped=$(awk '{s += $3} END {print s + 0}' "$CF_COUNTS")
echo
echo "phase times (seconds):"
awk '{printf "  %5d  %s\n", $2, $1; t += $2} END {printf "  %5d  total\n", t}' "$times"
if [ -s "$CF_FLAKES" ]; then
	echo "flaky this run (failed once, passed when run again; each is a bug):"
	cat "$CF_FLAKES"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
