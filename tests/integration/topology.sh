#!/usr/bin/env bash
# Topology facts and path spread on the dual-plane OSPF lab (each host has
# a link to plane A and plane B and a loopback /32 as its cluster address,
# so every peer has two equal-cost paths). 'hosts --facts' reports links,
# routes with both next hops and FRR's OSPF neighbours, and finds nothing;
# an 8-stream test uses both planes and the agents' counters prove it; a
# single stream leaves one plane unused and says so; with h1's plane-A link
# down, ecmp_single_path names h1 (and the peers that lost a path to it).
. "$(dirname "$0")/lib.sh"
need_lab
command -v vtysh >/dev/null || skip "no FRR"
lab_up ospf-dual --agents

cf hosts --facts --json > "$T/f.json"
assert_eq "$?" 0 "hosts --facts exit on a healthy fabric ($(jq -c .findings "$T/f.json"))"
jq -e '.findings == [] and (.hosts | length) == 3 and all(.hosts[];
	(.facts.links | map(select(.name == "pa" or .name == "pb")) | length) == 2 and
	(.facts.links[] | select(.name == "pa") | .mtu == 9000 and .state == "up" and .counters.rx_bytes > 0) and
	(.facts.frr.ospf_neighbors.neighbors | length) >= 2 and
	.facts.sysctl.fib_multipath_hash_policy != null)' "$T/f.json" >/dev/null ||
	fail "facts: $(jq -c '.hosts[0].facts | {links: [.links[].name], frr: (.frr | keys)}' "$T/f.json")"
# The FIB entry for a peer's loopback: OSPF, one next hop per plane.
jq -e '[.hosts[] | .name as $h | .facts.routes[] | select(.protocol == "ospf") |
	(.nexthops | map(.dev) | sort) == ["pa", "pb"]] | length >= 6 and all' "$T/f.json" >/dev/null ||
	fail "ECMP routes: $(jq -c '.hosts[0].facts.routes' "$T/f.json")"
cf hosts --facts > "$T/f.txt"
grep -q "2 paths to every peer" "$T/f.txt" || fail "summary: $(cat "$T/f.txt")"

# Spread: 8 streams over both planes, each carrying a fair part.
# What h1's kernel routes to h2 with, while the test runs: a CI run once
# saw every stream on plane B, and this says whether plane A's next hop
# was there at all (routing) or the streams hashed so (spread).
h2c=$(awk '$1 == "h2" {print $3}' "$LST/hosts")
(for k in 1 2 3; do sleep 0.8; echo "$(date +%T.%N | cut -c1-12) $(lx h1 ip -o route show "$h2c" | tr -s ' \t' ' ')"; done) > "$T/rt.log" 2>&1 &
rtp=$!; PIDS+=("$rtp")
cf pair h1 h2 --net cluster -P 8 -t 3 --json > "$T/p8.json" || fail "pair -P 8"
wait "$rtp"
jq -e '.end.spread.a.tx | .paths == 2 and .unused == [] and all(.links[]; .share > 0.2)' \
	"$T/p8.json" >/dev/null || fail "8-stream spread: $(jq -c .end.spread.a.tx "$T/p8.json"); streams: $(jq -c '[.end.streams[].sender.bits_per_second / 1e6 | floor]' "$T/p8.json"); h1's route to h2 during the test: $(cat "$T/rt.log")"
jq -e '.end.spread.b.rx | .paths == 2 and all(.links[]; .share > 0.2)' \
	"$T/p8.json" >/dev/null || fail "receiver's spread: $(jq -c .end.spread.b.rx "$T/p8.json")"
note "8 streams: h1 sent $(jq -r '[.end.spread.a.tx.links[] | "\(.name) \(.share * 100 | floor)%"] | join(", ")' "$T/p8.json")"
# One stream hashes onto one plane: the other is named unused.
cf pair h1 h2 --net cluster -P 1 -t 2 --json > "$T/p1.json" || fail "pair -P 1"
jq -e '.end.spread.a.tx.unused | length == 1' "$T/p1.json" >/dev/null ||
	fail "1-stream spread: $(jq -c .end.spread.a.tx "$T/p1.json")"

