# lab designs: the three fabrics, built from a topology file's parameters.
#
# Address plan (RFC 2544 benchmarking space, used only inside the lab's own
# namespaces):
#   management   198.18.255.0/24   adm .1, host i .(10+i)   (never faulted)
#   public       198.18.0.0/17     flat/ospf-dual: 198.18.0.0/24;
#                                  leafspine: rack L = 198.18.L.0/24
#   cluster      198.19.0.0/17     flat: 198.19.0.0/24; leafspine: rack L =
#                                  198.19.L.0/24; ospf-dual: loopback /32s
#                                  198.19.0.(10+i)
#   ospf planes  198.19.100.0/24 (A), 198.19.101.0/24 (B)
#   p2p links    198.19.200.0/24 as /31s; router ids 198.19.250.x/.251.x

# The management network: a bridge in the switch namespace, the admin
# namespace (where the coordinator runs) and one port per host.
build_mgmt() {
	add_node sw switch
	add_bridge sw brmgmt
	add_node adm admin
	add_link adm-mgmt adm mgmt sw adm-mgmt brmgmt 0
	ip -n "$(ns adm)" addr add 198.18.255.1/24 dev mgmt
}

mgmt_host() { # NAME INDEX
	add_link "$1-mgmt" "$1" mgmt sw "$1-mgmt" brmgmt 0
	ip -n "$(ns "$1")" addr add "198.18.255.$((10 + $2))/24" dev mgmt
}

check_bond() {
	# A bond per network needs the bonding driver; probe for it in a
	# throwaway namespace of this run.
	local t; t=$(ns bondprobe)
	ip netns add "$t" || die "cannot create namespace $t"
	if ! ip -n "$t" link add b0 type bond mode 802.3ad 2>/dev/null; then
		ip netns del "$t"
		die "topology asks for host_link = bond, but this kernel has no bonding driver; stacked-LACP fabrics need a machine with it (see docs/lab.md)"
	fi
	ip netns del "$t"
}

# switched_hosts DEFAULT MAX: the topology's host count (2..MAX) into the
# caller's n, the management network and the switch's public bridge.
switched_hosts() {
	n=$(topo_get "$TOPO" hosts "$1")
	[ "$n" -ge 2 ] && [ "$n" -le "$2" ] || die "$TOPO: hosts must be 2..$2"
	build_mgmt
	add_bridge sw brpub
}

build_flat() {
	local n i h c2
	switched_hosts 4 200
	add_bridge sw brclu
	# A second cluster network (198.20.0.0/24): the planner's cutover.
	c2=$(topo_get "$TOPO" cluster2 0)
	[ "$c2" = 1 ] && add_bridge sw brclu2
	for i in $(seq 1 "$n"); do
		h=h$i
		add_node "$h" host
		mgmt_host "$h" "$i"
		add_link "$h-pub" "$h" pub sw "$h-pub" brpub "$HOST_MBIT"
		add_link "$h-clu" "$h" clu sw "$h-clu" brclu "$HOST_MBIT"
		ip -n "$(ns "$h")" addr add "198.18.0.$((10 + i))/24" dev pub
		ip -n "$(ns "$h")" addr add "198.19.0.$((10 + i))/24" dev clu
		if [ "$c2" = 1 ]; then
			add_link "$h-clu2" "$h" clu2 sw "$h-clu2" brclu2 "$HOST_MBIT"
			ip -n "$(ns "$h")" addr add "198.20.0.$((10 + i))/24" dev clu2
		fi
		host_rec "$h" "198.18.0.$((10 + i))" "198.19.0.$((10 + i))" \
			"198.18.255.$((10 + i))" rack1 pub clu
	done
	echo "public_network=198.18.0.0/24 cluster_network=198.19.0.0/24" > "$ST/nets"
	[ "$c2" = 1 ] && echo "198.20.0.0/24" > "$ST/cluster2"
	return 0
}

