#!/usr/bin/env bash
# leafspine converges with one ECMP next hop per spine on every leaf
# (checked through vtysh JSON), hosts in different racks reach each other
# on both networks, a downed uplink takes its path away and brings it back,
# and 'down' leaves no namespace, process or file with the prefix.
. "$(dirname "$0")/lib.sh"
need_lab
command -v vtysh >/dev/null || skip "no FRR"

t0=$(date +%s%N)
lab_up leafspine
note "leafspine up in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
paths() { # LEAF PREFIX
	vtysh -N "$LP-$1" -c "show ip route $2 json" 2>/dev/null |
		jq --arg p "$2" '[.[$p][] | select(.selected) | .nexthops[] | select(.active)] | length'
}
paths_is() { [ "$(paths "$1" "$2")" = "$3" ]; }
for l in 1 2; do
	o=$((3 - l))
	assert_eq "$(paths l$l 198.18.$o.0/24)" 2 "l$l ECMP to rack $o public"
	assert_eq "$(paths l$l 198.19.$o.0/24)" 2 "l$l ECMP to rack $o cluster"
	# The kernel holds both next hops too.
	n=$(ip -n "$LP-l$l" -j route show 198.19.$o.0/24 | jq '.[0].nexthops | length')
	assert_eq "$n" 2 "l$l kernel next hops"
	vtysh -N "$LP-l$l" -c "show bgp summary json" 2>/dev/null |
		jq -e '[.ipv4Unicast.peers[].state] | length == 2 and all(. == "Established")' >/dev/null ||
		fail "l$l BGP sessions"
done
# Hosts: h1,h2 in rack 1, h3,h4 in rack 2.
lx h1 ping -c1 -W2 -I 198.19.1.11 198.19.2.12 >/dev/null || fail "h1 -> h4 cluster"
lx h4 ping -c1 -W2 198.18.1.11 >/dev/null || fail "h4 -> h1 public"
# Jumbo frames cross the fabric.
lx h1 ping -c1 -W2 -M do -s 8972 198.19.2.11 >/dev/null || fail "jumbo h1 -> h3"

# An uplink down: l1 falls back to one path (BGP hold time 3 s), and
# gets both back when it is up again.
"$LAB" fault "$LP" add down:l1-s1 2>/dev/null || fail "fault add"
wait_until 10 paths_is l1 198.19.2.0/24 1 || fail "l1 kept 2 paths with l1-s1 down"
# l2 and s1 withdraw rack 1 via s1 within the hold time; then traffic
# flows on the remaining spine.
wait_until 10 lx h1 ping -c1 -W1 198.19.2.11 || fail "no path left after one uplink down"
"$LAB" fault "$LP" del down:l1-s1 2>/dev/null || fail "fault del"
wait_until 15 paths_is l1 198.19.2.0/24 2 || fail "l1 did not regain 2 paths"

# status --json describes it.
"$LAB" status "$LP" --json | jq -e '.design == "leafspine" and (.hosts | length) == 4 and (.nodes | length) == 10' >/dev/null ||
	fail "status json"

# down removes exactly our things.
"$LAB" down "$LP" 2>/dev/null
why=$(lab_gone "$LP") || fail "after down: $why"
echo "lab_leafspine: ok"
