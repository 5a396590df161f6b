#!/usr/bin/env bash
# The cluster_network cutover on a real Ceph cluster (tests/lab/ceph-lab.sh:
# three OSD hosts, size 3 / min_size 2, old network 198.19.0.0/24, new
# 198.20.0.0/24 on every host), with a rados client writing checksummed
# objects the whole time:
#  1. NEW not routable from OLD (nft on every OSD host): 'plan' refuses
#     (exit 1) naming the unreachable pairs; the cluster is unchanged.
#     One pair dead on NEW itself: one preflight finding, for that pair.
#  2. 'migrate --execute', killed with SIGKILL between two hosts, then
#     '--resume': every OSD on NEW, each restarted exactly once, noout
#     unset, HEALTH_OK.
#  3. Back to OLD, with OLD blocked on the second host after the first
#     moved: migrate pauses at that host's gates (exit 1) and restarts no
#     other OSD; unblocked, '--rollback' returns the moved OSDs to NEW.
#  4. Every object the client wrote reads back with its checksum; the
#     client saw no error; its longest stall is reported.
. "$(dirname "$0")/lib.sh"
need_lab
command -v ceph-osd >/dev/null && command -v rados >/dev/null ||
	skip "no Ceph daemons (scripts/deps.sh install)"
CL=$TOP/tests/lab/ceph-lab.sh
CP="m$(printf '%05x' $(( (RANDOM << 7 ^ $$) % 1048576 )))"
CLEANUPS+=("$CL down $CP")
LAB_QUIET=1 "$CL" up "$CP" > /dev/null 2> "$T/up.err" || fail "ceph lab up: $(tail -3 "$T/up.err")"
ST=/run/cephfab-lab/$CP
CONF=$ST/ceph/ceph.conf
OLD=198.19.0.0/24
NEW=198.20.0.0/24
hx() { ip netns exec "$CP-h1" "$@"; }
cx() { hx timeout 30 ceph -c "$CONF" -n client.admin "$@"; }
CO=(--ceph-conf "$CONF" --ceph-name client.admin)
RESTART=(--restart-cmd "$CL restart-osd $CP {osd}")
hx "$CEPHFAB" inventory --from-ceph "${CO[@]}" --out "$T/ceph.inv" || fail "inventory"
cf() { hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" "$@"; }
osd_nets() { cx osd dump -f json | jq -r '[.osds[] | .cluster_addrs.addrvec[0].addr | split(":")[0]] | join(" ")'; }
restarts() { awk -v o="osd.$1" '$2 == o' "$ST/ceph/restarts.log" 2>/dev/null | wc -l; }

# The client: one 64 KiB object every 0.3 s, its SHA-256 logged with the
# put's status and duration; bounded to 20 minutes and by a stop file.
client() {
	local i=0 end=$(( $(date +%s) + 1200 )) t0 rc sum
	while [ -d "$T" ] && [ ! -e "$T/stop" ] && [ "$(date +%s)" -lt "$end" ]; do
		head -c 65536 /dev/urandom > "$T/obj"
		sum=$(sha256sum < "$T/obj" | cut -c1-64)
		t0=$(date +%s%N)
		timeout 120 rados -c "$CONF" -n client.admin -p rbd put "cf-$i" "$T/obj" 2>> "$T/client.err"
		rc=$?
		echo "cf-$i $sum $rc $(( ($(date +%s%N) - t0) / 1000000 ))" >> "$T/client.log"
		i=$((i + 1))
		sleep 0.3
	done
}
# Started directly (ip netns exec execs bash): $! is the loop itself.
ip netns exec "$CP-h1" bash -c "$(declare -f client); T=$T CONF=$CONF; client" &
CLIENT=$!
PIDS+=("$CLIENT")
# Stop the client before the lab goes (cleanups run first to last).
CLEANUPS=("touch $T/stop; kill $CLIENT" "${CLEANUPS[@]}")
wait_until 30 test -s "$T/client.log" || fail "the client wrote nothing: $(tail -3 "$T/client.err")"

# 1. NEW not routable from OLD: refused, pairs named, nothing changed.
for h in h2 h3 h4; do
	ip netns exec "$CP-$h" nft -f - <<EOF || fail "nft on $h"
table inet cfmig {
	chain in { type filter hook input priority 0; ip saddr $OLD ip daddr $NEW drop; ip saddr $NEW ip daddr $OLD drop; }
}
EOF
done
before=$(cx config dump -f json)
cf --json plan --cluster-network "$NEW" "${CO[@]}" > "$T/bad.json" 2> "$T/bad.err"
assert_eq "$?" 1 "plan exit with NEW unreachable from OLD"
jq -e '[.preflight[] | select(.kind == "old_new_unreachable")] | length == 1 and
	(.[0].evidence.pairs | length) == 6 and (.[0].hosts | sort) == ["h2", "h3", "h4"]' \
	"$T/bad.json" >/dev/null || fail "preflight: $(jq -c .preflight "$T/bad.json")"
grep -q "old_new_unreachable: 6 old->new pairs" "$T/bad.err" || fail "message: $(cat "$T/bad.err")"
assert_eq "$(cx config dump -f json)" "$before" "configuration after a refused plan"
for h in h2 h3 h4; do ip netns exec "$CP-$h" nft delete table inet cfmig; done

# 1b. One pair that cannot reach each other on NEW at all (h2 and h3
# drop each other's NEW address): one preflight finding naming that pair,
# not an MTU black hole, a blocked port and an old->new failure for it,
# and nothing for the pairs without a fault.
for x in "h2 198.20.0.13" "h3 198.20.0.12"; do
	set -- $x
	ip netns exec "$CP-$1" nft -f - <<EOF || fail "nft on $1"
table inet cfpair {
	chain in { type filter hook input priority 0; ip saddr $2 drop; }
	chain out { type filter hook output priority 0; ip daddr $2 drop; }
}
EOF
done
t0=$(date +%s)
cf --json plan --cluster-network "$NEW" "${CO[@]}" > "$T/pair.json" 2> "$T/pair.err"
assert_eq "$?" 1 "plan exit with one dead pair on NEW"
note "preflight with one dead pair: $(( $(date +%s) - t0 )) s"
assert_eq "$(jq -r '[.preflight[] | "\(.kind)|\(.hosts | sort | join(","))"] | join(" ")' "$T/pair.json")" \
	"new_network_unreachable|h2,h3" "preflight findings ($(jq -c '[.preflight[].summary]' "$T/pair.json"))"
for h in h2 h3; do ip netns exec "$CP-$h" nft delete table inet cfpair; done

# 2. The migration, killed between two hosts, resumed.
cf plan --cluster-network "$NEW" "${CO[@]}" --out "$T/fwd.json" > /dev/null 2> "$T/fwd.err" ||
	fail "plan: $(cat "$T/fwd.err")"
jq -e '.preflight == []' "$T/fwd.json" >/dev/null || fail "preflight: $(jq -c .preflight "$T/fwd.json")"
hx "$CEPHFAB" migrate --plan "$T/fwd.json" "${CO[@]}" > "$T/dry.txt" || fail "dry run"
grep -q "would run" "$T/dry.txt" && [ ! -e "$T/fwd.json.journal" ] || fail "dry run: $(head -3 "$T/dry.txt")"
: > "$ST/ceph/restarts.log"
# Started directly (ip netns exec execs it): $! is migrate itself.
ip netns exec "$CP-h1" "$CEPHFAB" migrate --plan "$T/fwd.json" --execute "${CO[@]}" "${RESTART[@]}" \
	> "$T/m1.txt" 2>&1 &
MIG=$!
PIDS+=("$MIG")
wait_until 30 grep -q '"event":"step","n":2,' "$T/fwd.json.journal" || fail "migrate did not start: $(cat "$T/m1.txt")"
# A second migrate on the same journal is refused while this one runs.
hx "$CEPHFAB" migrate --plan "$T/fwd.json" --execute --resume "${CO[@]}" "${RESTART[@]}" > "$T/dup.txt" 2>&1
assert_eq "$?" 3 "a second migrate on a busy journal"
grep -q "another migrate is running" "$T/dup.txt" || fail "busy journal: $(cat "$T/dup.txt")"
# Killed once the first host settled, before the second is touched.
first_done() { grep -q '"event":"done","n":6,' "$T/fwd.json.journal"; }
wait_until 300 first_done || fail "first host not done: $(tail -5 "$T/m1.txt")"
kill -9 "$MIG"
wait "$MIG" 2>/dev/null
assert_eq "$(osd_nets)" "198.20.0.12 198.19.0.13 198.19.0.14" "addresses after the kill"
t0=$(date +%s)
# With the inventory: the real cluster traffic watched while settling;
# and migrate's own client probe in the pool the test's client writes to.
hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" migrate --plan "$T/fwd.json" --execute --resume \
	"${CO[@]}" "${RESTART[@]}" --probe-pool rbd > "$T/m2.txt" 2>&1
assert_eq "$?" 0 "resumed migrate ($(tail -3 "$T/m2.txt"))"
grep -Eq "^client probe on pool rbd: [1-9][0-9]* operations, 0 errors \(0 reads with other bytes than written\), longest stall [0-9.]+ s$" "$T/m2.txt" ||
	fail "client probe: $(grep -i probe "$T/m2.txt")"
note "$(grep '^client probe' "$T/m2.txt")"
# The probe removed its objects and left no process.
hx timeout 30 rados -c "$CONF" -n client.admin -p rbd ls | grep -q "^cephfab-probe-" &&
	fail "probe objects left: $(hx timeout 30 rados -c "$CONF" -n client.admin -p rbd ls | grep cephfab-probe)"
pgrep -f -- "migrate --plan $T/fwd.json" > /dev/null && fail "a probe (a child of migrate) is left: $(pgrep -af -- "migrate --plan $T/fwd.json")"
grep -q "cluster network while settling: [1-9][0-9]* samples" "$T/m2.txt" ||
	fail "no watch samples while settling: $(grep -A1 settle "$T/m2.txt" | head -6)"
note "$(grep -m1 "cluster network while settling" "$T/m2.txt" | sed 's/^ *//')"
note "resumed migration: $(( $(date +%s) - t0 )) s; $(tail -1 "$T/m2.txt")"
assert_eq "$(osd_nets)" "198.20.0.12 198.20.0.13 198.20.0.14" "cluster addresses after the migration"
cx osd dump -f json | jq -e --arg n 198.20.0. '[.osds[] | .heartbeat_back_addrs.addrvec[0].addr | startswith($n)] | all' >/dev/null ||
	fail "back heartbeat addresses"
for i in 0 1 2; do assert_eq "$(restarts $i)" 1 "restarts of osd.$i"; done
# The journal says what each gate saw.
grep -q '"observed":"3 of 3 OSDs up on 198.20.0.0/24"\|"observed":"1 of 1 OSDs up on 198.20.0.0/24"' "$T/fwd.json.journal" &&
grep -q '"observed":"[0-9]* of [0-9]* PGs active+clean since epoch' "$T/fwd.json.journal" ||
	fail "observed states in the journal: $(grep observed "$T/fwd.json.journal" | head -3)"
# A gate that passed reads as passed (it read "ok-to-stop refuses: 0 PGs
# would not be ok").
grep -q '"observed":"ok-to-stop: safe to stop' "$T/fwd.json.journal" &&
! grep -q '"observed":"ok-to-stop refuses: 0 PGs' "$T/fwd.json.journal" ||
	fail "ok-to-stop in the journal: $(grep ok-to-stop "$T/fwd.json.journal" | head -3)"
cx osd dump -f json | jq -e '.flags | split(",") | index("noout") == null' >/dev/null || fail "noout left set"
assert_eq "$(cx config get osd.0 cluster_network)" "$NEW" "global cluster_network"
cx config dump | grep -q "^osd\.[0-9].*cluster_network" && fail "per-OSD masks left: $(cx config dump)"
healthy() { [ "$(cx health)" = HEALTH_OK ]; }
wait_until 60 healthy || fail "health after the migration: $(cx health detail)"
# A second --resume finds nothing to do.
hx "$CEPHFAB" migrate --plan "$T/fwd.json" --execute --resume "${CO[@]}" "${RESTART[@]}" | grep -q "nothing to do" ||
	fail "resume of a finished migration"

# 3. Back to OLD; OLD blocked on h3 once h2 moved: a pause, no other restart.
cf plan --cluster-network "$OLD" "${CO[@]}" --out "$T/back.json" > /dev/null 2> "$T/back.err" ||
	fail "plan back: $(cat "$T/back.err")"
: > "$ST/ceph/restarts.log"
ip netns exec "$CP-h1" "$CEPHFAB" migrate --plan "$T/back.json" --execute --inactive-limit 30 \
	"${CO[@]}" "${RESTART[@]}" > "$T/b1.txt" 2>&1 &
MIG=$!
PIDS+=("$MIG")
wait_until 300 grep -q '"event":"done","n":6,' "$T/back.json.journal" || fail "h2 not back: $(tail -5 "$T/b1.txt")"
ip netns exec "$CP-h3" nft -f - <<EOF || fail "nft block on h3"
table inet cfmig {
	chain in { type filter hook input priority 0; ip daddr $OLD drop; }
	chain out { type filter hook output priority 0; ip saddr $OLD drop; }
}
EOF
wait "$MIG"
assert_eq "$?" 1 "migrate exit at the blocked host ($(tail -3 "$T/b1.txt"))"
grep -q "^PAUSED at step \(9\|10\|11\):" "$T/b1.txt" || fail "paused where: $(grep -A1 PAUSED "$T/b1.txt")"
note "$(grep -A1 PAUSED "$T/b1.txt" | tr '\n' ' ')"
assert_eq "$(restarts 2)" 0 "restarts of osd.2 (the host after the blocked one)"
grep -q '"event":"step","n":12,' "$T/back.json.journal" && fail "a step after the pause started"
ip netns exec "$CP-h3" nft delete table inet cfmig
hx "$CEPHFAB" migrate --plan "$T/back.json" --rollback --execute "${CO[@]}" "${RESTART[@]}" > "$T/rb.txt" 2>&1
assert_eq "$?" 0 "rollback ($(tail -5 "$T/rb.txt"))"
assert_eq "$(osd_nets)" "198.20.0.12 198.20.0.13 198.20.0.14" "cluster addresses after the rollback"
assert_eq "$(cx config get osd.1 cluster_network)" "$NEW" "cluster_network after the rollback"
assert_eq "$(restarts 2)" 0 "osd.2 never restarted"
wait_until 60 healthy || fail "health after the rollback: $(cx health detail)"

# 4. The client's objects, all of them, byte for byte.
touch "$T/stop"
wait "$CLIENT"
n=$(wc -l < "$T/client.log")
[ "$n" -gt 100 ] || fail "the client wrote only $n objects"
bad=$(awk '$3 != 0' "$T/client.log" | wc -l)
assert_eq "$bad" 0 "client errors ($(awk '$3 != 0' "$T/client.log" | head -3); $(tail -2 "$T/client.err"))"
while read -r name sum rc ms; do
	hx timeout 60 rados -c "$CONF" -n client.admin -p rbd get "$name" "$T/back" ||
		fail "$name does not read back"
	[ "$(sha256sum < "$T/back" | cut -c1-64)" = "$sum" ] || fail "$name: checksum"
done < "$T/client.log"
note "client: $n objects written and read back, longest stall $(sort -k4 -n "$T/client.log" | tail -1 | cut -d' ' -f4) ms"

LAB_QUIET=1 "$CL" down "$CP" 2>/dev/null
lab_gone "$CP" || fail "lab left"
exit 0