build_leafspine() {
	local S L H s l j i=0 k=0 h nets nbrs
	if [ "$(topo_get "$TOPO" dualhomed 0)" = 1 ]; then
		build_leafspine_dual
		return
	fi
	S=$(topo_get "$TOPO" spines 2)
	L=$(topo_get "$TOPO" leaves 2)
	H=$(topo_get "$TOPO" hosts_per_leaf 2)
	[ "$S" -ge 1 ] && [ "$S" -le 4 ] || die "$TOPO: spines must be 1..4"
	[ "$L" -ge 2 ] && [ "$L" -le 8 ] || die "$TOPO: leaves must be 2..8"
	[ "$H" -ge 1 ] && [ "$H" -le 16 ] || die "$TOPO: hosts_per_leaf must be 1..16"
	build_mgmt
	for s in $(seq 1 "$S"); do add_node "s$s" spine; done
	for l in $(seq 1 "$L"); do
		add_node "l$l" leaf
		add_bridge "l$l" brpub
		add_bridge "l$l" brclu
		ip -n "$(ns "l$l")" addr add "198.18.$l.1/24" dev brpub
		ip -n "$(ns "l$l")" addr add "198.19.$l.1/24" dev brclu
		ip -n "$(ns "l$l")" addr add "198.19.250.$l/32" dev lo
		for s in $(seq 1 "$S"); do
			add_link "l$l-s$s" "l$l" "s$s" "s$s" "l$l" "" "$UPLINK_MBIT"
			ip -n "$(ns "l$l")" addr add "198.19.200.$((2 * k + 1))/31" dev "s$s"
			ip -n "$(ns "s$s")" addr add "198.19.200.$((2 * k))/31" dev "l$l"
			k=$((k + 1))
		done
		for j in $(seq 1 "$H"); do
			i=$((i + 1)); h=h$i
			add_node "$h" host
			mgmt_host "$h" "$i"
			add_link "$h-pub" "$h" pub "l$l" "$h-pub" brpub "$HOST_MBIT"
			add_link "$h-clu" "$h" clu "l$l" "$h-clu" brclu "$HOST_MBIT"
			ip -n "$(ns "$h")" addr add "198.18.$l.$((10 + j))/24" dev pub
			ip -n "$(ns "$h")" addr add "198.19.$l.$((10 + j))/24" dev clu
			ip -n "$(ns "$h")" route add 198.18.0.0/17 via "198.18.$l.1" dev pub
			ip -n "$(ns "$h")" route add 198.19.0.0/17 via "198.19.$l.1" dev clu
			host_rec "$h" "198.18.$l.$((10 + j))" "198.19.$l.$((10 + j))" \
				"198.18.255.$((10 + i))" "rack$l" pub clu
		done
	done
	fabric_bgp "$S" "$L" 1
	echo "public_network=198.18.0.0/17 cluster_network=198.19.0.0/17" > "$ST/nets"
	echo "spines=$S leaves=$L hosts_per_leaf=$H" >> "$ST/nets"
}

# fabric_bgp S L RACKNETS: configure and start the leaves' and spines' BGP.
# Spines share AS 65000, leaf L is AS 65100+L; a leaf also peers with the
# addresses listed in $ST/lnbr-lL (dual-homed hosts) and, when RACKNETS is
# 1, announces its rack subnets.
fabric_bgp() {
	local S=$1 L=$2 racknets=$3 l s k=0 nbrs nets
	for l in $(seq 1 "$L"); do
		nbrs=""
		[ -f "$ST/lnbr-l$l" ] && nbrs=$(tr '\n' ' ' < "$ST/lnbr-l$l")
		for s in $(seq 1 "$S"); do
			nbrs="$nbrs 198.19.200.$((2 * (k + s - 1)))"
		done
		k=$((k + S))
		nets=""
		[ "$racknets" = 1 ] && nets="198.18.$l.0/24 198.19.$l.0/24"
		frr_zebra_conf "l$l" "198.19.250.$l"
		frr_bgp_conf "l$l" $((65100 + l)) "198.19.250.$l" "$nbrs" "$nets"
	done
	for s in $(seq 1 "$S"); do
		nbrs=""
		for l in $(seq 1 "$L"); do
			nbrs="$nbrs 198.19.200.$((2 * ((l - 1) * S + s - 1) + 1))"
		done
		ip -n "$(ns "s$s")" addr add "198.19.251.$s/32" dev lo
		frr_zebra_conf "s$s" "198.19.251.$s"
		frr_bgp_conf "s$s" 65000 "198.19.251.$s" "$nbrs" ""
	done
	for l in $(seq 1 "$L"); do frr_start "l$l" zebra bgpd; done
	for s in $(seq 1 "$S"); do frr_start "s$s" zebra bgpd; done
}