# Source-port sweep: 12 one-stream tests, each mapped to its plane; both
# planes carry some (all 12 on one: 1 in 2048).
cf pair h1 h2 --net cluster --sport-sweep 12 -t 0.5 --json > "$T/sw.json"
assert_eq "$?" 0 "sweep exit ($(jq -c .coverage "$T/sw.json"))"
jq -e '(.streams | length) == 12 and all(.streams[]; .path == "pa" or .path == "pb") and
	.coverage.pa > 0 and .coverage.pb > 0 and .unused == [] and
	([.streams[].sport] == [range(40000; 40012)])' "$T/sw.json" >/dev/null ||
	fail "sweep: $(jq -c . "$T/sw.json")"
note "sweep of 12 source ports: $(jq -c .coverage "$T/sw.json")"

# The matrix with facts: the paths beside the numbers, and nothing found.
cf matrix --net cluster --tests bw,facts -P 8 -t 2 --profile "$TOP/configs/profiles/lab.conf" \
	--db "$T/m.db" --json "$T/m.json" > /dev/null 2>&1
assert_eq "$?" 0 "matrix with facts ($(jq -c .findings "$T/m.json"))"
jq -e '(.topology | length) == 3 and all(.topology[]; .cluster.paths_min == 2 and .cluster.paths_max == 2 and
	(.cluster.text | test("2 paths to every peer")))' \
	"$T/m.json" >/dev/null || fail "matrix topology: $(jq -c .topology "$T/m.json")"
assert_eq "$(sqlite3 "$T/m.db" "select count(*) from cells where test = 'facts'")" 3 "facts cells"

# A plane link down: h1 keeps one path.
"$LAB" fault "$LP" add down:h1-pa 2>/dev/null || fail "fault add"
one_path() { cf hosts --facts --json | jq -e '[.findings[] | select(.kind == "ecmp_single_path") | .hosts[0]] | index("h1") != null' ; }
wait_until 15 one_path || fail "no ecmp_single_path for h1: $(cf hosts --facts --json | jq -c .findings)"
cf hosts --facts --json > "$T/d.json"
assert_eq "$?" 1 "hosts --facts exit with a path down"
assert_eq "$(jq -r '[.findings[] | select(.kind == "ecmp_single_path" and .network == "cluster") | .hosts[0]] | sort | join(",")' "$T/d.json")" \
	"h1,h2,h3" "hosts that lost a path"
jq -e '.findings[] | select(.hosts[0] == "h1") | .evidence.paths == 1 and .evidence.expected_paths == 2' \
	"$T/d.json" >/dev/null || fail "evidence"
# The matrix says the same, and fails.
cf matrix --net cluster --tests bw,facts -P 8 -t 2 --profile "$TOP/configs/profiles/lab.conf" \
	--db "$T/m.db" --json "$T/md.json" > /dev/null 2>&1
assert_eq "$?" 1 "matrix exit with a path down"
jq -e '[.findings[] | select(.kind == "ecmp_single_path") | .hosts[0]] | index("h1") != null' \
	"$T/md.json" >/dev/null || fail "matrix findings: $(jq -c .findings "$T/md.json")"
# compare: the two designs (both planes, one plane lost) side by side.
cf --json compare --db "$T/m.db" 1 2 > "$T/c.json" || fail "compare"
# How many directed pairs used both planes, from the stored cells: random
# source ports put all 8 streams of one direction on one plane now and
# then (CI saw it twice in a row: hashing is not a coin per stream here),
# so the count is checked against the cells, not assumed to be 6.
full=$(sqlite3 "$T/m.db" "select sum((coalesce(json_extract(data, '\$.end.spread.a.tx.paths'), 0) >= 2 and
	json_array_length(data, '\$.end.spread.a.tx.unused') = 0) +
	(coalesce(json_extract(data, '\$.end.spread.b.tx.paths'), 0) >= 2 and
	json_array_length(data, '\$.end.spread.b.tx.unused') = 0))
	from cells where run = 1 and network = 'cluster' and test = 'bw'")
note "run 1: $full of 6 directed pairs used both planes"
[ "$full" -ge 3 ] || fail "only $full of 6 directed pairs used both planes"
jq -e --arg sp "$full of 6 pairs used every path" '.networks.cluster | (.design_a.paths | test("2 paths to every peer")) and
	(.design_b.paths | test("2 paths to every peer") | not) and
	.design_a.spread == $sp and .design_a.streams == 8 and
	(.design_a.routing | test("OSPF"))' "$T/c.json" >/dev/null ||
	fail "compare design: $(jq -c '.networks.cluster | {design_a, design_b}' "$T/c.json")"
cf compare --db "$T/m.db" 1 2 | grep -q "paths" || fail "compare table"
exit 0
