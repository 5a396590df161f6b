#!/usr/bin/env bash
# make check's own runner (tests/run_integration.sh, tests/check.sh) on
# scenarios made to pass, fail once, or fail every time
# (tests/fixtures/runner/): a scenario that fails and then passes lets
# the round pass and is named FLAKY with its first failure; one that fails
# twice fails the round as FAIL; the round prints its slowest scenarios,
# make check each phase's time and the flakes just above its last line.
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures/runner
export CF_RUNNER_STATE=$T/state
mkdir -p "$CF_RUNNER_STATE"
# The runs below are this test's own: make check's totals are not theirs.
run() { env -u CF_COUNTS -u CF_FLAKES "$@"; }

# 1. Fails, then passes: the round passes, FLAKY with its first failure.
run "$TOP/tests/run_integration.sh" "$FX/passes.sh" "$FX/flaky_once.sh" > "$T/r1" 2>&1
assert_eq "$?" 0 "a round whose one failure passed when run again"
grep -q '^FLAKY flaky_once: failed, then passed' "$T/r1" || fail "no FLAKY line: $(cat "$T/r1")"
grep -q '^    | FAIL: flaky_once fails its first run on purpose' "$T/r1" ||
	fail "the first failure is not shown: $(cat "$T/r1")"
# Listed again just above the closing line.
[ "$(tail -2 "$T/r1" | head -1 | cut -c1-17)" = "FLAKY flaky_once:" ] ||
	fail "the flake is not listed above the closing line: $(tail -3 "$T/r1")"
tail -1 "$T/r1" | grep -q '^integration: 2 passed, 0 failed, 0 skipped, 1 flaky' ||
	fail "closing line: $(tail -1 "$T/r1")"
# The slowest table names both, with their seconds, the slower first.
sed -n '/^slowest scenarios/,/^integration:/p' "$T/r1" > "$T/slow"
grep -Eq '^ +[0-9]+  passes$' "$T/slow" && grep -Eq '^ +[0-9]+  flaky_once$' "$T/slow" ||
	fail "slowest table: $(cat "$T/slow")"
[ "$(sed -n 2p "$T/slow" | awk '{print $2}')" = passes ] || fail "slowest first: $(cat "$T/slow")"

# 2. Fails twice: the round fails, FAIL with the second run's end.
run "$TOP/tests/run_integration.sh" "$FX/passes.sh" "$FX/fails_twice.sh" > "$T/r2" 2>&1
assert_eq "$?" 1 "a round with a scenario that failed twice"
grep -q '^FAIL fails_twice (exit 1 twice' "$T/r2" || fail "no FAIL line: $(cat "$T/r2")"
grep -q '^run 2$' "$T/r2" || fail "the second run's output is not shown: $(cat "$T/r2")"
grep -q '^FLAKY' "$T/r2" && fail "a scenario failed twice is not a flake: $(cat "$T/r2")"
tail -1 "$T/r2" | grep -q '^integration: 1 passed, 1 failed, 0 skipped, 0 flaky' ||
	fail "closing line: $(tail -1 "$T/r2")"
# A name that is no scenario: a one-line error, exit 2.
run "$TOP/tests/run_integration.sh" no_such_scenario > "$T/r3" 2>&1
assert_eq "$?" 2 "an unknown scenario"
grep -q "no scenario 'no_such_scenario'" "$T/r3" || fail "unknown scenario: $(cat "$T/r3")"

# 3. make check's driver: phase times, the flakes above the last line,
# which still reads "N passed, N failed".
rm -f "$CF_RUNNER_STATE"/*
run UNIT_TESTS=test_text FUZZ_HARNESSES=none CHECK_PHASES="unit integration" \
	SCENARIOS="$FX/passes.sh $FX/flaky_once.sh" "$TOP/tests/check.sh" > "$T/c" 2>&1
assert_eq "$?" 0 "check.sh with a flake"
sed -n '/^phase times/,$p' "$T/c" > "$T/ph"
grep -Eq '^ +[0-9]+  unit$' "$T/ph" && grep -Eq '^ +[0-9]+  integration$' "$T/ph" &&
	grep -Eq '^ +[0-9]+  total$' "$T/ph" || fail "phase times: $(cat "$T/ph")"
grep -q '^== unit tests under valgrind' "$T/c" && fail "a phase not asked for ran"
[ "$(tail -2 "$T/c" | head -1 | cut -c1-17)" = "FLAKY flaky_once:" ] || fail "flakes above the last line: $(tail -4 "$T/c")"
tail -1 "$T/c" | grep -Eq '^[0-9]+ passed, 0 failed$' || fail "last line: $(tail -1 "$T/c")"
exit 0
