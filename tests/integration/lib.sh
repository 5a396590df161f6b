# Shared helpers for integration scenarios. Source it; every scenario gets a
# private temp dir, a per-run prefix, and a trap that kills exactly the
# processes it started (by PID) and removes what it made.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CEPHFAB=${CEPHFAB:-$TOP/build/cephfab}
AGENT=${AGENT:-$TOP/build/cephfab-agent}
# The labs start the same binaries (a sanitizer run builds its own).
export CEPHFAB CEPHFAB_AGENT=${CEPHFAB_AGENT:-$AGENT}
RUN_ID="cf$$$(printf '%04x' $((RANDOM % 65536)))"
T=$(mktemp -d "/tmp/${RUN_ID}.XXXXXX")
PIDS=()
CLEANUPS=()

cleanup() {
	local p c
	for c in "${CLEANUPS[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	# Never into a mount left under $T (a root file system being built
	# has the host's /proc, /sys and /dev/shm in it): detach them first,
	# and rm stays on $T's own file system whatever is left.
	findmnt -rno TARGET 2>/dev/null | grep "^$T/" | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf --one-file-system "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
note() { echo "  $*" >&2; }

# wait_until SECONDS CMD...: poll CMD every 0.1 s, bounded.
wait_until() {
	local secs=$1; shift
	local end=$(( $(date +%s%N) + secs * 1000000000 ))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# A random loopback /24 per run, so two runs never share addresses.
loopnet() { echo "127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1))"; }

keygen() { "$CEPHFAB" keygen -o "$1" || fail "keygen $1"; }

# start_agent NAME ADDR:PORT KEY [ARGS...]: start an agent in the
# foreground mode, logging to $T/NAME.log; sets AGENT_PID.
start_agent() {
	local name=$1 listen=$2 key=$3; shift 3
	"$AGENT" -d --listen "$listen" --key "$key" "$@" >"$T/$name.log" 2>&1 &
	AGENT_PID=$!
	PIDS+=("$AGENT_PID")
	wait_until 5 grep -q "listening on" "$T/$name.log" ||
		fail "agent $name did not start: $(cat "$T/$name.log")"
}

# loop_cluster COUNT NAMEFMT: COUNT agents on a fresh loopback /24 ($N),
# agent i at $N.1i:7470, one key in $T/key, and the inventory $T/inv with
# host i named by printf NAMEFMT i (h%d, osd-%d) on the public network.
loop_cluster() {
	local i
	N=$(loopnet)
	keygen "$T/key"
	printf '[global]\nkey = %s\n' "$T/key" > "$T/inv"
	for ((i = 1; i <= $1; i++)); do
		start_agent "a$i" "$N.1$i:7470" "$T/key"
		# shellcheck disable=SC2059 # the name's format is the caller's
		printf "[host $2]\nagent = %s.1%d\npublic = %s.1%d\n" "$i" "$N" "$i" "$N" "$i" >> "$T/inv"
	done
}

assert_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

# --- the lab ---------------------------------------------------------------
LAB=$TOP/tests/lab/lab.sh
need_lab() {
	[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
	command -v ip >/dev/null || skip "no iproute2"
}
# lab_up TOPOLOGY [ARGS...]: sets LP (the prefix), LST (its state dir) and
# registers its teardown.
lab_up() {
	local topo=$1; shift
	LP="t$(printf '%05x' $(( (RANDOM << 7 ^ $$ ^ ${#PIDS[@]}) % 1048576 )))${LABN:-}"
	LABN=$(( ${LABN:-0} + 1 ))
	CLEANUPS+=("$LAB down $LP")
	LAB_QUIET=1 "$LAB" up "$topo" --prefix "$LP" "$@" >/dev/null ||
		fail "lab up $topo failed"
	LST=/run/cephfab-lab/$LP
	INV=$LST/lab.inv
}
lx() { local node=$1; shift; ip netns exec "$LP-$node" "$@"; }
# cf ARGS: the coordinator in the lab's admin namespace, on its inventory.
cf() { ip netns exec "$LP-adm" "$CEPHFAB" -i "$INV" "$@"; }

# lab_gone P: nothing with prefix P is left: namespace, process, file.
lab_gone() {
	local p=$1
	ip netns list | grep -q "^$p-" && { echo "namespaces left: $(ip netns list | grep "^$p-")"; return 1; }
	[ -e "/run/cephfab-lab/$p" ] && { echo "state dir left"; return 1; }
	ls /var/run/frr 2>/dev/null | grep -q "^$p-" && { echo "frr run dirs left"; return 1; }
	pgrep -f -- "-N $p-" >/dev/null && { echo "FRR daemons left"; return 1; }
	pgrep -f -- "/run/cephfab-lab/$p/" >/dev/null && { echo "agents or OVS daemons left"; return 1; }
	return 0
}
