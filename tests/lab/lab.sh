#!/usr/bin/env bash
# lab.sh: reproducible multi-host Ceph fabrics in network namespaces, with
# real FRR routers and fault injection. See docs/lab.md.
#
#   lab.sh up TOPOLOGY [--prefix P] [--fault SPEC]... [--agents]
#                      [--hash-policy 1|3] [--icmp ingress|egress|loopback]
#                      [--icmp-ratelimit MS]
#   lab.sh down P
#   lab.sh exec P NODE CMD...
#   lab.sh status P [--json]
#   lab.sh fault P add|del SPEC
#   lab.sh list
#
# TOPOLOGY is a name under configs/lab/ (flat, leafspine, ospf-dual, ...)
# or a path to a .topo file. Everything made carries the prefix P.
set -u
LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$LAB_DIR/../.." && pwd)
. "$LAB_DIR/lib/common.sh"
. "$LAB_DIR/lib/frr.sh"
. "$LAB_DIR/lib/ovs.sh"
. "$LAB_DIR/lib/designs.sh"
. "$LAB_DIR/lib/faults.sh"

AGENT_BIN=${CEPHFAB_AGENT:-$TOP/build/cephfab-agent}
CEPHFAB_BIN=${CEPHFAB:-$TOP/build/cephfab}

usage() { sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

need_root() { [ "$(id -u)" = 0 ] || die "needs root (network namespaces)"; }

load_state() { # P
	P=$1
	valid_prefix "$P" || die "prefix '$P': 1-10 lower-case letters and digits, starting with a letter"
	ST=$LAB_RUN/$P
	[ -d "$ST" ] || die "no lab with prefix '$P' (see: lab.sh list)"
	MTU=$(sed -n 's/^mtu=//p' "$ST/params")
	HASH_POLICY=$(sed -n 's/^hash_policy=//p' "$ST/params")
	DESIGN=$(sed -n 's/^design=//p' "$ST/params")
	ICMP_MODE=$(sed -n 's/^icmp=//p' "$ST/params")
	ICMP_RATELIMIT=$(sed -n 's/^icmp_ratelimit=//p' "$ST/params")
	: "${ICMP_MODE:=ingress}" "${ICMP_RATELIMIT:=0}"
}

# --- agents -----------------------------------------------------------------

start_agents() {
	local h pid
	[ -x "$AGENT_BIN" ] || die "no agent binary at $AGENT_BIN (run make)"
	"$CEPHFAB_BIN" keygen -o "$ST/key" || die "keygen failed"
	# The agents may send test traffic within the lab's Ceph networks.
	{
		echo "# agent.conf for lab '$P', written by lab.sh"
		echo "listen = 0.0.0.0:7470"
		echo "key = $ST/key"
		# Prometheus's endpoint (monitoring): the lab's own namespaces.
		echo "metrics_listen = :7471"
		sed 's/ /\n/g' "$ST/nets" | grep _network= | sed 's/=/ = /'
		# A second cluster network (the planner's cutover target):
		# the agents may test it too, the two Ceph networks still.
		[ -e "$ST/cluster2" ] && echo "allow_targets = $(sed 's/ /\n/g' "$ST/nets" |
			sed -n 's/^\(public\|cluster\)_network=//p' | tr '\n' ,)$(cat "$ST/cluster2")"
	} > "$ST/agent.conf"
	for h in $(awk '{print $1}' "$ST/hosts"); do
		# A host that runs FRR: its agent asks that instance (facts).
		cp "$ST/agent.conf" "$ST/agent-$h.conf"
		# Each host's own state_dir (the monitor's kept pinglist).
		mkdir -p "$ST/state-$h"
		echo "state_dir = $ST/state-$h" >> "$ST/agent-$h.conf"
		[ -e "/var/run/frr/$(ns "$h")" ] &&
			echo "frr_pathspace = $(ns "$h")" >> "$ST/agent-$h.conf"
		# A host with its own Open vSwitch: its agent asks that one.
		[ -d "$(ovs_dir "$h")" ] &&
			echo "ovs_rundir = $(ovs_dir "$h")" >> "$ST/agent-$h.conf"
		ip netns exec "$(ns "$h")" setsid "$AGENT_BIN" -d \
			-c "$ST/agent-$h.conf" \
			>"$ST/agent-$h.log" 2>&1 < /dev/null &
		pid=$!
		echo "$pid" > "$ST/agent-$h.pid"
	done
	for h in $(awk '{print $1}' "$ST/hosts"); do
		wait_log "$ST/agent-$h.log" "listening on" 10 ||
			die "agent on $h did not start: $(tail -2 "$ST/agent-$h.log")"
	done
	write_inventory
}

