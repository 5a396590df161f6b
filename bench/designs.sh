#!/usr/bin/env bash
# bench/designs.sh: the same matrix on the same four hosts over the three
# fabric designs in turn (leaf-spine eBGP with ECMP, dual-plane OSPF,
# stacked LACP with Open vSwitch bonds), every host link 200 Mbit/s
# (bench/designs/*.topo), each run stored in one database, then
# 'cephfab compare' across the three. As root.
#
#   SECS   seconds per pair (default 3)     STREAMS  -P (default 8)
#   NET    network to measure (default cluster)
#   DB     keep the database here (default: a temp file, removed)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-3}
STREAMS=${STREAMS:-8}
NET=${NET:-cluster}
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 2; }
make -C "$TOP" -s all >/dev/null || exit 3
T=$(mktemp -d /tmp/cf-bench.XXXXXX)
DB=${DB:-$T/designs.db}
P=""
trap '[ -n "$P" ] && "$TOP/tests/lab/lab.sh" down "$P" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
runs=()
for d in leafspine ospf-dual stacked-lacp; do
	P=$(LAB_QUIET=1 "$TOP/tests/lab/lab.sh" up "$TOP/bench/designs/$d.topo" --agents) ||
		{ echo "bench: $d lab did not come up" >&2; exit 3; }
	[ -t 2 ] && echo "bench: $d: matrix on $NET, -P $STREAMS, -t $SECS" >&2
	ip netns exec "$P-adm" "$TOP/build/cephfab" -i "/run/cephfab-lab/$P/lab.inv" \
		matrix --net "$NET" --tests bw,lat,facts -P "$STREAMS" -t "$SECS" \
		--profile "$TOP/bench/designs/designs.conf" --db "$DB" > "$T/$d.txt" 2>&1
	rc=$?
	[ "$rc" -le 1 ] || { echo "bench: $d matrix exit $rc: $(tail -3 "$T/$d.txt")" >&2; exit 3; }
	runs+=("$(sqlite3 "$DB" 'select max(id) from runs')")
	"$TOP/tests/lab/lab.sh" down "$P" >/dev/null 2>&1
	P=""
done
printf '# three designs, 4 hosts, 200 Mbit/s host links, %s network, -P %s, t = %s s\n' \
	"$NET" "$STREAMS" "$SECS"
printf '# runs: A leafspine (eBGP, ECMP), B ospf-dual (OSPF, ECMP over 2 planes), C stacked-lacp (OVS LACP bonds)\n'
"$TOP/build/cephfab" compare --db "$DB" "${runs[@]}" | sed -n '/^cluster network\|^public network/,/per pair/p' | grep -v 'per pair'
