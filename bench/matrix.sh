#!/usr/bin/env bash
# bench/matrix.sh: wall time of the pairwise bandwidth matrix.
#
# The lab's leafspine-4x2 fabric (8 hosts), bandwidth only on the cluster
# network, t = SECS (default 3): prints the wall time against the serial
# bound n(n-1)t (every ordered pair alone) and the target
# 1.15 (n-1) t + 10 s. As root.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-3}
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 2; }
make -C "$TOP" -s all >/dev/null || exit 3
P=""
T=$(mktemp -d /tmp/cf-bench.XXXXXX)
trap '[ -n "$P" ] && "$TOP/tests/lab/lab.sh" down "$P" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
P=$(LAB_QUIET=1 "$TOP/tests/lab/lab.sh" up leafspine-4x2 --agents) || exit 3
n=$(jq '.hosts | length' <<<"$("$TOP/tests/lab/lab.sh" status "$P" --json)")
start=$(date +%s.%N)
ip netns exec "$P-adm" "$TOP/build/cephfab" -i "/run/cephfab-lab/$P/lab.inv" matrix \
	--net cluster --tests bw -t "$SECS" --profile "$TOP/configs/profiles/lab.conf" \
	--db "$T/b.db" > "$T/out.txt" 2>&1
rc=$?
wall=$(echo "$(date +%s.%N) - $start" | bc -l)
serial=$(echo "$n * ($n - 1) * $SECS" | bc -l)
target=$(echo "1.15 * ($n - 1) * $SECS + 10" | bc -l)
printf '# pairwise bandwidth matrix, %d hosts (leafspine-4x2), t = %s s, exit %d\n' "$n" "$SECS" "$rc"
printf '%-28s %8.1f s\n' "wall time" "$wall" "serial bound n(n-1)t" "$serial" \
	"target 1.15(n-1)t + 10" "$target"
printf '%-28s %8.2f\n' "wall / target" "$(echo "$wall / $target" | bc -l)"