wait_log() { # FILE PATTERN SECONDS
	local end=$(( $(date +%s) + $3 ))
	until grep -q "$2" "$1" 2>/dev/null; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.1
	done
}

write_inventory() {
	local h pub clu mgmt rack
	{
		echo "# cephfab inventory for lab '$P' ($DESIGN), written by lab.sh"
		echo "[global]"
		echo "key = key"
		sed 's/ /\n/g' "$ST/nets" | grep _network= | sed 's/=/ = /'
		while read -r h pub clu mgmt rack _; do
			echo "[host $h]"
			echo "agent = $mgmt"
			echo "public = $pub"
			echo "cluster = $clu"
			echo "rack = $rack"
		done < "$ST/hosts"
	} > "$ST/lab.inv"
}

# pid_is PID PATTERN: the process exists and its command line matches, so
# that a recycled PID is never killed.
pid_is() {
	[ -r "/proc/$1/cmdline" ] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -q -- "$2"
}

kill_pidfile() { # FILE PATTERN
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	[[ "$pid" =~ ^[0-9]+$ ]] || return 0
	pid_is "$pid" "$2" && kill "$pid" 2>/dev/null
	echo "$pid"
}

# --- commands ---------------------------------------------------------------

cmd_up() {
	local topo="" agents=0 faults=() t0 f
	need_root
	P=""
	HASH_POLICY=3
	ICMP_MODE=ingress
	ICMP_RATELIMIT=0
	while [ $# -gt 0 ]; do
		case $1 in
		--prefix) P=${2:-}; shift 2 ;;
		--fault) faults+=("${2:-}"); shift 2 ;;
		--agents) agents=1; shift ;;
		--hash-policy) HASH_POLICY=${2:-}; shift 2 ;;
		--icmp) ICMP_MODE=${2:-}; shift 2 ;;
		--icmp-ratelimit) ICMP_RATELIMIT=${2:-}; shift 2 ;;
		-*) die "up: unknown option '$1'" ;;
		*) [ -z "$topo" ] || die "up: one topology"; topo=$1; shift ;;
		esac
	done
	[ -n "$topo" ] || usage
	case $HASH_POLICY in 1|3) ;; *) die "--hash-policy is 1 or 3" ;; esac
	case $ICMP_MODE in ingress|egress|loopback) ;;
	*) die "--icmp is ingress, egress or loopback" ;; esac
	[[ "$ICMP_RATELIMIT" =~ ^[0-9]{1,6}$ ]] || die "--icmp-ratelimit: milliseconds, 0 for none"
	if [ -f "$topo" ]; then TOPO=$topo; else TOPO=$TOP/configs/lab/$topo.topo; fi
	[ -f "$TOPO" ] || die "no topology '$topo' (have: $(cd "$TOP/configs/lab" && ls *.topo | sed 's/\.topo//' | xargs))"
	[ -n "$P" ] || P="lab$(printf '%05x' $(( (RANDOM << 5 ^ $$) % 1048576 )))"
	valid_prefix "$P" || die "prefix '$P': 1-10 lower-case letters and digits, starting with a letter"
	ST=$LAB_RUN/$P
	[ -e "$ST" ] && die "a lab with prefix '$P' exists (lab.sh down $P)"
	ip netns list | grep -q "^$P-" && die "namespaces with prefix '$P-' exist"
	DESIGN=$(topo_get "$TOPO" design "")
	MTU=$(topo_get "$TOPO" mtu 9000)
	HOST_MBIT=$(topo_get "$TOPO" host_mbit 1000)
	UPLINK_MBIT=$(topo_get "$TOPO" uplink_mbit 2000)
	[ "$(topo_get "$TOPO" host_link veth)" = bond ] && BOND=1 || BOND=0
	mkdir -p "$ST" && chmod 755 "$LAB_RUN" "$ST"
	: > "$ST/nodes"; : > "$ST/links"; : > "$ST/hosts"; : > "$ST/faults"
	if [ "$ICMP_MODE" = loopback ] && { [ "$DESIGN" != leafspine ] ||
		[ "$(topo_get "$TOPO" dualhomed 0)" != 0 ]; }; then
		die "--icmp loopback: a single-homed leafspine topology only"
	fi
	printf 'design=%s\nmtu=%s\nhash_policy=%s\ntopology=%s\nicmp=%s\nicmp_ratelimit=%s\n' \
		"$DESIGN" "$MTU" "$HASH_POLICY" "$TOPO" "$ICMP_MODE" "$ICMP_RATELIMIT" > "$ST/params"
	# A failed 'up' leaves nothing behind.
	trap 'warn "up failed: tearing down $P"; LAB_QUIET=1 cmd_down "$P" >/dev/null 2>&1' EXIT
	t0=$(date +%s%N)
	[ $BOND = 1 ] && check_bond
	say "building $DESIGN lab '$P' from $TOPO"
	case $DESIGN in
	flat) build_flat ;;
	leafspine) build_leafspine
		if grep -q dualhomed=1 "$ST/nets"; then
			say "waiting for BGP and two paths between every pair of hosts"
			converge_dual || die "dual-homed leafspine did not converge in ${CONVERGE_SECS:-60}s"
		else
			say "waiting for BGP and ECMP on every leaf"
			converge_leafspine || die "leafspine did not converge in ${CONVERGE_SECS:-60}s"
		fi ;;
	ospf-dual) build_ospf_dual
		say "waiting for OSPF and two equal-cost routes on every host"
		converge_ospf || die "ospf-dual did not converge in ${CONVERGE_SECS:-60}s" ;;
	stacked-lacp) build_stacked_lacp
		say "waiting for LACP on every bond"
		converge_lacp || die "stacked-lacp: LACP not negotiated on every bond in ${CONVERGE_SECS:-60}s" ;;
	*) die "$TOPO: design '$DESIGN' is not flat, leafspine, ospf-dual or stacked-lacp" ;;
	esac
	echo "converge_ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$ST/params"
	for f in "${faults[@]}"; do fault add "$f"; done
	[ $agents = 1 ] && start_agents
	[ $agents = 1 ] || write_inventory
	trap - EXIT
	say "lab '$P' up in $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(wc -l < "$ST/hosts") hosts, inventory $ST/lab.inv"
	echo "$P"
}

