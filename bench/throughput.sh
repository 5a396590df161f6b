#!/usr/bin/env bash
# bench/throughput.sh: cephfab against Debian's iperf3 on the same path.
#
# Two network namespaces joined by one veth pair, no cap, offloads as the
# kernel sets them. For P = 1, 2, 4, 8 streams it runs iperf3 and cephfab
# alternately (ROUNDS rounds of SECS seconds each) and prints, for both,
# Gbit/s and CPU-seconds per GB moved (sender + receiver), and the ratios
# cephfab / iperf3. cephfab runs with its efficient path (MSG_TRUNC
# receives: no copy to user space) and, for reference, its default path.
# MSG_ZEROCOPY (--zerocopy) is left out: over veth the kernel copies
# zerocopy pages again on local delivery, so it only adds cost here; it
# pays on real NICs at high rates.
#
#   ROUNDS=3 SECS=10 PS="1 2 4 8" bench/throughput.sh     (as root)
#
# Targets (from the throughput issue): throughput ratio >= 1.0 at every P
# and >= 1.1 at P >= 2; CPU per GB <= 0.8 x iperf3's with the efficient path.
set -u
. "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}; SECS=${SECS:-10}; PS=${PS:-"1 2 4 8"}
command -v iperf3 >/dev/null || { echo "bench: needs iperf3" >&2; exit 2; }
make -C "$TOP" -s all >/dev/null || exit 3

bench_pair "bt$$" 198.18.77
for x in a:"$A":198.18.77.1 b:"$B":198.18.77.2; do
	IFS=: read -r n ns addr <<<"$x"
	ip netns exec "$ns" "$TOP/build/cephfab-agent" -d -c "$T/agent.conf" \
		--listen "$addr:7470" >"$T/agent-$n.log" 2>&1 &
	PIDS+=("$!")
done
printf '[global]\nkey = key\n[host a]\nagent = 198.18.77.1\npublic = 198.18.77.1\n[host b]\nagent = 198.18.77.2\npublic = 198.18.77.2\n' > "$T/inv"
sleep 0.5

# iperf_run P: prints "gbps cpu_seconds"; CPU from bash's 'times' of each
# side's children (user + system of the iperf3 process).
iperf_run() {
	ip netns exec "$B" bash -c 'iperf3 -s -1 -B 198.18.77.2 >/dev/null 2>&1; times' > "$T/srv.times" &
	local s=$!; sleep 0.3
	ip netns exec "$A" bash -c "iperf3 -c 198.18.77.2 -P $1 -t $SECS -J > $T/ip.json 2>/dev/null; times" > "$T/cli.times"
	wait "$s"
	local cpu
	cpu=$(cat "$T/srv.times" "$T/cli.times" | sed -n '2~2p' | awk '{for (i = 1; i <= 2; i++) { split($i, m, "m"); sub("s", "", m[2]); c += m[1] * 60 + m[2] } } END {print c}')
	echo "$(jq '.end.sum_received.bits_per_second / 1e9' "$T/ip.json") $cpu $(jq '.end.sum_received.bytes' "$T/ip.json")"
}

# cf_run P ARGS: prints "gbps cpu_seconds bytes".
cf_run() {
	local p=$1; shift
	ip netns exec "$A" "$TOP/build/cephfab" -i "$T/inv" pair a b --net public -P "$p" -t "$SECS" "$@" --json > "$T/cf.json" 2>/dev/null
	jq -r '"\(.end.sum.bits_per_second / 1e9) \(.end.cpu.a.user + .end.cpu.a.system + .end.cpu.b.user + .end.cpu.b.system) \(.end.sum.received_bytes)"' "$T/cf.json"
}

avg() { awk '{g += $1; c += $2; b += $3} END {printf "%.3f %.3f\n", g / NR, c / (b / 1e9)}'; }

echo "# cephfab $("$TOP/build/cephfab" version | cut -d' ' -f2) vs $(iperf3 --version | head -1 | cut -d' ' -f1-2), veth pair, $(nproc) cores, kernel $(uname -r)"
echo "# $ROUNDS rounds x $SECS s each; CPU = sender + receiver CPU-seconds per GB received"
printf '%-3s %10s %10s %10s %7s | %10s %10s %10s %7s | %10s %10s\n' P \
	"iperf3" "cf-eff" "cf-dflt" "ratio" "iperf3" "cf-eff" "cf-dflt" "ratio" "" ""
printf '%-3s %10s %10s %10s %7s | %10s %10s %10s %7s\n' "" Gbit/s Gbit/s Gbit/s eff/ip CPUs/GB CPUs/GB CPUs/GB eff/ip
for p in $PS; do
	: > "$T/ip.r"; : > "$T/eff.r"; : > "$T/def.r"
	for r in $(seq 1 "$ROUNDS"); do
		iperf_run "$p" >> "$T/ip.r"
		cf_run "$p" --skip-rx-copy >> "$T/eff.r"
		cf_run "$p" >> "$T/def.r"
	done
	read -r ig ic < <(avg < "$T/ip.r")
	read -r eg ec < <(avg < "$T/eff.r")
	read -r dg dc < <(avg < "$T/def.r")
	printf '%-3s %10.2f %10.2f %10.2f %7.2f | %10.3f %10.3f %10.3f %7.2f\n' "$p" \
		"$ig" "$eg" "$dg" "$(echo "$eg / $ig" | bc -l)" "$ic" "$ec" "$dc" "$(echo "$ec / $ic" | bc -l)"
done
