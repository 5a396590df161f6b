#!/usr/bin/env bash
# ceph-lab.sh: a real Ceph cluster (Debian's packages) on the lab's flat
# fabric: a mon and a mgr in their own host namespace (h1, also where
# clients and the ceph CLI run), one OSD per other host (h2..) on a sparse
# BlueStore file, cephx on, a size-3/min_size-2 pool, the cluster network
# set in the mon's config database, agents on every host, and a second
# cluster network (198.20.0.0/24, 'clu2' on every host, unused by Ceph)
# for the planner's cutover.
#
#   ceph-lab.sh up P [--osds N]     bring it up (N OSD hosts, default 3);
#                                   waits for all PGs active+clean
#   ceph-lab.sh down P              stop every daemon, remove everything
#   ceph-lab.sh ceph P ARGS...      the ceph CLI against it (from h1)
#   ceph-lab.sh restart-osd P ID    stop osd.ID (TERM, KILL after 30 s) and
#                                   start it again on its host; logged in
#                                   ceph/restarts.log (the planner's restart
#                                   command in the lab, where no systemd is)
#   ceph-lab.sh status P
#
# State: /run/cephfab-lab/P (the network lab's) plus ceph/ in it for
# configuration, keyrings, mon and mgr data; OSD block files under
# /var/tmp/cephfab-ceph-P (on disk, not in RAM).
set -u
LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAB=$LAB_DIR/lab.sh
RUN=/run/cephfab-lab

die() { echo "ceph-lab: $*" >&2; exit 1; }
say() { [ -n "${LAB_QUIET:-}" ] || echo "ceph-lab: $*" >&2; }