cmd_down() {
	local p=$1 f pids=() pid n end
	need_root
	valid_prefix "$p" || die "prefix '$p': 1-10 lower-case letters and digits, starting with a letter"
	P=$p; ST=$LAB_RUN/$P
	if [ -d "$ST" ]; then
		for f in "$ST"/agent-*.pid; do
			[ -e "$f" ] || continue
			pid=$(kill_pidfile "$f" cephfab-agent) && [ -n "$pid" ] && pids+=("$pid")
		done
		for f in $(frr_pids); do
			pid=$(kill_pidfile "$f" "/usr/lib/frr/.* -N $P-") && [ -n "$pid" ] && pids+=("$pid")
		done
		# OVS daemons: their command lines name this lab's directory.
		for f in $(ovs_pids); do
			pid=$(kill_pidfile "$f" "$ST/ovs-") && [ -n "$pid" ] && pids+=("$pid")
		done
		# Bounded wait, then SIGKILL what is still ours.
		end=$(( $(date +%s) + 5 ))
		for pid in "${pids[@]}"; do
			while [ -d "/proc/$pid" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.05; done
			[ -d "/proc/$pid" ] && pid_is "$pid" "cephfab-agent\|/usr/lib/frr/\|$ST/ovs-" && kill -9 "$pid" 2>/dev/null
		done
	fi
	# One namespace at a time: the recorded ones, then any stray with our
	# prefix (from an 'up' that died half-way).
	for n in $( { [ -f "$ST/nodes" ] && awk -v p="$P" '{print p "-" $1}' "$ST/nodes"
		ip netns list | awk '{print $1}' | grep "^$P-"; } | sort -u); do
		ip netns del "$n" 2>/dev/null
		[ -L "/var/run/frr/$n" ] && rm -f "/var/run/frr/$n"
	done
	rm -rf "$ST"
	say "lab '$P' down"
}

cmd_exec() {
	local node=$2
	load_state "$1"
	grep -q "^$node " "$ST/nodes" || die "no node '$node' in lab '$P'"
	shift 2
	[ $# -gt 0 ] || die "exec: no command"
	exec ip netns exec "$(ns "$node")" "$@"
}

cmd_status() {
	local json=0 name role h ok pid
	load_state "$1"
	[ "${2:-}" = --json ] && json=1
	if [ $json = 1 ]; then
		{
			echo "{\"prefix\":\"$P\",\"design\":\"$DESIGN\",\"mtu\":$MTU,\"hash_policy\":$HASH_POLICY,"
			echo "\"icmp\":\"$ICMP_MODE\",\"icmp_ratelimit_ms\":$ICMP_RATELIMIT,"
			echo "\"state_dir\":\"$ST\",\"inventory\":\"$ST/lab.inv\","
			echo "\"nodes\":["; awk '{printf "%s{\"name\":\"%s\",\"role\":\"%s\"}", (NR>1?",":""), $1, $2}' "$ST/nodes"; echo "],"
			echo "\"links\":["; awk '{printf "%s{\"name\":\"%s\",\"a\":\"%s\",\"a_if\":\"%s\",\"b\":\"%s\",\"b_if\":\"%s\",\"mbit\":%s}", (NR>1?",":""), $1,$2,$3,$4,$5,$6}' "$ST/links"; echo "],"
			echo "\"hosts\":["; awk '{printf "%s{\"name\":\"%s\",\"public\":\"%s\",\"cluster\":\"%s\",\"mgmt\":\"%s\",\"rack\":\"%s\"}", (NR>1?",":""), $1,$2,$3,$4,$5}' "$ST/hosts"; echo "],"
			echo "\"faults\":["; awk '{printf "%s\"%s\"", (NR>1?",":""), $0}' "$ST/faults"; echo "]}"
		} | jq .
		return
	fi
	echo "lab $P: $DESIGN, mtu $MTU, ECMP hash policy $HASH_POLICY, routers answer ICMP from the $ICMP_MODE address (rate limit ${ICMP_RATELIMIT} ms), state in $ST"
	echo "nodes:"
	while read -r name role; do
		ok=""
		if [ -f "$ST/agent-$name.pid" ]; then
			pid=$(cat "$ST/agent-$name.pid")
			if pid_is "$pid" cephfab-agent; then ok=" agent:$pid"; else ok=" agent:DEAD"; fi
		fi
		printf '  %-6s %-7s %s%s\n' "$name" "$role" "$(ns "$name")" "$ok"
	done < "$ST/nodes"
	echo "links:"
	awk '{r = ""; if ($6 > 0) r = "  " $6 " Mbit/s"; printf "  %-10s %s:%s <-> %s:%s%s\n", $1, $2, $3, $4, $5, r}' "$ST/links"
	echo "hosts (public cluster mgmt rack):"
	awk '{printf "  %-6s %-15s %-15s %-15s %s\n", $1, $2, $3, $4, $5}' "$ST/hosts"
	echo "faults:"
	[ -s "$ST/faults" ] && sed 's/^/  /' "$ST/faults" || echo "  none"
	echo "coordinator: lab.sh exec $P adm $CEPHFAB_BIN -i $ST/lab.inv hosts"
}

cmd_fault() {
	load_state "$1"
	case ${2:-} in
	add) fault add "${3:?fault SPEC}" ;;
	del) grep -qxF -- "${3:?fault SPEC}" "$ST/faults" || die "fault '$3' is not active in lab '$P'"
	     fault del "$3" ;;
	*) usage ;;
	esac
}

cmd_list() {
	local d
	for d in "$LAB_RUN"/*/; do
		[ -f "$d/params" ] || continue
		echo "$(basename "$d") $(sed -n 's/^design=//p' "$d/params")"
	done
}

case ${1:-} in
up) shift; cmd_up "$@" ;;
down) [ $# -eq 2 ] || usage; cmd_down "$2" ;;
exec) [ $# -ge 3 ] || usage; shift; cmd_exec "$@" ;;
status) [ $# -ge 2 ] || usage; shift; cmd_status "$@" ;;
fault) [ $# -ge 3 ] || usage; shift; cmd_fault "$@" ;;
list) cmd_list ;;
*) usage ;;
esac
