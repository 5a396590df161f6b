#!/usr/bin/env bash
# The real Ceph cluster (tests/lab/ceph-lab.sh: a mon and a mgr in one host
# namespace, three OSD hosts, Debian's packages, size 3 / min_size 2, on
# the lab's flat fabric; old cluster network 198.19.0.0/24, new
# 198.20.0.0/24 on every host), built once for the adapter and the
# cutover, with a rados client writing checksummed objects the whole time:
#  A. 'inventory --from-ceph' names the three OSD hosts (and the mon's)
#     with their public and cluster addresses and the cluster network from
#     the mon's database; the inventory it writes drives 'hosts' to every
#     agent; 'ceph-heartbeats' gives Ceph's own host x host ping matrix of
#     the back network, and the matrix shows it beside its own RTT.
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
#     client saw no error; its longest stall is reported. 'down' leaves no
#     daemon, namespace or file behind.
# One build of the cluster for both halves: it is most of their minutes
# (the OSDs also need a minute of pings before Ceph reports heartbeats,
# which the preflight refusals of part 1 fill).
# build: product (Ceph's daemons settling take its minutes, not our code;
# the ceph JSON is fuzzed and the planner unit-tested under the sanitizers)
# beside: its ten minutes are Ceph's daemons peering and settling, which
# need little CPU: it runs beside the round's other scenarios
. "$(dirname "$0")/lib.sh"
need_lab
command -v ceph-osd >/dev/null && command -v ceph-mon >/dev/null &&
	command -v ceph-mgr >/dev/null && command -v rados >/dev/null ||
	skip "no Ceph daemons (scripts/deps.sh install)"
CL=$TOP/tests/lab/ceph-lab.sh
CP="c$(printf '%05x' $(( (RANDOM << 7 ^ $$) % 1048576 )))"
CLEANUPS+=("$CL down $CP")
t0=$(date +%s)
LAB_QUIET=1 "$CL" up "$CP" > /dev/null 2> "$T/up.err" || fail "ceph lab up: $(tail -3 "$T/up.err")"
note "ceph lab up in $(( $(date +%s) - t0 )) s: $("$CL" ceph "$CP" health 2>/dev/null)"
ST=/run/cephfab-lab/$CP
CONF=$ST/ceph/ceph.conf
OLD=198.19.0.0/24
NEW=198.20.0.0/24
hx() { ip netns exec "$CP-h1" "$@"; }
cx() { hx timeout 30 ceph -c "$CONF" -n client.admin "$@"; }
CO=(--ceph-conf "$CONF" --ceph-name client.admin)
RESTART=(--restart-cmd "$CL restart-osd $CP {osd}")
cf() { hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" "$@"; }
osd_nets() { cx osd dump -f json | jq -r '[.osds[] | .cluster_addrs.addrvec[0].addr | split(":")[0]] | join(" ")'; }
restarts() { awk -v o="osd.$1" '$2 == o' "$ST/ceph/restarts.log" 2>/dev/null | wc -l; }

# A. The adapter: the inventory from the cluster.
hx "$CEPHFAB" inventory --from-ceph --ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin \
	--out "$T/ceph.inv" || fail "inventory --from-ceph"
"$CEPHFAB" -i "$T/ceph.inv" -k "/run/cephfab-lab/$CP/key" check > /dev/null || fail "the written inventory does not check: $(cat "$T/ceph.inv")"
for i in 2 3 4; do
	pub=$(awk -v h="h$i" '$1 == h {print $2}' "$ST/hosts")
	clu=$(awk -v h="h$i" '$1 == h {print $3}' "$ST/hosts")
	grep -A4 "^\[host h$i\]" "$T/ceph.inv" | grep -q "^public = $pub$" || fail "h$i public: $(cat "$T/ceph.inv")"
	grep -A5 "^\[host h$i\]" "$T/ceph.inv" | grep -q "^cluster = $clu$" || fail "h$i cluster"
done
grep -q "^cluster_network = $(sed 's/ /\n/g' "$ST/nets" | sed -n 's/^cluster_network=//p')$" "$T/ceph.inv" ||
	fail "cluster network: $(cat "$T/ceph.inv")"
# Three OSD hosts and the mon's host.
assert_eq "$(grep -c '^\[host ' "$T/ceph.inv")" 4 "hosts in the inventory"
grep -A3 '^\[host h1\]' "$T/ceph.inv" | grep -q "a mon" || fail "the mon host: $(cat "$T/ceph.inv")"
# It drives the agents.
hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" hosts --json > "$T/h.json" || fail "hosts: $(cat "$T/h.json")"
assert_eq "$(jq '[.hosts[] | select(.state == "ok")] | length' "$T/h.json")" 4 "agents reached"
# A cluster the CLI cannot reach: a clear error, exit 3.
hx "$CEPHFAB" --connect-timeout 3 inventory --from-ceph --ceph-conf /nonexistent.conf 2> "$T/e"
assert_eq "$?" 3 "unreachable cluster exit"
[ "$(wc -l < "$T/e")" = 1 ] || fail "error message: $(cat "$T/e")"

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
# Refused: the plan's steps are not in the document (nothing can run
# them), the check that failed says so, and the terminal says the refusal
# first and stops there.
jq -e '.refused and (has("steps") | not) and
	([.checks[] | select(.check == "old_to_new")][0].result == "blocked")' "$T/bad.json" >/dev/null ||
	fail "refused plan: $(jq -c '{refused, checks, steps: (.steps | length)}' "$T/bad.json")"
cf plan --cluster-network "$NEW" "${CO[@]}" --out "$T/refused.json" > "$T/refused.txt" 2> "$T/refused.err"
assert_eq "$?" 1 "plan exit, refused, on a terminal"
head -1 "$T/refused.txt" | grep -q "^REFUSED: the preflight found" || fail "refusal first: $(head -3 "$T/refused.txt")"
grep -q "^Step\|^step\|^ *[0-9][0-9]*\. " "$T/refused.txt" && fail "a refused plan printed its steps: $(cat "$T/refused.txt")"
hx "$CEPHFAB" migrate --plan "$T/refused.json" --execute "${CO[@]}" > "$T/mr.txt" 2>&1
[ "$?" != 0 ] && grep -q "preflight refused" "$T/mr.txt" || fail "migrate of a refused plan: $(cat "$T/mr.txt")"
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

# A (continued). Ceph's own heartbeat view: a full back-network matrix
# (the OSDs need about a minute of pings before they report any; part 1
# took most of it).
full() { hx "$CEPHFAB" ceph-heartbeats --ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin --json |
	jq -e '.interfaces.back.cells | length == 6 and all(.[]; .avg_1min_ms > 0)'; }
t1=$(date +%s)
wait_until 150 full || fail "no full heartbeat matrix: $(hx "$CEPHFAB" ceph-heartbeats --ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin --json)"
note "heartbeat matrix after $(( $(date +%s) - t1 )) s more: $(hx "$CEPHFAB" ceph-heartbeats --ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin --json | jq -c '[.interfaces.back.cells[] | .avg_1min_ms]')"

# The matrix shows Ceph's view beside its own RTT, pair by pair (the
# public network: the mon's host has no cluster address; OSD pairs have
# Ceph's front heartbeats).
hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" matrix --tests lat --net public \
	--ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin --db "$T/m.db" \
	--json "$T/m.json" > /dev/null 2>&1 || fail "matrix"
jq -e '[.networks.public.cells[] | select(.src != "h1" and .dst != "h1") |
	.ceph_ping_ms > 0 and .rtt_p99_us > 0] | length == 6 and all' \
	"$T/m.json" >/dev/null || fail "Ceph's pings in the matrix: $(jq -c '[.networks.public.cells[] | [.src, .dst, .ceph_ping_ms]]' "$T/m.json")"
