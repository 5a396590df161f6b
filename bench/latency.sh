#!/usr/bin/env bash
# bench/latency.sh: cephfab's latency probe against sockperf and qperf on
# one veth pair in the same run.
#
# Two namespaces joined by one veth pair. For 64 B and 2000 B: sockperf
# ping-pong (UDP and TCP; full round trip), qperf tcp_lat (its one-way
# figure doubled), and cephfab latency over UDP and TCP. Prints the median
# and minimum RTT of each, and cephfab's median / sockperf's median and
# min difference.
#
#   SECS=5 bench/latency.sh      (as root)
#
# Targets (from the probes issue): cephfab's median within +-5 % of
# sockperf's, and its min RTT <= sockperf's min + 2 us.
set -u
. "$(dirname "$0")/lib.sh"
SECS=${SECS:-5}
for t in sockperf qperf jq; do
	command -v $t >/dev/null || { echo "bench: needs $t (make deps)" >&2; exit 2; }
done
make -C "$TOP" -s all >/dev/null || exit 3
bench_pair "bl$$" 198.18.78
ip netns exec "$A" "$TOP/build/cephfab-agent" -d -c "$T/agent.conf" --listen 198.18.78.1:7470 2>/dev/null &
PIDS+=("$!")
ip netns exec "$B" "$TOP/build/cephfab-agent" -d -c "$T/agent.conf" --listen 198.18.78.2:7470 2>/dev/null &
PIDS+=("$!")
ip netns exec "$B" sockperf server -i 198.18.78.2 -p 11111 >/dev/null 2>&1 &
PIDS+=("$!")
ip netns exec "$B" sockperf server -i 198.18.78.2 -p 11112 --tcp >/dev/null 2>&1 &
PIDS+=("$!")
ip netns exec "$B" qperf >/dev/null 2>&1 &
PIDS+=("$!")
printf '[global]\nkey = key\n[host a]\nagent = 198.18.78.1\npublic = 198.18.78.1\n[host b]\nagent = 198.18.78.2\npublic = 198.18.78.2\n' > "$T/inv"
sleep 1

# sockperf with --full-rtt reports round trips, in usec.
sp() { # SIZE [--tcp] -> "p50_rtt min_rtt"
	local port=11111; [ "${2:-}" = --tcp ] && port=11112
	ip netns exec "$A" sockperf ping-pong -i 198.18.78.2 -p "$port" ${2:-} -m "$1" -t "$SECS" --full-rtt > "$T/sp.out" 2>&1
	awk '/percentile 50.000/ {p = $NF} /<MIN> observation/ {m = $NF} END {printf "%.2f %.2f\n", p, m}' "$T/sp.out"
}
qp() { # SIZE -> "rtt"
	ip netns exec "$A" qperf 198.18.78.2 -t "$SECS" -m "$1" tcp_lat 2>&1 |
		awk '/latency/ {v = $3; if ($4 == "ms") v *= 1000; printf "%.2f\n", 2 * v}'
}
cf() { # SIZE [--tcp] -> "p50 min"
	ip netns exec "$A" "$TOP/build/cephfab" -i "$T/inv" latency a b --net public \
		--size "$1" -t "$SECS" ${2:-} --json 2>/dev/null |
		jq -r '.results[0].sizes[0].rtt | "\(.p50_us) \(.min_us)"'
}
echo "# cephfab $("$TOP/build/cephfab" version | cut -d' ' -f2) vs sockperf $(sockperf --version 2>&1 | grep -o 'version [0-9.]*' | head -1 | cut -d' ' -f2) and qperf, veth pair, $(nproc) cores, $SECS s each"
echo "# round-trip times in microseconds (sockperf --full-rtt; qperf's one-way figure doubled)"
printf '%-5s %-5s %12s %12s %12s %12s %12s %9s %9s\n' size proto "sockperf p50" "cephfab p50" "qperf" \
	"sockperf min" "cephfab min" "p50 ratio" "min diff"
for size in 64 2000; do
	for proto in udp tcp; do
		flag=""; [ $proto = tcp ] && flag=--tcp
		read -r sp50 spmin < <(sp "$size" $flag)
		read -r c50 cmin < <(cf "$size" $flag)
		q="-"; [ $proto = tcp ] && q=$(qp "$size")
		printf '%-5s %-5s %12s %12s %12s %12s %12s %9.3f %9.2f\n' "$size" "$proto" \
			"$sp50" "$c50" "$q" "$spmin" "$cmin" \
			"$(echo "$c50 / $sp50" | bc -l)" "$(echo "$cmin - $spmin" | bc -l)"
	done
done
