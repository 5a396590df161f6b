#!/usr/bin/env bash
# Runs every tests/integration/*.sh scenario (or those named), then the
# checks of tests/integration/last/ that must follow all of them (nothing
# left behind), and counts them: exit 0 passed, 77 skipped, anything else
# failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0; failed=0; skipped=0
if [ $# -gt 0 ]; then scenarios=("$@"); else
	scenarios=("$top"/tests/integration/*.sh "$top"/tests/integration/last/*.sh)
fi
# What a lab left before this run began (a run killed by hand, another
# run's lab) is not this run's: the last checks judge only what is new.
CF_BEFORE=$( { ip netns list 2>/dev/null | awk '{print $1}'; ls /run/cephfab-lab 2>/dev/null;
	ls /var/run/frr 2>/dev/null; } | tr '\n' ' ')
export CF_BEFORE
for s in "${scenarios[@]}"; do
	name=$(basename "$s" .sh)
	[ "$name" = lib ] && continue
	start=$(date +%s)
	out=$(timeout 900 bash "$s" 2>&1); rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) passed=$((passed + 1)); echo "ok   $name (${secs}s)" ;;
	77) skipped=$((skipped + 1)); echo "skip $name: $(printf '%s\n' "$out" | grep SKIP | tail -1)" ;;
	*) failed=$((failed + 1)); printf '%s\n' "$out" | tail -30
	   echo "FAIL $name (exit $rc, ${secs}s)" ;;
	esac
done
echo "integration: $passed passed, $failed failed, $skipped skipped"
if [ -n "${CF_COUNTS:-}" ]; then echo "$passed $failed $skipped" >> "$CF_COUNTS"; fi
[ "$failed" -eq 0 ]
