#!/usr/bin/env bash
# ospf-dual: every host has two equal-cost routes (one per plane) to every
# other host's cluster loopback, sourced from its own loopback; losing a
# plane link leaves one; ospfd's files stay inside the run's own directory.
. "$(dirname "$0")/lib.sh"
need_lab
command -v vtysh >/dev/null || skip "no FRR"

t0=$(date +%s%N)
lab_up ospf-dual
note "ospf-dual up in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
n=$(jq '.hosts | length' <<<"$("$LAB" status "$LP" --json)")
assert_eq "$n" 3 "hosts"
for i in 1 2 3; do
	for j in 1 2 3; do
		[ $i = $j ] && continue
		r=$(ip -n "$LP-h$i" -j route show "198.19.0.$((10 + j))")
		assert_eq "$(jq '.[0].nexthops | length' <<<"$r")" 2 "h$i -> h$j paths"
		assert_eq "$(jq -r '[.[0].nexthops[].dev] | sort | join(",")' <<<"$r")" "pa,pb" "h$i -> h$j planes"
		assert_eq "$(jq -r '.[0].prefsrc' <<<"$r")" "198.19.0.$((10 + i))" "h$i source"
		assert_eq "$(vtysh -N "$LP-h$i" -c "show ip route 198.19.0.$((10 + j))/32 json" 2>/dev/null |
			jq --arg p "198.19.0.$((10 + j))/32" '[.[$p][] | select(.selected) | .nexthops[]] | length')" 2 "h$i FRR paths"
	done
done
lx h1 ping -c1 -W2 -I 198.19.0.11 198.19.0.13 >/dev/null || fail "h1 -> h3 cluster"
# ospfd's graceful-restart file is per instance, not shared.
[ -e "$LST/frr/$LP-h1/run/ospfd-gr.json" ] || fail "no private ospfd-gr.json"

# One plane link down on h1: its routes fall back to the other plane.
"$LAB" fault "$LP" add down:h1-pa 2>/dev/null || fail "fault add"
wait_until 15 sh -c "ip -n $LP-h1 -j route show 198.19.0.12 | jq -e '.[0].dev == \"pb\"'" ||
	fail "h1 did not fall back to plane B: $(ip -n "$LP-h1" route show 198.19.0.12)"
# The return path converges once h2's OSPF declares h1 dead on plane A
# (dead interval 4 s).
wait_until 15 sh -c "ip -n $LP-h2 -j route show 198.19.0.11 | jq -e '.[0].dev == \"pb\"'" ||
	fail "h2 did not fall back to plane B: $(ip -n "$LP-h2" route show 198.19.0.11)"
lx h1 ping -c1 -W2 -I 198.19.0.11 198.19.0.12 >/dev/null || fail "h1 -> h2 on one plane"
"$LAB" down "$LP" 2>/dev/null
why=$(lab_gone "$LP") || fail "after down: $why"
echo "lab_ospf: ok"
