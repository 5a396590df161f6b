#!/usr/bin/env bash
# 'make check': unit tests, the same under ASan+UBSan, integration
# scenarios, then short fuzz runs when clang is there. Ends with one line
# "N passed, N failed" over all of them.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 3
export CF_COUNTS
CF_COUNTS=$(mktemp /tmp/cf-counts.XXXXXX)
trap 'rm -f "$CF_COUNTS"' EXIT
UNIT=${UNIT_TESTS:?run through make check}

echo "== unit tests"
tests/run_unit.sh $(for t in $UNIT; do echo build/tests/$t; done)
echo "== unit tests under ASan+UBSan"
if make --no-print-directory unit-asan-build >/tmp/cf-asan-build.log 2>&1; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/run_unit.sh $(for t in $UNIT; do echo build/asan/tests/$t; done)
else
	tail -20 /tmp/cf-asan-build.log
	echo "0 1" >> "$CF_COUNTS"
	echo "FAIL: sanitizer build"
fi
echo "== integration tests"
tests/run_integration.sh
echo "== integration tests again with the ASan+UBSan binaries"
# Every scenario but Ceph's, the agents and the coordinator built with the
# sanitizers. Reports go to files (agents are daemons: nobody reads their
# stderr); any report fails the run. Tests that judge speed only check
# that it was measured when CF_SANITIZED is set (-O1 and shadow memory
# are not the product's speed).
# The real Ceph cluster's scenarios (ceph_lab, ceph_migrate) run once,
# above: they are eleven minutes of Ceph's own daemons peering and
# settling, the coordinator's part in them is the ceph JSON (fuzzed under
# the sanitizers, fuzz_ceph) and the planner's state machine (test_plan,
# unit-tested under the sanitizers), and a second round pushed make check
# past its 50-minute budget.
if [ -x build/asan/cephfab ] && [ -x build/asan/cephfab-agent ]; then
	sanlogs=$(mktemp -d /tmp/cf-sanlogs.XXXXXX)
	scen=()
	for s in tests/integration/*.sh tests/integration/last/*.sh; do
		case $(basename "$s") in
		ceph_lab.sh|ceph_migrate.sh|lib.sh) ;;
		*) scen+=("$s") ;;
		esac
	done
	CEPHFAB=$top/build/asan/cephfab AGENT=$top/build/asan/cephfab-agent \
	CEPHFAB_AGENT=$top/build/asan/cephfab-agent CF_SANITIZED=1 \
	ASAN_OPTIONS=detect_leaks=1:log_path=$sanlogs/asan \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$sanlogs/ubsan \
		tests/run_integration.sh "${scen[@]}"
	if ls "$sanlogs"/* >/dev/null 2>&1; then
		head -40 "$sanlogs"/*
		echo "FAIL: sanitizer reports: $(ls "$sanlogs" | tr '\n' ' ')"
		echo "0 1" >> "$CF_COUNTS"
	else
		echo "ok   no sanitizer report from any agent or coordinator"
		echo "1 0" >> "$CF_COUNTS"
	fi
	rm -rf "$sanlogs"
fi
echo "== unit tests under valgrind"
if command -v valgrind >/dev/null 2>&1; then
	if make --no-print-directory valgrind > /tmp/cf-valgrind.log 2>&1; then
		tail -1 /tmp/cf-valgrind.log
		n=$(grep -c '^ok   valgrind' /tmp/cf-valgrind.log)
		echo "$n 0" >> "$CF_COUNTS"
	else
		tail -40 /tmp/cf-valgrind.log
		echo "0 1" >> "$CF_COUNTS"
	fi
fi
echo "== fuzz (short)"
if command -v clang >/dev/null 2>&1; then
	if make --no-print-directory fuzz-build >/tmp/cf-fuzz-build.log 2>&1; then
		tests/run_fuzz.sh "${FUZZ_CHECK_SECONDS:-5}" ${FUZZ_HARNESSES:?}
	else
		tail -20 /tmp/cf-fuzz-build.log
		echo "0 1" >> "$CF_COUNTS"
	fi
else
	echo "clang not installed: fuzz harnesses not run"
fi
passed=$(awk '{p += $1} END {print p + 0}' "$CF_COUNTS")
failed=$(awk '{f += $2} END {print f + 0}' "$CF_COUNTS")
skipped=$(awk '{s += $3} END {print s + 0}' "$CF_COUNTS")
echo
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