# converge_leafspine: bounded wait for every session Established and, on
# every leaf, one next hop per spine to every other rack's subnets.
converge_leafspine() {
	converge_wait leafspine_converged
}

leafspine_converged() {
	local S L l m
	S=$(sed -n 's/.*spines=\([0-9]*\).*/\1/p' "$ST/nets")
	L=$(sed -n 's/.*leaves=\([0-9]*\).*/\1/p' "$ST/nets")
	for l in $(seq 1 "$L"); do
		bgp_established "l$l" || return 1
		for m in $(seq 1 "$L"); do
			[ "$m" = "$l" ] && continue
			[ "$(route_paths "l$l" "198.18.$m.0/24")" = "$S" ] || return 1
			[ "$(route_paths "l$l" "198.19.$m.0/24")" = "$S" ] || return 1
		done
	done
	return 0
}

# converge_wait CHECK: run CHECK every 0.3 s until it succeeds (0) or
# CONVERGE_SECS (60) pass (1).
converge_wait() {
	local end=$(( $(date +%s) + ${CONVERGE_SECS:-60} ))
	until "$1"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.3
	done
}

build_ospf_dual() {
	local n i h lo
	switched_hosts 3 60
	add_bridge sw brpa
	add_bridge sw brpb
	for i in $(seq 1 "$n"); do
		h=h$i; lo="198.19.0.$((10 + i))"
		add_node "$h" router
		mgmt_host "$h" "$i"
		add_link "$h-pub" "$h" pub sw "$h-pub" brpub "$HOST_MBIT"
		add_link "$h-pa" "$h" pa sw "$h-pa" brpa "$HOST_MBIT"
		add_link "$h-pb" "$h" pb sw "$h-pb" brpb "$HOST_MBIT"
		ip -n "$(ns "$h")" addr add "198.18.0.$((10 + i))/24" dev pub
		ip -n "$(ns "$h")" addr add "198.19.100.$((10 + i))/24" dev pa
		ip -n "$(ns "$h")" addr add "198.19.101.$((10 + i))/24" dev pb
		ip -n "$(ns "$h")" addr add "$lo/32" dev lo
		frr_ospf_conf "$h" "$lo" "$lo" "pa pb" \
			"198.19.100.0/24 198.19.101.0/24"
		host_rec "$h" "198.18.0.$((10 + i))" "$lo" \
			"198.18.255.$((10 + i))" rack1 pub pa,pb
	done
	for i in $(seq 1 "$n"); do frr_start "h$i" zebra ospfd; done
	echo "public_network=198.18.0.0/24 cluster_network=198.19.0.0/24" > "$ST/nets"
	echo "hosts=$n" >> "$ST/nets"
}

# converge_ospf: every host has two equal-cost routes to every other
# host's cluster loopback, and no neighbour is stuck.
converge_ospf() {
	converge_wait ospf_converged
}

ospf_converged() {
	local n i j
	n=$(sed -n 's/^hosts=\([0-9]*\).*/\1/p' "$ST/nets")
	for i in $(seq 1 "$n"); do
		ospf_no_stuck "h$i" || return 1
		for j in $(seq 1 "$n"); do
			[ "$i" = "$j" ] && continue
			[ "$(route_paths "h$i" "198.19.0.$((10 + j))/32")" = 2 ] || return 1
		done
	done
	return 0
}

