# lab common: state directory, namespaces, links, link speed.
# Sourced by lab.sh; every name made here carries the run's prefix $P.

LAB_RUN=${CEPHFAB_LAB_RUN:-/run/cephfab-lab}

die() { echo "lab: $*" >&2; exit 2; }
warn() { echo "lab: $*" >&2; }
say() { [ -n "${LAB_QUIET:-}" ] || echo "lab: $*" >&2; }

valid_prefix() { [[ "$1" =~ ^[a-z][a-z0-9]{0,9}$ ]]; }

# Topology files are key = value; parsed, never sourced.
topo_get() { # FILE KEY DEFAULT
	local v
	v=$(sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*\([^#[:space:]]*\).*/\1/p" "$1" | tail -1)
	echo "${v:-$3}"
}

ns() { echo "$P-$1"; }
nsx() { local n=$1; shift; ip netns exec "$(ns "$n")" "$@"; }

# add_node NAME ROLE: a namespace with lo up and the lab's sysctls.
add_node() {
	local name=$1 role=$2 n
	n=$(ns "$name")
	ip netns add "$n" || die "cannot create namespace $n"
	echo "$name $role" >> "$ST/nodes"
	ip -n "$n" link set lo up
	nsx "$name" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 \
		net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null
	# Deterministic per-5-tuple ECMP (see docs/lab.md), or the
	# real-world policy 1 re-hashing when asked.
	if [ "$HASH_POLICY" = 3 ]; then
		nsx "$name" sysctl -qw net.ipv4.fib_multipath_hash_policy=3 \
			net.ipv4.fib_multipath_hash_fields=0x0037 >/dev/null
	else
		nsx "$name" sysctl -qw \
			net.ipv4.fib_multipath_hash_policy="$HASH_POLICY" >/dev/null
	fi
	case $role in
	# Routers answer a traced probe from the address it arrived on
	# (--icmp ingress, the lab's default: most vendors' routers), from
	# the address towards the sender (egress: Linux's own default), or
	# from their loopback (loopback: egress plus every learnt route's
	# source set to it, as unnumbered fabrics answer; frr.sh). The rate
	# limit is off unless --icmp-ratelimit asks (Linux's default is
	# 1000 ms per destination, after a burst of six).
	leaf|spine|router) nsx "$name" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.icmp_errors_use_inbound_ifaddr="$([ "${ICMP_MODE:-ingress}" = ingress ] && echo 1 || echo 0)" \
		net.ipv4.icmp_ratelimit="${ICMP_RATELIMIT:-0}" >/dev/null ;;
	esac
}

add_bridge() { # NODE BRIDGE
	ip -n "$(ns "$1")" link add "$2" type bridge
	ip -n "$(ns "$1")" link set "$2" type bridge stp_state 0 forward_delay 0
	ip -n "$(ns "$1")" link set "$2" mtu "$MTU" up
}

# add_link LINK NODE_A IF_A NODE_B IF_B [BRIDGE_ON_B] [MBIT]: a veth pair
# made directly inside the two namespaces (never in the root one), MTU set,
# offloads off so that loss and MTU faults act per packet.
add_link() {
	local link=$1 a=$2 ia=$3 b=$4 ib=$5 br=${6:-} mbit=${7:-0}
	ip link add "$ia" netns "$(ns "$a")" type veth peer name "$ib" netns "$(ns "$b")" ||
		die "cannot create link $link"
	ip -n "$(ns "$a")" link set "$ia" mtu "$MTU"
	ip -n "$(ns "$b")" link set "$ib" mtu "$MTU"
	nsx "$a" ethtool -K "$ia" tso off gso off gro off >/dev/null 2>&1
	nsx "$b" ethtool -K "$ib" tso off gso off gro off >/dev/null 2>&1
	[ -n "$br" ] && ip -n "$(ns "$b")" link set "$ib" master "$br"
	ip -n "$(ns "$a")" link set "$ia" up
	ip -n "$(ns "$b")" link set "$ib" up
	echo "$link $a $ia $b $ib $mbit" >> "$ST/links"
	[ "$mbit" -gt 0 ] && link_rate "$link" "$mbit"
	return 0
}

link_field() { # LINK FIELD(1-6)
	awk -v l="$1" -v f="$2" '$1 == l {print $f}' "$ST/links"
}

# link_rate LINK MBIT: tbf on both ends' egress; 0 removes it.
link_rate() {
	local link=$1 mbit=$2 a ia b ib burst
	a=$(link_field "$link" 2); ia=$(link_field "$link" 3)
	b=$(link_field "$link" 4); ib=$(link_field "$link" 5)
	[ -n "$a" ] || die "no link '$link' (see: lab.sh status $P)"
	if [ "$mbit" -le 0 ]; then
		tc -n "$(ns "$a")" qdisc del dev "$ia" root 2>/dev/null
		tc -n "$(ns "$b")" qdisc del dev "$ib" root 2>/dev/null
		return 0
	fi
	# 4 ms of traffic, and never less than a few jumbo frames.
	burst=$(( mbit * 1000 * 1000 / 8 / 250 ))
	[ "$burst" -lt $((4 * MTU + 4096)) ] && burst=$((4 * MTU + 4096))
	tc -n "$(ns "$a")" qdisc replace dev "$ia" root tbf rate "${mbit}mbit" \
		burst "$burst" latency 20ms || die "tbf on $link"
	tc -n "$(ns "$b")" qdisc replace dev "$ib" root tbf rate "${mbit}mbit" \
		burst "$burst" latency 20ms || die "tbf on $link"
}

# host_rec NAME PUBLIC CLUSTER MGMT RACK PUBIF CLUIFS
host_rec() { echo "$*" >> "$ST/hosts"; }
host_field() { awk -v h="$1" -v f="$2" '$1 == h {print $f}' "$ST/hosts"; }
