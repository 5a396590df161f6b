# lab faults: break the fabric on purpose, and mend it. Every fault is
# recorded in $ST/faults so that 'status' lists it and 'fault del' undoes it.
#
#   rate:LINK:MBIT              tbf on both ends of LINK
#   loss:LINK:PERCENT           random drop each way (nft numgen, netdev ingress)
#   loss:LINK:END:PERCENT       the same, only for packets arriving at END
#   reorder:LINK:PERCENT        PERCENT of the IP packets each way held back
#                               behind a 20 Mbit/s htb class: reordering,
#                               nothing lost (replaces the link's tbf with
#                               htb at the same rate; not with rate: too)
#   mtu:LINK:BYTES              both ends' MTU
#   mtu:LINK:END:BYTES          one end's MTU only: a silent black hole
#   down:LINK                   both ends down
#   block:HOST:NET:PORTS:drop|reject   TCP to HOST's NET address, PORTS like
#                               6800-7300 or 3300,6789 (iptables in HOST)
#   egress:HOST:NET             a route sending NET traffic out of HOST's
#                               other Ceph interface (wrong NIC)
#   lacp:HOST:off               stacked-lacp: the stack's side of HOST's
#                               bond without LACP (a static LAG against
#                               the host's LACP: never negotiated)

fault_link_ends() { # LINK -> sets FA FIA FB FIB
	FA=$(link_field "$1" 2); FIA=$(link_field "$1" 3)
	FB=$(link_field "$1" 4); FIB=$(link_field "$1" 5)
	[ -n "$FA" ] || die "fault: no link '$1' (links: $(awk '{printf "%s ", $1}' "$ST/links"))"
}

fault_net_addr() { # HOST NET -> address of HOST on NET
	case $2 in
	public) host_field "$1" 2 ;;
	cluster) host_field "$1" 3 ;;
	*) die "fault: network '$2' is not public or cluster" ;;
	esac
}