# build_leafspine_dual: hosts that run their own BGP. Leaves pair up into
# racks (l1+l2 = rack 1, ...); every host has a /31 link to both leaves of
# its rack, announces its public and cluster addresses as /32 loopbacks
# (AS 65300+i), and reaches every other host over both links (ECMP).
build_leafspine_dual() {
	local S L H s l j i=0 k=0 q=0 h nbrs r pa ca lnbr
	S=$(topo_get "$TOPO" spines 2)
	L=$(topo_get "$TOPO" leaves 2)
	H=$(topo_get "$TOPO" hosts_per_leaf 2)
	[ $((L % 2)) = 0 ] || die "$TOPO: dualhomed needs an even number of leaves"
	build_mgmt
	for s in $(seq 1 "$S"); do add_node "s$s" spine; done
	for l in $(seq 1 "$L"); do
		add_node "l$l" leaf
		ip -n "$(ns "l$l")" addr add "198.19.250.$l/32" dev lo
		for s in $(seq 1 "$S"); do
			add_link "l$l-s$s" "l$l" "s$s" "s$s" "l$l" "" "$UPLINK_MBIT"
			ip -n "$(ns "l$l")" addr add "198.19.200.$((2 * k + 1))/31" dev "s$s"
			ip -n "$(ns "s$s")" addr add "198.19.200.$((2 * k))/31" dev "l$l"
			k=$((k + 1))
		done
		echo "" > "$ST/lnbr-l$l"
	done
	for r in $(seq 1 $((L / 2))); do
		for j in $(seq 1 "$H"); do
			i=$((i + 1)); h=h$i
			pa="198.18.$r.$((10 + j))"; ca="198.19.$r.$((10 + j))"
			add_node "$h" router
			mgmt_host "$h" "$i"
			ip -n "$(ns "$h")" addr add "$pa/32" dev lo
			ip -n "$(ns "$h")" addr add "$ca/32" dev lo
			nbrs=""
			for l in $((2 * r - 1)) $((2 * r)); do
				add_link "$h-l$l" "$h" "l$l" "l$l" "$h" "" "$HOST_MBIT"
				ip -n "$(ns "$h")" addr add "198.19.210.$((2 * q + 1))/31" dev "l$l"
				ip -n "$(ns "l$l")" addr add "198.19.210.$((2 * q))/31" dev "$h"
				nbrs="$nbrs 198.19.210.$((2 * q))"
				echo "198.19.210.$((2 * q + 1))" >> "$ST/lnbr-l$l"
				q=$((q + 1))
			done
			frr_zebra_conf "$h"
			# Sources: the public /32 toward the public network,
			# the cluster /32 toward the cluster network.
			{
				echo "frr defaults datacenter"
				echo "hostname $h"
				echo "log file $(frr_dir "$h")/zebra.log"
				echo "ip prefix-list PUB seq 5 permit 198.18.0.0/17 le 32"
				echo "ip prefix-list CLU seq 5 permit 198.19.0.0/17 le 32"
				echo "route-map SRC permit 10"
				echo " match ip address prefix-list PUB"
				echo " set src $pa"
				echo "route-map SRC permit 20"
				echo " match ip address prefix-list CLU"
				echo " set src $ca"
				echo "route-map SRC permit 30"
				echo "ip protocol bgp route-map SRC"
			} | frr_write "$h" zebra
			frr_bgp_conf "$h" $((65300 + i)) "$ca" "$nbrs" "$pa/32 $ca/32"
			host_rec "$h" "$pa" "$ca" "198.18.255.$((10 + i))" "rack$r" lo lo
		done
	done
	fabric_bgp "$S" "$L" 0
	for h in $(awk '{print $1}' "$ST/hosts"); do frr_start "$h" zebra bgpd; done
	echo "public_network=198.18.0.0/17 cluster_network=198.19.0.0/17" > "$ST/nets"
	echo "spines=$S leaves=$L hosts_per_leaf=$H dualhomed=1" >> "$ST/nets"
}