# The second cluster network is there for the planner: its preflight
# passes, the plan moves each OSD host in turn, the script parses.
hx ping -c1 -W2 198.20.0.14 > /dev/null || fail "second cluster network"
hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" plan --cluster-network 198.20.0.0/24 \
	--ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin --out "$T/plan.json" \
	--script "$T/plan.sh" > "$T/plan.txt" 2> "$T/plan.err"
assert_eq "$?" 0 "plan preflight ($(cat "$T/plan.err"))"
jq -e '.preflight == [] and (.refused | not) and ([.checks[].result] | all(. == "ok")) and
	(.checks | length) == 8 and (.steps | length) == 18 and
	([.steps[] | select(.gate.kind == "osds_moved") | .gate.osds[]] | sort) == [0, 1, 2]' \
	"$T/plan.json" >/dev/null || fail "plan: $(jq -c '{preflight, n: (.steps | length)}' "$T/plan.json")"
bash -n "$T/plan.sh" || fail "plan script"
# A passing preflight lists what it checked.
[ "$(grep -c '^  ok ' "$T/plan.txt")" = 8 ] || fail "checks listed: $(head -12 "$T/plan.txt")"
# A network no host has: refused, every host named, nothing changed.
before=$(hx ceph -c "$ST/ceph/ceph.conf" -n client.admin config dump -f json 2>/dev/null)
hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" --json plan --cluster-network 198.21.0.0/24 \
	--ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin > "$T/bad.json" 2>/dev/null
assert_eq "$?" 1 "plan exit without addresses in the new network"
jq -e '[.preflight[] | select(.kind == "no_new_address") | .hosts[]] | sort == ["h2", "h3", "h4"]' \
	"$T/bad.json" >/dev/null || fail "preflight: $(jq -c .preflight "$T/bad.json")"
assert_eq "$(hx ceph -c "$ST/ceph/ceph.conf" -n client.admin config dump -f json 2>/dev/null)" "$before" \
	"the cluster's configuration after a refused plan"

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
pgrep -f -- "-c $ST/ceph/ceph.conf" > /dev/null && fail "Ceph daemons left"
[ -e "/var/tmp/cephfab-ceph-$CP" ] && fail "OSD files left"
lab_gone "$CP" || fail "lab left"
exit 0
