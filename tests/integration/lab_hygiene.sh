#!/usr/bin/env bash
# Two labs with different prefixes run at once with agents and do not see
# each other; 'down' of one leaves the other whole; faults given at 'up'
# are applied and listed; a topology this kernel cannot build (LACP bonds)
# and a bad prefix are refused with nothing left behind.
. "$(dirname "$0")/lib.sh"
need_lab

lab_up flat --agents --fault loss:h2-pub:1
A=$LP
lab_up flat --agents
B=$LP
[ "$A" != "$B" ] || fail "same prefix twice"
for p in "$A" "$B"; do
	out=$(ip netns exec "$p-adm" "$CEPHFAB" -i "/run/cephfab-lab/$p/lab.inv" hosts --json)
	assert_eq "$?" 0 "hosts in lab $p"
	assert_eq "$(jq '[.hosts[] | select(.state == "ok")] | length' <<<"$out")" 4 "ok hosts in $p"
done
# Same addresses, separate worlds: A's agents use A's key, B's use B's.
ip netns exec "$A-adm" "$CEPHFAB" -i "/run/cephfab-lab/$A/lab.inv" \
	-k "/run/cephfab-lab/$B/key" hosts >/dev/null 2>&1
assert_eq "$?" 1 "A's agents refuse B's key"
assert_eq "$("$LAB" status "$A" --json | jq -r '.faults[0]')" "loss:h2-pub:1" "fault from up"
ip netns exec "$A-h2" nft list table netdev cflab >/dev/null 2>&1 || fail "loss chain missing"

"$LAB" down "$A" 2>/dev/null
why=$(lab_gone "$A") || fail "after down $A: $why"
out=$(ip netns exec "$B-adm" "$CEPHFAB" -i "/run/cephfab-lab/$B/lab.inv" hosts --json)
assert_eq "$?" 0 "lab $B still whole after $A went down"
"$LAB" down "$B" 2>/dev/null
why=$(lab_gone "$B") || fail "after down $B: $why"

# LACP needs the bonding driver.
if ! ip link add cfbondprobe type bond 2>/dev/null; then
	out=$("$LAB" up lacp --prefix "x$B" 2>&1); rc=$?
	assert_eq "$rc" 2 "lacp without bonding"
	echo "$out" | grep -q "no bonding driver" || fail "lacp message: $out"
	why=$(lab_gone "x$B") || fail "after refused lacp: $why"
else
	ip link del cfbondprobe
	note "this kernel has bonding: lacp refusal not tested"
fi
out=$("$LAB" up flat --prefix "Bad-Prefix" 2>&1); assert_eq "$?" 2 "bad prefix"
out=$("$LAB" up nosuchtopo 2>&1); assert_eq "$?" 2 "unknown topology"
echo "$out" | grep -q "have: .*leafspine" || fail "topology message: $out"
echo "lab_hygiene: ok"
