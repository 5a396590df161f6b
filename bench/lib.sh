# Shared setup of the benchmarks: two namespaces joined by one veth pair
# (PREFIX-a with .1, PREFIX-b with .2 of NET.0/24), a key and an
# agent.conf that allows that subnet, and a trap that kills what the
# benchmark started (PIDS) and removes the namespaces and the temp dir.
# Source it, then call bench_pair PREFIX NET.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
T=$(mktemp -d /tmp/cf-bench.XXXXXX)
PIDS=()
A=""; B=""
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -n "$A" ] && ip netns del "$A" 2>/dev/null
	[ -n "$B" ] && ip netns del "$B" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 2; }

# bench_pair PREFIX NET: the two namespaces, the veth pair, the key and
# agent.conf; exits 3 when the namespaces cannot be made.
bench_pair() {
	A="$1-a"; B="$1-b"
	ip netns add "$A" && ip netns add "$B" || exit 3
	ip link add va netns "$A" type veth peer name vb netns "$B"
	ip -n "$A" addr add "$2.1/24" dev va; ip -n "$B" addr add "$2.2/24" dev vb
	for n in "$A" "$B"; do ip -n "$n" link set lo up; done
	ip -n "$A" link set va up; ip -n "$B" link set vb up
	"$TOP/build/cephfab" keygen -o "$T/key" >/dev/null
	printf 'key = %s\nallow_targets = %s.0/24\n' "$T/key" "$2" > "$T/agent.conf"
}
