#!/usr/bin/env bash
# stacked-lacp: hosts bonded into a stacked switch pair with LACP (Open
# vSwitch bonds, userspace datapath). LACP comes up negotiated on every
# bond (ovs-appctl and the agents' facts agree), eight streams of a pair
# test spread over both members of the sender's bond, a member taken down
# is a bond_degraded finding naming the host and the member, the stack's
# side without LACP is a finding that says LACP is not negotiated, both
# mend, and 'down' leaves no OVS daemon, namespace or file behind.
. "$(dirname "$0")/lib.sh"
need_lab
command -v ovs-vswitchd >/dev/null || skip "no Open vSwitch (openvswitch-switch)"

t0=$(date +%s%N)
lab_up stacked-lacp --agents
note "stacked-lacp up with agents in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
appctl() { # NODE CMD...: that namespace's ovs-vswitchd
	local d=$LST/ovs-$1; shift
	ovs-appctl -t "$d/ovs-vswitchd.$(cat "$d/ovs-vswitchd.pid").ctl" --timeout=5 "$@"
}
for h in h1 h2 h3 h4; do
	appctl "$h" lacp/show bond0 | grep -q "status: active negotiated" ||
		fail "$h's bond0: $(appctl "$h" lacp/show bond0)"
	appctl sw lacp/show "b$h" | grep -q "status: active negotiated" ||
		fail "the stack's b$h: $(appctl sw lacp/show "b$h")"
done

# The agents' facts say the same.
cf hosts --facts --json > "$T/f.json" || fail "hosts --facts: $(cat "$T/f.json")"
jq -e '[.hosts[].facts | .ovs.available and ([.links[] | select(.kind == "ovs-bond") |
	.bond | .source == "ovs" and .mode == "balance-tcp" and .lacp == "negotiated" and
	([.members[] | select(.state == "enabled" and .mii == "up")] | length == 2)] == [true])] |
	length == 4 and all' "$T/f.json" >/dev/null ||
	fail "facts: $(jq -c '.hosts[0].facts | {ovs, bonds: [.links[] | select(.kind == "ovs-bond")]}' "$T/f.json")"
assert_eq "$(jq '.findings | length' "$T/f.json")" 0 "findings on a healthy stack"
cf hosts --facts > "$T/f.txt"
grep -q "cluster: clu .*OVS bond bond0 balance-tcp x2, LACP negotiated" "$T/f.txt" ||
	fail "summary: $(cat "$T/f.txt")"

# Eight streams: both members of h1's bond carry the sender's traffic.
cf pair h1 h2 --net cluster -P 8 -t 3 --json > "$T/p8.json" || fail "pair -P 8"
jq -e '.end.spread.a.tx | .paths == 2 and .unused == [] and
	([.links[] | select(.role == "member") | .name] | sort) == ["m0", "m1"] and
	all(.links[]; .share > 0.05)' "$T/p8.json" >/dev/null ||
	fail "spread: $(jq -c .end.spread "$T/p8.json")"
note "8 streams over h1's bond: $(jq -r '[.end.spread.a.tx.links[] | "\(.name) \(.share * 100 | floor)%"] | join(", ")' "$T/p8.json")"

# A member down (h2's m1, both ends), then LACP off on the stack's side of
# h3's bond: one finding each, naming host and member or saying why.
"$LAB" fault "$LP" add down:h2-m1 2>/dev/null || fail "fault down"
"$LAB" fault "$LP" add lacp:h3:off 2>/dev/null || fail "fault lacp"
# LACP's fast timer: the partner's information expires in 3 s.
unnegotiated() { ! appctl h3 bond/show bond0 | grep -q 'lacp_status: negotiated'; }
wait_until 15 unnegotiated ||
	fail "h3's bond stayed negotiated: $(appctl h3 bond/show bond0)"
cf hosts --facts --json > "$T/d.json"
assert_eq "$?" 1 "hosts --facts exit with degraded bonds"
jq -e '[.findings[] | select(.kind == "bond_degraded" and .hosts == ["h2"] and
	.evidence.bond == "bond0" and (.summary | test("m1 is disabled \\(carrier down\\)")))] | length == 1' \
	"$T/d.json" >/dev/null || fail "member down: $(jq -c .findings "$T/d.json")"
jq -e '[.findings[] | select(.kind == "bond_degraded" and .hosts == ["h3"] and
	(.summary | test("LACP is not negotiated")))] | length == 1' \
	"$T/d.json" >/dev/null || fail "lacp off: $(jq -c .findings "$T/d.json")"
assert_eq "$(jq '[.findings[] | select(.severity == "error")] | length' "$T/d.json")" 2 "one finding per fault"

"$LAB" fault "$LP" del down:h2-m1 2>/dev/null
"$LAB" fault "$LP" del lacp:h3:off 2>/dev/null
healed() { for h in h2 h3; do appctl "$h" bond/show bond0 | grep -q 'lacp_status: negotiated' &&
	! appctl "$h" bond/show bond0 | grep -q '^member .*: disabled' || return 1; done; }
wait_until 15 healed || fail "not mended: $(appctl h2 bond/show bond0; appctl h3 bond/show bond0)"
cf hosts --facts --json > "$T/h.json" || fail "after mending: $(jq -c .findings "$T/h.json")"

"$LAB" down "$LP" >/dev/null 2>&1 || fail "lab down"
why=$(lab_gone "$LP") || fail "after down: $why"
exit 0
