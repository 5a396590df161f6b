#!/usr/bin/env bash
# bench/matrix.sh: wall time of the pairwise bandwidth matrix, and of a
# latency-only matrix of many agents.
#
# 1. The lab's leafspine-4x2 fabric (8 hosts), bandwidth only on the
#    cluster network, t = SECS (default 3): the wall time against the
#    serial bound n(n-1)t (every ordered pair alone) and the target
#    1.15 (n-1) t + 10 s. As root.
# 2. AGENTS (default 256) agents on loopback addresses of a random
#    127.X.0.0/16, a latency-only matrix (the mesh: one runner per agent):
#    wall time and the coordinator's peak RSS (the matrix process and its
#    mesh child) against the targets 60 s and 200 MB.
# ONLY=bw or ONLY=lat runs one part.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-3}
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 2; }
make -C "$TOP" -s all >/dev/null || exit 3
P=""
T=$(mktemp -d /tmp/cf-bench.XXXXXX)
trap 'exit 130' INT TERM
APIDS=()
trap '[ -n "$P" ] && "$TOP/tests/lab/lab.sh" down "$P" >/dev/null 2>&1; for p in "${APIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
if [ "${ONLY:-}" != lat ]; then
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
"$TOP/tests/lab/lab.sh" down "$P" >/dev/null 2>&1
P=""
fi
[ "${ONLY:-}" = bw ] && exit 0

# --- many agents, latency only ---------------------------------------------
N=${AGENTS:-256}
X=$((RANDOM % 200 + 20))
"$TOP/build/cephfab" keygen -o "$T/key" >/dev/null || exit 3
{
	printf '[global]\nkey = %s\npublic_network = 127.%d.0.0/16\n' "$T/key" "$X"
	for i in $(seq 0 $((N - 1))); do
		a="127.$X.$((i / 250)).$((i % 250 + 1))"
		printf '[host n%03d]\nagent = %s\npublic = %s\n' "$i" "$a" "$a"
	done
} > "$T/many.inv"
for i in $(seq 0 $((N - 1))); do
	a="127.$X.$((i / 250)).$((i % 250 + 1))"
	"$TOP/build/cephfab-agent" -d --listen "$a:7470" --key "$T/key" \
		>/dev/null 2>&1 &
	APIDS+=($!)
done
# Every agent answers before the clock starts.
for try in $(seq 1 100); do
	"$TOP/build/cephfab" -i "$T/many.inv" hosts --json > "$T/h.json" 2>/dev/null &&
		break
	sleep 0.2
done
[ "$(jq '[.hosts[] | select(.state == "ok")] | length' "$T/h.json")" = "$N" ] ||
	{ echo "bench: not all $N agents are up" >&2; exit 3; }
python3 - "$TOP/build/cephfab" "$T" "$N" "${LAT_RATE:-100}" <<'PY'
import resource, subprocess, sys, time, json
cf, t, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
LAT_RATE = sys.argv[4]
t0 = time.monotonic()
# All agents share this machine's cores: a lower rate per agent keeps
# their echo threads from queueing behind each other (on real hosts the
# default 1000/s per agent is a light load).
r = subprocess.run([cf, "-i", t + "/many.inv", "matrix", "--tests", "lat",
    "--net", "public", "--lat-rate", LAT_RATE, "--db", t + "/many.db",
    "--json", t + "/many.json"],
    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
d = json.load(open(t + "/many.json"))
cells = d["networks"]["public"]["cells"]
ok = sum(1 for c in cells if c["rtt_p50_us"] is not None)
p50 = sorted(c["rtt_p50_us"] for c in cells if c["rtt_p50_us"] is not None)
print("# latency-only matrix, %d agents on loopback, exit %d" % (n, r.returncode))
print("%-28s %8d of %d" % ("cells with an RTT", ok, len(cells)))
if p50:
    print("%-28s %8.0f us" % ("median RTT p50", p50[len(p50) // 2]))
print("%-28s %8d" % ("findings", len(d["findings"])))
for f in d["findings"]:
    print("  %s %s: %s" % (f["severity"], f["kind"], f["summary"][:150]))
print("%-28s %8.1f s   (target < 60 s, ratio %.2f)" % ("wall time", wall, wall / 60))
print("%-28s %8.1f MB  (target < 200 MB, ratio %.2f)" % ("coordinator peak RSS", rss, rss / 200))
if r.returncode not in (0, 1):
    sys.stderr.write(r.stderr.decode()[-2000:])
PY