# fault_loss add|del LINK PERCENT: an nftables netdev ingress chain on each
# end drops PERCENT of the packets arriving there, so both directions lose
# PERCENT. Ingress sees packets one by one (offloads are off), where
# iptables OUTPUT would see whole GSO super-packets and bridged frames not
# at all. ARP passes: a lost ARP exchange fails the neighbour entry for
# seconds, every packet of that pair with it (two pairs of a 20 % link lost
# 100 % in a mesh run), which is the neighbour cache's timing, not the
# link's loss rate.
# An Open vSwitch port (userspace datapath) reads its packets from a
# packet socket, which sees them before the ingress hook: there the
# chain drops at the end's egress instead, which OVS's sends do cross.
loss_chain() { # add|del NODE IF N
	local n hook=ingress; n=$(ns "$2")
	[ -d "$ST/ovs-$2" ] && hook=egress
	if [ "$1" = add ]; then
		ip netns exec "$n" nft add table netdev cflab &&
		ip netns exec "$n" nft add chain netdev cflab "loss_$3" \
			"{ type filter hook $hook device \"$3\" priority 0; }" &&
		ip netns exec "$n" nft add rule netdev cflab "loss_$3" \
			meta protocol != arp numgen random mod 10000 "<" "$4" counter drop
	else
		ip netns exec "$n" nft delete chain netdev cflab "loss_$3"
	fi
}
# fault_loss add|del LINK PERCENT [END]: with END, only packets arriving
# at END lose: the other end's egress alone (one direction).
fault_loss() {
	local op=$1 n end=${4:-}
	fault_link_ends "$2"
	[[ "$3" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "fault: loss '$3' is not a percentage"
	n=$(awk -v x="$3" 'BEGIN { if (x <= 0 || x > 100) exit 1; printf "%d", x * 100 + 0.5 }') ||
		die "fault: loss must be in (0, 100]"
	[ -z "$end" ] || [ "$end" = "$FA" ] || [ "$end" = "$FB" ] ||
		die "fault: '$end' is not an end of $2 ($FA or $FB)"
	{ [ "$end" = "$FB" ] || loss_chain "$op" "$FA" "$FIA" "$n"; } &&
	{ [ "$end" = "$FA" ] || loss_chain "$op" "$FB" "$FIB" "$n"; } ||
		die "fault: nft failed on $2"
}

# fault_reorder add|del LINK PERCENT: at each end, an htb root with the
# link's rate for the traffic and a 20 Mbit/s class for PERCENT of the IP
# packets, picked by an nftables netdev egress chain (meta priority: no tc
# classifier needed, and this kernel has neither fw nor prio). A held
# packet arrives milliseconds after its successors: TCP retransmits it too
# early and the receiver reports the duplicate (DSACK). Netem would do
# this with a delay distribution; this kernel has no netem.
reorder_end() { # add|del NODE IF N MBIT
	local n burst rate=$5; n=$(ns "$2")
	if [ "$1" = del ]; then
		ip netns exec "$n" nft delete chain netdev cflab "reo_$3"
		tc -n "$n" qdisc del dev "$3" root 2>/dev/null
		return 0
	fi
	[ "$rate" -gt 0 ] || rate=100000
	burst=$(( rate * 1000 * 1000 / 8 / 250 ))
	[ "$burst" -lt $((4 * MTU + 4096)) ] && burst=$((4 * MTU + 4096))
	tc -n "$n" qdisc replace dev "$3" root handle 1: htb default 10 r2q 1000 2>/dev/null &&
	tc -n "$n" class add dev "$3" parent 1: classid 1:10 htb rate "${rate}mbit" \
		burst "$burst" 2>/dev/null &&
	tc -n "$n" class add dev "$3" parent 1: classid 1:20 htb rate 20mbit 2>/dev/null &&
	ip netns exec "$n" nft add table netdev cflab &&
	ip netns exec "$n" nft add chain netdev cflab "reo_$3" \
		"{ type filter hook egress device \"$3\" priority 0; }" &&
	ip netns exec "$n" nft add rule netdev cflab "reo_$3" \
		meta protocol ip numgen random mod 10000 "<" "$4" counter meta priority set 1:20
}
fault_reorder() {
	local op=$1 n mbit
	fault_link_ends "$2"
	[[ "$3" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "fault: reorder '$3' is not a percentage"
	n=$(awk -v x="$3" 'BEGIN { if (x <= 0 || x > 50) exit 1; printf "%d", x * 100 + 0.5 }') ||
		die "fault: reorder must be in (0, 50]"
	mbit=$(link_field "$2" 6)
	reorder_end "$op" "$FA" "$FIA" "$n" "$mbit" && reorder_end "$op" "$FB" "$FIB" "$n" "$mbit" ||
		die "fault: reorder failed on $2"
	[ "$op" = del ] && link_rate "$2" "$mbit"
	return 0
}

fault_block() { # OP HOST NET PORTS ACTION
	local op=$1 h=$2 addr ports target
	addr=$(fault_net_addr "$h" "$3")
	[ -n "$addr" ] || die "fault: no host '$h'"
	[[ "$4" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || die "fault: ports '$4' (e.g. 6800-7300 or 3300,6789)"
	ports=${4//-/:}
	case $5 in
	drop) target=(-j DROP) ;;
	reject) target=(-j REJECT --reject-with tcp-reset) ;;
	*) die "fault: block action '$5' is not drop or reject" ;;
	esac
	nsx "$h" iptables -w "$op" INPUT -p tcp -d "$addr" -m multiport \
		--dports "$ports" "${target[@]}" || die "fault: iptables failed"
}

# fault_egress add|del HOST NET: host routes to every other host's NET
# address out of HOST's other Ceph interface. On an L2 segment the peers
# answer ARP there too (Linux arp_ignore=0), so traffic flows, on the wrong
# NIC: the misconfiguration this fault stands for.
fault_egress() {
	local h=$2 col via_if o addr
	case $3 in
	cluster) col=3; via_if=$(host_field "$h" 6) ;;
	public) col=2; via_if=$(host_field "$h" 7 | cut -d, -f1) ;;
	*) die "fault: network '$3' is not public or cluster" ;;
	esac
	[ -n "$(host_field "$h" 1)" ] || die "fault: no host '$h'"
	while read -r o _; do
		[ "$o" = "$h" ] && continue
		addr=$(host_field "$o" "$col")
		if [ "$1" = add ]; then
			ip -n "$(ns "$h")" route replace "$addr/32" dev "$via_if" ||
				die "fault: route to $addr failed"
		else
			ip -n "$(ns "$h")" route del "$addr/32" dev "$via_if" 2>/dev/null
		fi
	done < "$ST/hosts"
	return 0
}

# fault OP SPEC: OP is add or del.
fault() {
	local op=$1 spec=$2 kind a b c d
	IFS=: read -r kind a b c d <<<"$spec"
	case $kind in
	rate)
		[[ "${b:-}" =~ ^[0-9]+$ ]] && [ -z "${c:-}" ] || die "fault: rate:LINK:MBIT"
		if [ "$op" = add ]; then link_rate "$a" "$b"; else
			link_rate "$a" "$(link_field "$a" 6)"; fi ;;
	loss)
		[ -n "${b:-}" ] && [ -z "${d:-}" ] || die "fault: loss:LINK:PERCENT or loss:LINK:END:PERCENT"
		if [ -n "${c:-}" ]; then fault_loss "$op" "$a" "$c" "$b"
		else fault_loss "$op" "$a" "$b"; fi ;;
	reorder)
		[ -n "${b:-}" ] && [ -z "${c:-}" ] || die "fault: reorder:LINK:PERCENT"
		fault_reorder "$op" "$a" "$b" ;;
	mtu)
		fault_link_ends "$a"
		if [ -z "${c:-}" ]; then
			[[ "${b:-}" =~ ^[0-9]+$ ]] || die "fault: mtu:LINK:BYTES"
			[ "$op" = del ] && b=$MTU
			ip -n "$(ns "$FA")" link set "$FIA" mtu "$b" &&
			ip -n "$(ns "$FB")" link set "$FIB" mtu "$b" || die "fault: mtu failed"
		else
			[[ "$c" =~ ^[0-9]+$ ]] || die "fault: mtu:LINK:END:BYTES"
			[ "$op" = del ] && c=$MTU
			if [ "$b" = "$FA" ]; then ip -n "$(ns "$FA")" link set "$FIA" mtu "$c"
			elif [ "$b" = "$FB" ]; then ip -n "$(ns "$FB")" link set "$FIB" mtu "$c"
			else die "fault: '$b' is not an end of $a ($FA or $FB)"; fi
		fi ;;
	down)
		fault_link_ends "$a"
		local st=down; [ "$op" = del ] && st=up
		ip -n "$(ns "$FA")" link set "$FIA" "$st"
		ip -n "$(ns "$FB")" link set "$FIB" "$st" ;;
	block)
		[ -n "${d:-}" ] || die "fault: block:HOST:NET:PORTS:drop|reject"
		if [ "$op" = add ]; then fault_block -A "$a" "$b" "$c" "$d"; else
			fault_block -D "$a" "$b" "$c" "$d"; fi ;;
	egress)
		[ -n "${b:-}" ] && [ -z "${c:-}" ] || die "fault: egress:HOST:NET"
		fault_egress "$op" "$a" "$b" ;;
	lacp)
		[ "${b:-}" = off ] && [ -z "${c:-}" ] || die "fault: lacp:HOST:off"
		[ -d "$ST/ovs-sw" ] && grep -q "^$a " "$ST/hosts" ||
			die "fault: lacp:HOST:off needs a stacked-lacp lab and one of its hosts"
		local mode=off; [ "$op" = del ] && mode=active
		ovs_vsctl sw set port "b$a" lacp="$mode" || die "fault: lacp on b$a" ;;
	*) die "fault: unknown kind '$kind' (rate, loss, reorder, mtu, down, block, egress, lacp)" ;;
	esac
	if [ "$op" = add ]; then
		echo "$spec" >> "$ST/faults"
	else
		grep -vxF -- "$spec" "$ST/faults" > "$ST/faults.new"
		mv "$ST/faults.new" "$ST/faults"
	fi
	say "fault $op $spec"
}
