#!/usr/bin/env bash
# leafspine-dual: hosts run their own BGP and announce /32 loopbacks;
# every host has two equal-cost paths (one per leaf) to every other host's
# public and cluster address, sourced from the matching loopback; losing
# one leaf link leaves the other; agents serve from the loopbacks.
. "$(dirname "$0")/lib.sh"
need_lab
command -v vtysh >/dev/null || skip "no FRR"
t0=$(date +%s%N)
lab_up leafspine-dual --agents
note "leafspine-dual up in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
for i in 1 2 3; do
	for j in 1 2 3; do
		[ $i = $j ] && continue
		for net in 18 19; do
			r=$(ip -n "$LP-h$i" -j route show "198.$net.1.$((10 + j))")
			assert_eq "$(jq -r '[.[0].nexthops[].dev] | sort | join(",")' <<<"$r")" "l1,l2" "h$i -> h$j 198.$net paths"
			assert_eq "$(jq -r '.[0].prefsrc' <<<"$r")" "198.$net.1.$((10 + i))" "h$i source on 198.$net"
		done
	done
done
vtysh -N "$LP-h1" -c "show bgp summary json" 2>/dev/null |
	jq -e '[.ipv4Unicast.peers[].state] | length == 2 and all(. == "Established")' >/dev/null || fail "h1 sessions"
ip netns exec "$LP-adm" "$CEPHFAB" -i "$LST/lab.inv" hosts >/dev/null || fail "agents"
ip netns exec "$LP-adm" "$CEPHFAB" -i "$LST/lab.inv" pair h1 h3 -t 1 --json | jq -e '.end.sum.bits_per_second > 5e8' >/dev/null ||
	fail "throughput between loopbacks"
"$LAB" fault "$LP" add down:h1-l1 2>/dev/null || fail "fault"
wait_until 10 sh -c "ip -n $LP-h1 -j route show 198.19.1.13 | jq -e '.[0].dev == \"l2\"'" || fail "h1 kept l1"
wait_until 10 lx h1 ping -c1 -W1 -I 198.19.1.11 198.19.1.13 || fail "no path on l2"
"$LAB" down "$LP" 2>/dev/null
why=$(lab_gone "$LP") || fail "after down: $why"
echo "lab_dualhomed: ok"
