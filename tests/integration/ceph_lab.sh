#!/usr/bin/env bash
# The Ceph adapter against a real Ceph cluster (tests/lab/ceph-lab.sh: a
# mon and a mgr in one host namespace, three OSD hosts, Debian's packages,
# on the lab's flat fabric): the lab reaches all PGs active+clean;
# 'inventory --from-ceph' names the three OSD hosts (and the mon's) with
# their public and cluster addresses and
# the cluster network from the mon's database; the inventory it writes
# drives 'hosts' to every agent; 'ceph-heartbeats' gives Ceph's own
# host x host ping matrix of the back network; 'down' leaves no daemon,
# namespace or file behind.
. "$(dirname "$0")/lib.sh"
need_lab
command -v ceph-osd >/dev/null && command -v ceph-mon >/dev/null &&
	command -v ceph-mgr >/dev/null || skip "no Ceph daemons (scripts/deps.sh install)"
CL=$TOP/tests/lab/ceph-lab.sh
CP="c$(printf '%05x' $(( (RANDOM << 7 ^ $$) % 1048576 )))"
CLEANUPS+=("$CL down $CP")
t0=$(date +%s)
LAB_QUIET=1 "$CL" up "$CP" > /dev/null 2> "$T/up.err" || fail "ceph lab up: $(tail -3 "$T/up.err")"
note "ceph lab up in $(( $(date +%s) - t0 )) s: $("$CL" ceph "$CP" health 2>/dev/null)"
ST=/run/cephfab-lab/$CP
hx() { ip netns exec "$CP-h1" "$@"; }

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

# Ceph's own heartbeat view: a full back-network matrix (the OSDs need
# about a minute of pings before they report any).
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
jq -e '.preflight == [] and (.steps | length) == 18 and
	([.steps[] | select(.gate.kind == "osds_moved") | .gate.osds[]] | sort) == [0, 1, 2]' \
	"$T/plan.json" >/dev/null || fail "plan: $(jq -c '{preflight, n: (.steps | length)}' "$T/plan.json")"
bash -n "$T/plan.sh" || fail "plan script"
# A network no host has: refused, every host named, nothing changed.
before=$(hx ceph -c "$ST/ceph/ceph.conf" -n client.admin config dump -f json 2>/dev/null)
hx "$CEPHFAB" -i "$T/ceph.inv" -k "$ST/key" --json plan --cluster-network 198.21.0.0/24 \
	--ceph-conf "$ST/ceph/ceph.conf" --ceph-name client.admin > "$T/bad.json" 2>/dev/null
assert_eq "$?" 1 "plan exit without addresses in the new network"
jq -e '[.preflight[] | select(.kind == "no_new_address") | .hosts[]] | sort == ["h2", "h3", "h4"]' \
	"$T/bad.json" >/dev/null || fail "preflight: $(jq -c .preflight "$T/bad.json")"
assert_eq "$(hx ceph -c "$ST/ceph/ceph.conf" -n client.admin config dump -f json 2>/dev/null)" "$before" \
	"the cluster's configuration after a refused plan"

LAB_QUIET=1 "$CL" down "$CP" 2>/dev/null
pgrep -f -- "-c $ST/ceph/ceph.conf" > /dev/null && fail "Ceph daemons left"
[ -e "/var/tmp/cephfab-ceph-$CP" ] && fail "OSD files left"
lab_gone "$CP" || fail "lab left"
exit 0
