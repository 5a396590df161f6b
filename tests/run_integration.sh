#!/usr/bin/env bash
# Runs the integration scenarios once (every tests/integration/*.sh, or
# those named), each scenario that failed once more at the end of the
# round, then the checks of tests/integration/last/ that must follow all
# of them (nothing left behind). Exit 0 when every scenario passed on one
# of its two runs, 1 otherwise.
#
# Which build: a scenario runs with the agents and the coordinator built
# under ASan+UBSan (build/asan, when it is there) unless its header says
# "# build: product" with the reason: the scenarios that judge speed or
# memory (shadow memory and -O1 are not the product's) and the real Ceph
# cluster's (Ceph's daemons settling, not our code, take its minutes).
# A sanitizer report written by any process of a scenario fails that run
# of it, and the report is shown.
#
# Beside the round: a scenario whose header says "# beside: WHY" (the real
# Ceph cluster: its minutes are Ceph's daemons peering and settling, not
# CPU) runs in a lane of its own, at the same time as the round's other
# scenarios, after those whose header says "# alone: WHY" (they judge
# speed or memory, and nothing runs beside them). Its reruns, as every
# rerun, run alone at the end.
#
# A scenario is a name (matrix), a file name (matrix.sh) or a path.
# Prints "ok", "FLAKY" (failed, then passed: counted passed, its first
# failure shown) or "FAIL" (failed twice) per scenario, the round's ten
# slowest scenarios, and "integration: N passed, N failed, N skipped,
# N flaky". Adds "passed failed skipped" to $CF_COUNTS and one line per
# flake to $CF_FLAKES when they are set (make check's totals).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
idir=$top/tests/integration
SAN=${CF_SAN_BUILD:-$top/build/asan}
TAIL=${CF_FAIL_LINES:-30}      # lines shown of a failure
FLAKE_LINES=${CF_FLAKE_LINES:-12}  # lines shown of a flake's first failure

