#!/usr/bin/env bash
# bench/monitor.sh: what continuous monitoring costs an agent.
#
# AGENTS (default 256) agents on loopback, each on two networks (public
# 127.X.0.0/16, cluster 127.Y.0.0/16) with metrics_listen, given
# 'monitor start --peers all --rate 1': every agent probes its 255 peers on
# both networks once a second (510 probes/s sent, as many echoed). After
# WARM seconds (default 10), each agent's CPU over SECS seconds (default
# 30) from /proc/PID/stat, its RSS, and one scrape's series and bytes;
# printed as median and max per agent against the targets: 1 % of one
# core, 20 MB RSS. The agents share this machine's cores: on a real
# cluster each has a host of its own.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${AGENTS:-256}; WARM=${WARM:-10}; SECS=${SECS:-30}
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 2; }
make -C "$TOP" -s all >/dev/null || exit 3
T=$(mktemp -d /tmp/cf-bench.XXXXXX)
APIDS=()
trap 'exit 130' INT TERM
trap 'for p in "${APIDS[@]}"; do kill "$p" 2>/dev/null; done; for p in "${APIDS[@]}"; do wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
X=$((RANDOM % 100 + 20)); Y=$((X + 100))
addr() { echo "127.$1.$(($2 / 250)).$(($2 % 250 + 1))"; }
"$TOP/build/cephfab" keygen -o "$T/key" >/dev/null || exit 3
{
	printf '[global]\nkey = %s\n' "$T/key"
	for i in $(seq 0 $((N - 1))); do
		printf '[host n%03d]\nagent = %s\npublic = %s\ncluster = %s\n' \
			"$i" "$(addr $X $i)" "$(addr $X $i)" "$(addr $Y $i)"
	done
} > "$T/inv"
for i in $(seq 0 $((N - 1))); do
	mkdir -p "$T/s$i"
	printf '[agent]\nmetrics_listen = %s:7471\nstate_dir = %s\n' "$(addr $X $i)" "$T/s$i" > "$T/a$i.conf"
	"$TOP/build/cephfab-agent" -d --listen "$(addr $X $i):7470" --key "$T/key" \
		-c "$T/a$i.conf" > /dev/null 2>&1 &
	APIDS+=($!)
done
for try in $(seq 1 100); do
	"$TOP/build/cephfab" -i "$T/inv" hosts --json > "$T/h.json" 2>/dev/null && break
	sleep 0.2
done
[ "$(jq '[.hosts[] | select(.state == "ok")] | length' "$T/h.json")" = "$N" ] ||
	{ echo "bench: not all $N agents are up" >&2; exit 3; }
"$TOP/build/cephfab" -i "$T/inv" monitor start --peers all --rate 1 --json > "$T/start.json" ||
	{ echo "bench: monitor start failed: $(jq -c '[.hosts[] | select(.state != "running")][:3]' "$T/start.json")" >&2; exit 3; }
sleep "$WARM"
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
declare -A t0
for p in "${APIDS[@]}"; do t0[$p]=$(ticks "$p"); done
sleep "$SECS"
hz=$(getconf CLK_TCK)
for p in "${APIDS[@]}"; do
	echo "$(( $(ticks "$p") - ${t0[$p]} )) $(awk '/^VmRSS/ {print $2}' "/proc/$p/status")"
done > "$T/use.txt"
curl -s -m 10 "http://$(addr $X 0):7471/metrics" > "$T/m.txt"
"$TOP/build/cephfab" -i "$T/inv" monitor status --json > "$T/status.json"
python3 - "$T/use.txt" "$hz" "$SECS" "$N" "$T/m.txt" "$T/status.json" <<'PY'
import json, statistics, sys
use, hz, secs, n = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rows = [tuple(map(int, l.split())) for l in open(use)]
cpu = sorted(100.0 * t / hz / secs for t, _ in rows)
rss = sorted(r / 1024.0 for _, r in rows)
text = open(sys.argv[5]).read()
series = sum(1 for l in text.splitlines() if l and not l.startswith("#"))
st = json.load(open(sys.argv[6]))
sent = sum(h.get("sent", 0) for h in st["hosts"])
lost = sum(h.get("lost", 0) for h in st["hosts"])
run = sum(1 for h in st["hosts"] if h["state"] == "running")
print(f"# monitoring: {n} agents on loopback, {n - 1} peers x 2 networks at 1 probe/s each")
print(f"{'agents probing':32} {run:>10}")
print(f"{'probes sent (all agents)':32} {sent:>10}   lost {lost} ({100.0 * lost / max(sent, 1):.3f} %)")
print(f"{'CPU per agent, median / max':32} {statistics.median(cpu):>9.2f}% {cpu[-1]:>7.2f}%   target < 1 % of one core")
print(f"{'RSS per agent, median / max':32} {statistics.median(rss):>8.1f}MB {rss[-1]:>6.1f}MB   target < 20 MB")
print(f"{'series per scrape (one agent)':32} {series:>10}   {len(text) / 1024:.0f} KiB")
print(f"{'CPU / target (median)':32} {statistics.median(cpu) / 1.0:>10.2f}")
print(f"{'RSS / target (max)':32} {rss[-1] / 20.0:>10.2f}")
PY