usage() { sed -n '10,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

paths() { # P
	P=$1
	ST=$RUN/$P
	C=$ST/ceph
	D=/var/tmp/cephfab-ceph-$P
	CONF=$C/ceph.conf
}

# cx NODE ARGS...: the ceph CLI from a host's namespace.
cx() {
	local n=$1; shift
	ip netns exec "$P-$n" timeout 30 ceph -c "$CONF" -n client.admin "$@"
}

# daemon NODE NAME CMD...: a Ceph daemon in the host's namespace, with the
# host's name (so 'osd metadata' names the lab host), pid recorded.
daemon() {
	local n=$1 name=$2; shift 2
	ip netns exec "$P-$n" unshare --uts sh -c "hostname $n; exec \"\$@\"" \
		sh "$@" > "$C/log/$name.out" 2>&1 < /dev/null &
	echo $! > "$C/$name.pid"
}

wait_for() { # SECONDS WHAT CMD...
	local end=$(( $(date +%s) + $1 )) what=$2; shift 2
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

pgs_clean() {
	cx h1 pg stat -f json | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d.get("pg_summary", d)
n = s.get("num_pgs", 0)
clean = sum(x["num"] for x in s.get("num_pg_by_state", []) if x["name"] == "active+clean")
sys.exit(0 if n > 0 and clean == n else 1)'
}

cmd_up() {
	local osds=3 fsid i h uuid secret t0
	[ $# -ge 1 ] || usage
	paths "$1"; shift
	while [ $# -gt 0 ]; do
		case $1 in
		--osds) osds=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	[ "$(id -u)" = 0 ] || die "needs root (namespaces, daemons)"
	command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null &&
		command -v ceph-mgr >/dev/null || die "no Ceph (apt-get install ceph-mon ceph-osd ceph-mgr ceph-common)"
	t0=$(date +%s)
	printf 'design = flat\nhosts = %d\nhost_mbit = 0\nmtu = 9000\ncluster2 = 1\n' \
		$((osds + 1)) > "/tmp/$P-ceph.topo"
	LAB_QUIET=1 "$LAB" up "/tmp/$P-ceph.topo" --prefix "$P" --agents >/dev/null ||
		die "network lab failed"
	rm -f "/tmp/$P-ceph.topo"
	mkdir -p "$C/log" "$C/run" "$D"
	fsid=$(cat /proc/sys/kernel/random/uuid)
	local mon_ip pubnet clunet
	mon_ip=$(awk '$1 == "h1" {print $2}' "$ST/hosts")
	pubnet=$(sed 's/ /\n/g' "$ST/nets" | sed -n 's/^public_network=//p')
	clunet=$(sed 's/ /\n/g' "$ST/nets" | sed -n 's/^cluster_network=//p')
	cat > "$CONF" <<EOF
[global]
fsid = $fsid
mon_host = [v2:$mon_ip:3300,v1:$mon_ip:6789]
public_network = $pubnet
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
osd_pool_default_size = 3
osd_pool_default_min_size = 2
osd_pool_default_pg_num = 32
mon_allow_pool_delete = true
mon_max_pg_per_osd = 500
log_file = $C/log/\$name.log
run_dir = $C/run
admin_socket = $C/run/\$name.asok
osd_recovery_sleep_hdd = 0
# Failure detection in 10 s, not 20: the planner's settle gate is twice
# the grace, and the lab restarts every OSD several times.
osd_heartbeat_grace = 10
osd_heartbeat_interval = 3
[mon]
mon_data = $C/mon/ceph-\$id
# The lab's mon shares the host's disk: its free space (31 % on one test
# machine, under the 30 % default) is not the cluster's health, which the
# planner's gates and the tests judge.
mon_data_avail_warn = 5
[mgr]
mgr_data = $C/mgr/ceph-\$id
[osd]
osd_data = $D/osd/ceph-\$id
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = 2147483648
osd_memory_target = 1073741824
[client.admin]
keyring = $C/admin.keyring
[client]
# One socket per client process: the CLI and a rados client at once.
admin_socket = $C/run/\$name.\$pid.asok
objecter_timeout = 2
objecter_tick_interval = 1
EOF
	ceph-authtool --create-keyring "$C/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
	ceph-authtool --create-keyring "$C/admin.keyring" --gen-key -n client.admin \
		--cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
	ceph-authtool "$C/mon.keyring" --import-keyring "$C/admin.keyring" >/dev/null
	monmaptool --create --addv h1 "[v2:$mon_ip:3300,v1:$mon_ip:6789]" --fsid "$fsid" "$C/monmap" >/dev/null ||
		die "monmaptool"
	mkdir -p "$C/mon/ceph-h1"
	ip netns exec "$P-h1" ceph-mon --mkfs -i h1 --monmap "$C/monmap" --keyring "$C/mon.keyring" -c "$CONF" ||
		die "ceph-mon --mkfs"
	daemon h1 mon.h1 ceph-mon -f -i h1 -c "$CONF"
	wait_for 30 "mon" cx h1 mon stat || die "the mon did not answer: $(tail -3 "$C/log/mon.h1.out")"
	# The cluster network in the mon's database, where the planner
	# changes it.
	cx h1 config set global cluster_network "$clunet" || die "config set cluster_network"
	# Expected in a fresh lab, not a problem: clients are all new.
	cx h1 config set mon auth_allow_insecure_global_id_reclaim false
	mkdir -p "$C/mgr/ceph-h1"
	cx h1 auth get-or-create mgr.h1 mon 'allow profile mgr' osd 'allow *' mds 'allow *' \
		-o "$C/mgr/ceph-h1/keyring" || die "mgr key"
	daemon h1 mgr.h1 ceph-mgr -f -i h1 -c "$CONF"
	i=0
	# h1 holds the mon and the mgr; every other host one OSD.
	for h in $(awk '$1 != "h1" {print $1}' "$ST/hosts"); do
		uuid=$(cat /proc/sys/kernel/random/uuid)
		secret=$(ceph-authtool --gen-print-key)
		echo "{\"cephx_secret\": \"$secret\"}" | cx h1 osd new "$uuid" "$i" -i - >/dev/null ||
			die "osd new $i"
		mkdir -p "$D/osd/ceph-$i"
		printf '[osd.%d]\n\tkey = %s\n' "$i" "$secret" > "$D/osd/ceph-$i/keyring"
		ip netns exec "$P-$h" ceph-osd -i "$i" --mkfs --osd-uuid "$uuid" -c "$CONF" > "$C/log/mkfs.$i.out" 2>&1 ||
			die "ceph-osd --mkfs $i: $(tail -2 "$C/log/mkfs.$i.out")"
		cx h1 osd crush add-bucket "$h" host >/dev/null 2>&1
		cx h1 osd crush move "$h" root=default >/dev/null 2>&1
		daemon "$h" "osd.$i" ceph-osd -f -i "$i" -c "$CONF"
		echo "$h" > "$C/osd.$i.host"
		i=$((i + 1))
	done
	wait_for 90 "osds up" sh -c "$(declare -f cx); P=$P C=$C CONF=$CONF; cx h1 osd stat -f json | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d[\"num_up_osds\"] == $i and d[\"num_in_osds\"] == $i else 1)'" ||
		die "OSDs not up: $(cx h1 osd stat 2>&1)"
	cx h1 osd pool create rbd 32 32 replicated >/dev/null 2>&1 || die "pool create"
	cx h1 osd pool set rbd size 3 >/dev/null 2>&1
	cx h1 osd pool set rbd min_size 2 >/dev/null 2>&1
	cx h1 osd pool application enable rbd rbd >/dev/null 2>&1
	# Health can be OK while PGs are still unknown: gate on PG states.
	wait_for 120 "PGs active+clean" pgs_clean || die "PGs not active+clean: $(cx h1 pg stat 2>&1)"
	echo "up=$(( $(date +%s) - t0 ))" > "$C/params"
	say "ceph lab '$P' up in $(( $(date +%s) - t0 )) s: $(cx h1 health 2>&1)"
	echo "$P"
}

cmd_down() {
	local p=$1 f pid
	paths "$p"
	if [ -d "$C" ]; then
		for f in "$C"/*.pid; do
			[ -e "$f" ] || continue
			pid=$(cat "$f")
			# Ours: the process we started (sh exec'ed into the daemon).
			grep -q "ceph-\(mon\|mgr\|osd\)" "/proc/$pid/cmdline" 2>/dev/null &&
				kill "$pid" 2>/dev/null
		done
		for f in "$C"/*.pid; do
			[ -e "$f" ] || continue
			pid=$(cat "$f")
			for _ in $(seq 1 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
			grep -q "ceph-\(mon\|mgr\|osd\)" "/proc/$pid/cmdline" 2>/dev/null &&
				kill -9 "$pid" 2>/dev/null
		done
	fi
	rm -rf "$D"
	LAB_QUIET=1 "$LAB" down "$p" >/dev/null 2>&1
	say "ceph lab '$p' down"
}

cmd_restart_osd() { # P ID
	local id=$2 pid h
	paths "$1"
	[[ "$id" =~ ^[0-9]+$ ]] && [ -f "$C/osd.$id.pid" ] || die "no osd.$id in lab '$1'"
	h=$(cat "$C/osd.$id.host")
	pid=$(cat "$C/osd.$id.pid")
	if grep -q "ceph-osd" "/proc/$pid/cmdline" 2>/dev/null; then
		kill "$pid"
		for _ in $(seq 1 300); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
		grep -q "ceph-osd" "/proc/$pid/cmdline" 2>/dev/null && kill -9 "$pid"
	fi
	echo "$(date +%s.%N) osd.$id" >> "$C/restarts.log"
	daemon "$h" "osd.$id" ceph-osd -f -i "$id" -c "$CONF"
}

case "${1:-}" in
up) shift; cmd_up "$@" ;;
restart-osd) [ $# -eq 3 ] || usage; cmd_restart_osd "$2" "$3" ;;
down) [ $# -eq 2 ] || usage; cmd_down "$2" ;;
ceph) [ $# -ge 2 ] || usage; paths "$2"; shift 2; cx h1 "$@" ;;
status) [ $# -eq 2 ] || usage; paths "$2"; cx h1 -s ;;
*) usage ;;
esac