resolve() { # NAME -> the scenario's path, or nothing
	local n=${1%.sh}
	case $1 in */*) [ -f "$1" ] && echo "$1"; return ;; esac
	if [ -f "$idir/$n.sh" ]; then echo "$idir/$n.sh"
	elif [ -f "$idir/last/$n.sh" ]; then echo "$idir/last/$n.sh"; fi
}
main=(); last=()
if [ $# -gt 0 ]; then
	for a in "$@"; do
		p=$(resolve "$a")
		[ -n "$p" ] || { echo "run_integration: no scenario '$a' (tests/integration/)" >&2; exit 2; }
		case $p in */last/*) last+=("$p") ;; *) main+=("$p") ;; esac
	done
else
	for p in "$idir"/*.sh; do [ "$(basename "$p")" = lib.sh ] || main+=("$p"); done
	last=("$idir"/last/*.sh)
fi

# What a lab left before this run began (a run killed by hand, another
# run's lab) is not this run's: the last checks judge only what is new.
CF_BEFORE=$( { ip netns list 2>/dev/null | awk '{print $1}'; ls /run/cephfab-lab 2>/dev/null;
	ls /var/run/frr 2>/dev/null; } | tr '\n' ' ')
export CF_BEFORE
work=$(mktemp -d /tmp/cf-integration.XXXXXX)
trap 'rm -rf "$work"' EXIT
have_san=0
[ -x "$SAN/cephfab" ] && [ -x "$SAN/cephfab-agent" ] && have_san=1

build_of() { # SCENARIO -> product|sanitizer
	if [ $have_san = 1 ] && ! head -40 "$1" | grep -q '^# build: product'; then
		echo sanitizer
	else
		echo product
	fi
}

# attempt SCENARIO N: runs it once; its output in $work/NAME.N.out, its
# seconds in $secs, its exit status in $rc (1 if a sanitizer reported).
attempt() {
	local s=$1 n=$2 name out logs start
	name=$(basename "$s" .sh)
	out=$work/$name.$n.out
	start=$(date +%s)
	if [ "$(build_of "$s")" = sanitizer ]; then
		logs=$work/$name.$n.san
		mkdir -p "$logs"
		CEPHFAB=$SAN/cephfab AGENT=$SAN/cephfab-agent CEPHFAB_AGENT=$SAN/cephfab-agent \
		CF_SANITIZED=1 \
		ASAN_OPTIONS=detect_leaks=1:log_path=$logs/asan \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan \
			timeout 900 bash "$s" > "$out" 2>&1
		rc=$?
		if ls "$logs"/* > /dev/null 2>&1; then
			{ echo "sanitizer reports: $(cd "$logs" && ls | tr '\n' ' ')"
			  head -40 "$logs"/*; } >> "$out"
			if [ $rc = 0 ] || [ $rc = 77 ]; then rc=1; fi
		fi
	else
		timeout 900 bash "$s" > "$out" 2>&1
		rc=$?
	fi
	secs=$(( $(date +%s) - start ))
	echo "$secs $name" >> "$work/times"
}

passed=0; failed=0; skipped=0; flaky=0
tag() { head -40 "$1" | grep -q "^# $2: "; }  # SCENARIO TAG

# first_result SCENARIO: counts and prints what its first run did; a
# failed one joins again[].
first_result() {
	local s=$1 name
	name=$(basename "$s" .sh)
	case $rc in
	0) passed=$((passed + 1)); echo "ok   $name (${secs}s, $(build_of "$s")$(tag "$s" beside && echo ", beside"))" ;;
	77) skipped=$((skipped + 1)); echo "skip $name: $(grep SKIP "$work/$name.1.out" | tail -1)" ;;
	*) again+=("$s"); echo "...  $name failed (exit $rc, ${secs}s): runs again at the end of the round" ;;
	esac
}

# round SCENARIO...: each once (the alone ones first, the beside ones in
# their lane), then each that failed once more, alone.
round() {
	local s name lane=() alone=() rest=() lane_pid=""
	again=()
	for s in "$@"; do
		if tag "$s" beside; then lane+=("$s")
		elif tag "$s" alone; then alone+=("$s")
		else rest+=("$s"); fi
	done
	for s in "${alone[@]}"; do attempt "$s" 1; first_result "$s"; done
	if [ ${#lane[@]} -gt 0 ]; then
		( for s in "${lane[@]}"; do
			attempt "$s" 1
			echo "$rc $secs" > "$work/$(basename "$s" .sh).lane"
		  done ) &
		lane_pid=$!
	fi
	for s in "${rest[@]}"; do attempt "$s" 1; first_result "$s"; done
	if [ -n "$lane_pid" ]; then
		wait "$lane_pid"
		for s in "${lane[@]}"; do
			read -r rc secs < "$work/$(basename "$s" .sh).lane" || { rc=1; secs=0; }
			first_result "$s"
		done
	fi
	for s in "${again[@]}"; do
		name=$(basename "$s" .sh)
		attempt "$s" 2
		if [ $rc = 0 ]; then
			passed=$((passed + 1)); flaky=$((flaky + 1))
			echo "FLAKY $name: failed, then passed (${secs}s); its first failure ended:"
			tail -"$FLAKE_LINES" "$work/$name.1.out" | sed 's/^/    | /'
			echo "FLAKY $name: $(grep -m1 -E 'FAIL|sanitizer reports' "$work/$name.1.out" ||
				tail -1 "$work/$name.1.out")" >> "$work/flakes"
		elif [ $rc = 77 ]; then
			skipped=$((skipped + 1)); echo "skip $name (on its second run): $(grep SKIP "$work/$name.2.out" | tail -1)"
		else
			failed=$((failed + 1))
			tail -"$TAIL" "$work/$name.2.out"
			echo "FAIL $name (exit $rc twice, ${secs}s)"
		fi
	done
}
t0=$(date +%s)
round "${main[@]}"
# The last checks follow every run of every scenario, the second ones too.
[ ${#last[@]} -gt 0 ] && round "${last[@]}"
echo "slowest scenarios (seconds, both runs of a scenario that ran twice):"
awk '{s[$2] += $1} END {for (n in s) print s[n], n}' "$work/times" | sort -rn | head -10 |
	awk '{printf "  %5d  %s\n", $1, $2}'
if [ -s "$work/flakes" ]; then
	cat "$work/flakes"
	[ -n "${CF_FLAKES:-}" ] && cat "$work/flakes" >> "$CF_FLAKES"
fi
echo "integration: $passed passed, $failed failed, $skipped skipped, $flaky flaky ($(( $(date +%s) - t0 ))s)"
if [ -n "${CF_COUNTS:-}" ]; then echo "$passed $failed $skipped" >> "$CF_COUNTS"; fi
[ "$failed" -eq 0 ]
