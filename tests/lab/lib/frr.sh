# lab frr: one FRR instance per router namespace, started with FRR's
# pathspace option (-N), queried with 'vtysh -N'.
#
# Each daemon runs in a private mount namespace where /var/run/frr is the
# lab's own directory ($ST/frr/NS/run), so the files FRR writes outside its
# pathspace (ospfd-gr.json) are per instance too. /var/run/frr/NS in the
# root view is a symlink to the instance's pathspace, for vtysh.

FRR_BIN=${FRR_BIN:-/usr/lib/frr}

frr_dir() { echo "$ST/frr/$(ns "$1")"; }

# frr_write NODE DAEMON: config text on stdin.
frr_write() {
	local d; d=$(frr_dir "$1")
	mkdir -p "$d/run/$(ns "$1")"
	cat > "$d/$2.conf"
	chown -R frr:frr "$d"
}

# frr_start NODE DAEMON...
frr_start() {
	local node=$1 n d daemon; shift
	n=$(ns "$node"); d=$(frr_dir "$node")
	[ -e "/var/run/frr/$n" ] || ln -s "$d/run/$n" "/var/run/frr/$n"
	for daemon in "$@"; do
		ip netns exec "$n" unshare --uts --mount --propagation private \
			sh -c "hostname $node && mount --bind $d/run /var/run/frr &&
			exec $FRR_BIN/$daemon -d -N $n -F datacenter -A 127.0.0.1 \
			-f $d/$daemon.conf -i /var/run/frr/$n/$daemon.pid" \
			>>"$d/$daemon.log" 2>&1 || die "$daemon did not start in $n: $(tail -3 "$d/$daemon.log")"
		# zebra first: the protocol daemons connect to it.
		[ "$daemon" = zebra ] && wait_file "$d/run/$n/zserv.api" 10
	done
	return 0
}

wait_file() { # PATH SECONDS
	local end=$(( $(date +%s) + $2 ))
	while [ ! -e "$1" ]; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.1
	done
}

vty() { # NODE COMMAND (JSON output on stdout)
	timeout 10 vtysh -N "$(ns "$1")" -c "$2" 2>/dev/null
}

frr_zebra_conf() { # NODE [LOOPBACK]: with LOOPBACK and --icmp loopback,
	# every BGP route's source is the loopback (what the router answers
	# a traced probe from)
	{
		printf 'frr defaults datacenter\nhostname %s\nlog file %s/zebra.log\n' \
			"$1" "$(frr_dir "$1")"
		if [ -n "${2:-}" ] && [ "${ICMP_MODE:-ingress}" = loopback ]; then
			printf 'route-map CF_LOSRC permit 10\n set src %s\n' "$2"
			printf 'ip protocol bgp route-map CF_LOSRC\n'
		fi
	} | frr_write "$1" zebra
}

# --- leaf-spine eBGP ------------------------------------------------------

# frr_bgp_conf NODE ASN ROUTER_ID "NEIGHBOR..." "NETWORK..."
frr_bgp_conf() {
	local node=$1 asn=$2 rid=$3 nbrs=$4 nets=$5 x
	{
		echo "frr defaults datacenter"
		echo "hostname $node"
		echo "log file $(frr_dir "$node")/bgpd.log"
		echo "router bgp $asn"
		echo " bgp router-id $rid"
		echo " no bgp ebgp-requires-policy"
		echo " bgp bestpath as-path multipath-relax"
		echo " timers bgp 1 3"
		echo " neighbor FABRIC peer-group"
		echo " neighbor FABRIC remote-as external"
		echo " neighbor FABRIC timers connect 2"
		echo " neighbor FABRIC advertisement-interval 0"
		for x in $nbrs; do echo " neighbor $x peer-group FABRIC"; done
		echo " address-family ipv4 unicast"
		for x in $nets; do echo "  network $x"; done
		echo "  maximum-paths 16"
		echo " exit-address-family"
	} | frr_write "$node" bgpd
}

# bgp_established NODE: every configured peer is Established.
bgp_established() {
	vty "$1" "show bgp summary json" |
		jq -e '.ipv4Unicast.peers | length > 0 and
			(to_entries | all(.value.state == "Established"))' >/dev/null
}

# route_paths NODE PREFIX: number of next hops FRR installed.
route_paths() {
	vty "$1" "show ip route $2 json" |
		jq -r --arg p "$2" '[.[$p][]? | select(.selected == true) |
			.nexthops[] | select(.active == true)] | length' 2>/dev/null
}

# --- OSPF on the hosts (ospf-dual) -----------------------------------------

# frr_ospf_conf NODE ROUTER_ID LOOPBACK "IFACE..." "NETWORK..."
frr_ospf_conf() {
	local node=$1 rid=$2 lo=$3 ifs=$4 nets=$5 x
	{
		echo "frr defaults datacenter"
		echo "hostname $node"
		echo "log file $(frr_dir "$node")/ospfd.log"
		for x in $ifs; do
			echo "interface $x"
			echo " ip ospf network broadcast"
			echo " ip ospf hello-interval 1"
			echo " ip ospf dead-interval 4"
			echo " ip ospf retransmit-interval 1"
		done
		echo "router ospf"
		echo " ospf router-id $rid"
		echo " timers throttle spf 0 50 1000"
		echo " timers throttle lsa all 0"
		echo " maximum-paths 16"
		echo " passive-interface lo"
		for x in $nets; do echo " network $x area 0"; done
		echo " network $lo/32 area 0"
	} | frr_write "$node" ospfd
	# Routes learnt by OSPF use the loopback as source, as Ceph binds its
	# cluster address there.
	{
		echo "frr defaults datacenter"
		echo "hostname $node"
		echo "log file $(frr_dir "$node")/zebra.log"
		echo "route-map CLUSTER-SRC permit 10"
		echo " set src $lo"
		echo "ip protocol ospf route-map CLUSTER-SRC"
	} | frr_write "$node" zebra
}

ospf_no_stuck() { # NODE: no neighbour stuck in ExStart/Exchange/Loading/Init
	vty "$1" "show ip ospf neighbor json" |
		jq -e '[.neighbors[][]? | .nbrState // .state] |
			length > 0 and all(test("Full|2-Way|TwoWay"))' >/dev/null
}

# frr_pids: every FRR pid file of this lab.
frr_pids() { ls "$ST"/frr/*/run/*/*.pid 2>/dev/null; }
