#!/usr/bin/env bash
# ospf-dual: every host has two equal-cost routes (one per plane) to every
# other host's cluster loopback, sourced from its own loopback; losing a
# plane link leaves one; ospfd's files stay inside the run's own directory.
# Then the root cause on two planes: loss on one host's plane-A link is one
# finding at that port, named by the traced flows (agents on the hosts).
. "$(dirname "$0")/lib.sh"
need_lab
command -v vtysh >/dev/null || skip "no FRR"

t0=$(date +%s%N)
lab_up ospf-dual --agents
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

# 1 % loss on h1's plane-A link: every flow through that port lost, those
# through its plane B and the others' plane A did not. (Before the link
# is taken down below: this FRR does not always give a flapped link its
# kernel next hop back.)
"$LAB" fault "$LP" add loss:h1-pa:1 2>/dev/null || fail "fault add loss"
t0=$(date +%s)
# Four streams each way: with two planes, every direction puts flows on
# both (each socket's own hash picks its plane); the hosts' facts name
# the ports the traces reach.
cf matrix --profile "$TOP/configs/profiles/lab.conf" --net cluster --tests bw,facts -P 4 -t 1 \
	--db "$T/o.db" --json "$T/o.json" > "$T/o.txt" 2>&1
rc=$?
note "loss on h1-pa, cluster matrix: $(( $(date +%s) - t0 )) s, exit $rc"
assert_eq "$rc" 1 "matrix exit with a lossy plane link"
assert_eq "$(jq -r '[.findings[] | select(.severity == "error") |
	"\(.kind)|\(.location.host)|\(.location.interface)"] | join(" ")' "$T/o.json")" \
	"lossy_host|h1|pa" "the plane-A port of h1, once ($(jq -c '[.findings[].summary]' "$T/o.json"))"
jq -e '[.findings[] | select(.kind == "lossy_host")][0].evidence |
	.clean_flows == 0 and .bad_flows >= 2 and (.pairs | length) >= 3' "$T/o.json" >/dev/null ||
	fail "plane port evidence: $(jq -c '.findings[0].evidence' "$T/o.json")"
"$LAB" fault "$LP" del loss:h1-pa:1 2>/dev/null || fail "fault del loss"

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
