# lab ovs: one Open vSwitch (ovsdb-server + ovs-vswitchd) per namespace,
# userspace datapath only (bridges with datapath_type=netdev): this
# kernel has no openvswitch module, and no bonding driver, so LACP bonds
# in the lab are OVS bonds. Every instance keeps its database, sockets,
# pid files and logs in $ST/ovs-NODE (OVS_RUNDIR, OVS_LOGDIR, OVS_DBDIR),
# never in /run/openvswitch, so a lab never touches a host's own OVS.

ovs_dir() { echo "$ST/ovs-$1"; }

# ovs_start NODE: the database and the switch daemon in NODE's namespace.
ovs_start() {
	local d n; d=$(ovs_dir "$1"); n=$(ns "$1")
	command -v ovs-vswitchd >/dev/null || die "no Open vSwitch (apt install openvswitch-switch; scripts/deps.sh install)"
	mkdir -p "$d"
	ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema ||
		die "ovsdb-tool create in $d"
	OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d ip netns exec "$n" \
		ovsdb-server "$d/conf.db" --remote="punix:$d/db.sock" \
		--pidfile --detach --no-chdir --log-file >/dev/null 2>&1 ||
		die "ovsdb-server did not start in $n: $(tail -2 "$d/ovsdb-server.log" 2>/dev/null)"
	ovs_vsctl "$1" --no-wait init || die "ovs-vsctl init in $n"
	OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d ip netns exec "$n" \
		ovs-vswitchd "unix:$d/db.sock" --pidfile --detach --no-chdir \
		--log-file >/dev/null 2>&1 ||
		die "ovs-vswitchd did not start in $n: $(tail -2 "$d/ovs-vswitchd.log" 2>/dev/null)"
}

ovs_vsctl() { # NODE ARGS...
	local d node=$1; shift; d=$(ovs_dir "$node")
	ip netns exec "$(ns "$node")" ovs-vsctl --db="unix:$d/db.sock" --timeout=10 "$@"
}

# ovs_appctl NODE ARGS...: the switch daemon's control socket (a path, so
# no namespace is needed to reach it).
ovs_appctl() {
	local d node=$1; shift; d=$(ovs_dir "$node")
	ovs-appctl -t "$d/ovs-vswitchd.$(cat "$d/ovs-vswitchd.pid" 2>/dev/null).ctl" \
		--timeout=5 "$@"
}

# ovs_bond NODE BRIDGE BOND MEMBER...: an LACP bond (active, fast timer:
# a partner that stops answering is noticed in 3 s, not 90), balance-tcp
# (the L3+L4 hash, as xmit_hash_policy layer3+4 on a Linux bond). OVS
# puts a new flow's hash bucket on the active member and moves buckets
# to the others at each rebalance (10 s by default): every second here,
# so that a test of a few seconds sees its streams spread.
ovs_bond() {
	local node=$1 br=$2 bond=$3; shift 3
	ovs_vsctl "$node" add-bond "$br" "$bond" "$@" lacp=active \
		bond_mode=balance-tcp other_config:lacp-time=fast \
		other_config:bond-rebalance-interval=1000 ||
		die "bond $bond on $node"
}

# ovs_negotiated NODE BOND: LACP negotiated and every member enabled.
ovs_negotiated() {
	local out; out=$(ovs_appctl "$1" bond/show "$2" 2>/dev/null) || return 1
	grep -q '^lacp_status: negotiated' <<< "$out" &&
		! grep -Eq '^(member|slave) .*: disabled' <<< "$out"
}

# ovs_pids: every OVS pid file of this lab.
ovs_pids() { ls "$ST"/ovs-*/*.pid 2>/dev/null; }