# converge_dual: every host has two next hops to every other host's
# cluster /32, and every host's sessions are up.
converge_dual() {
	converge_wait dual_converged
}

dual_converged() {
	local h o c
	for h in $(awk '{print $1}' "$ST/hosts"); do
		bgp_established "$h" || return 1
		while read -r o _ c _; do
			[ "$o" = "$h" ] && continue
			[ "$(route_paths "$h" "$c/32")" = 2 ] || return 1
		done < "$ST/hosts"
	done
	return 0
}

# build_stacked_lacp: the stacked switch pair as one OVS bridge ('stack' in
# the switch namespace: a stack or MLAG pair is one LACP partner to its
# hosts), every host with two links (m0, m1) into it, bonded with LACP on
# both sides. Both Ceph networks ride the one bond as VLANs (public 10,
# cluster 20, tagged by OVS in userspace: the kernel has no vlan module),
# which is how most stacked-LACP Ceph and Proxmox hosts are wired: two
# NICs, one bond, the networks as VLANs on it. The host's addresses sit
# on OVS internal ports 'pub' and 'clu'. host_mbit shapes each member
# (tbf on both ends), so a bond carries twice that.
build_stacked_lacp() {
	local n i h m
	n=$(topo_get "$TOPO" hosts 4)
	[ "$n" -ge 2 ] && [ "$n" -le 8 ] || die "$TOPO: hosts must be 2..8 (one vswitchd per host)"
	build_mgmt
	ovs_start sw
	ovs_vsctl sw add-br stack -- set bridge stack datapath_type=netdev ||
		die "the stack's bridge"
	for i in $(seq 1 "$n"); do
		h=h$i
		add_node "$h" host
		mgmt_host "$h" "$i"
		for m in m0 m1; do
			add_link "$h-$m" "$h" "$m" sw "$h-$m" "" "$HOST_MBIT"
		done
		ovs_start "$h"
		ovs_vsctl "$h" add-br br0 -- set bridge br0 datapath_type=netdev \
			-- add-port br0 pub tag=10 -- set interface pub type=internal \
			mtu_request="$MTU" \
			-- add-port br0 clu tag=20 -- set interface clu type=internal \
			mtu_request="$MTU" || die "$h's bridge"
		ovs_bond "$h" br0 bond0 m0 m1
		ovs_bond sw stack "b$h" "$h-m0" "$h-m1"
		# OVS sets a port's root qdisc from its own QoS column (none:
		# the default) when it adds the port: shape after it, not before.
		link_rate "$h-m0" "$HOST_MBIT"
		link_rate "$h-m1" "$HOST_MBIT"
		ip -n "$(ns "$h")" addr add "198.18.0.$((10 + i))/24" dev pub
		ip -n "$(ns "$h")" addr add "198.19.0.$((10 + i))/24" dev clu
		ip -n "$(ns "$h")" link set pub up
		ip -n "$(ns "$h")" link set clu up
		host_rec "$h" "198.18.0.$((10 + i))" "198.19.0.$((10 + i))" \
			"198.18.255.$((10 + i))" rack1 pub clu
	done
	echo "public_network=198.18.0.0/24 cluster_network=198.19.0.0/24" > "$ST/nets"
	echo "hosts=$n" >> "$ST/nets"
}

# converge_lacp: LACP negotiated with every member enabled on every
# host's bond and on every bond of the stack.
converge_lacp() {
	converge_wait lacp_converged
}

lacp_converged() {
	local h
	for h in $(awk '{print $1}' "$ST/hosts"); do
		ovs_negotiated "$h" bond0 && ovs_negotiated sw "b$h" || return 1
	done
	return 0
}
