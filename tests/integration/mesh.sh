#!/usr/bin/env bash
# The latency mesh (one echo responder and one runner per agent) on a
# 6-host flat lab: every ordered pair answers every probe; 20 % loss on
# h3's cluster port shows on h3's pairs and on no other; the matrix's
# --lat-mesh stores one cell per pair in the report's usual shape; an
# agent killed before the run makes its pairs 'lost' with the reason, the
# others are measured, and the report says once that the agent's tests
# were not measured (a warning at the agent, not an 'unreachable'
# network): the run is incomplete, exit 4.
. "$(dirname "$0")/lib.sh"
need_lab
printf 'design = flat\nhosts = 6\nhost_mbit = 1000\nmtu = 9000\n' > "$T/six.topo"
lab_up "$T/six.topo" --agents --fault loss:h3-clu:20

cf mesh --net public --json --count 50 > "$T/pub.json"
rc=$?
assert_eq "$rc" 0 "public mesh exit"
jq -e '(.results | length) == 30 and .errors == [] and
	all(.results[]; .sent == 50 and .received == 50 and .rtt.p99_us > 0 and
	    .rtt.min_us <= .rtt.p50_us and .rtt.p50_us <= .rtt.p99_us)' \
	"$T/pub.json" >/dev/null || fail "public mesh: $(head -c 600 "$T/pub.json")"
# Ordered pairs: each host probed each other one.
assert_eq "$(jq -r '[.results[] | "\(.from)>\(.to)"] | unique | length' "$T/pub.json")" 30 "distinct pairs"

cf mesh --net cluster --json --count 100 > "$T/clu.json"
assert_eq "$?" 1 "lossy cluster mesh exit"
# Loss only where h3 is an end: 20 % each way, so a round trip loses ~36 %.
jq -e '[.results[] | select(.from != "h3" and .to != "h3") | .received == .sent] | all' \
	"$T/clu.json" >/dev/null || fail "loss away from h3"
jq -e '[.results[] | select(.from == "h3" or .to == "h3") | .received / .sent] |
	length == 10 and all(. > 0.4 and . < 0.85)' "$T/clu.json" >/dev/null ||
	fail "loss on h3's pairs: $(jq -c '[.results[] | select(.from == "h3" or .to == "h3") | .received]' "$T/clu.json")"

# The matrix through the mesh: one cell per unordered pair and network.
kill -9 "$(cat "$LST/agent-h5.pid")"
cf matrix --tests lat --lat-mesh --db "$T/m.db" --json "$T/m.json" > "$T/m.txt" 2> "$T/m.err"
assert_eq "$?" 4 "matrix with h5 gone ($(jq -c '[.findings[].summary]' "$T/m.json"))"
assert_eq "$(sqlite3 "$T/m.db" "select count(*) from cells where test = 'lat'")" 30 "lat cells"
assert_eq "$(sqlite3 "$T/m.db" "select count(*) from cells where test = 'lat' and state = 'lost' and (src = 'h5' or dst = 'h5')")" 10 "h5's cells lost"
assert_eq "$(sqlite3 "$T/m.db" "select count(*) from cells where state = 'lost' and src != 'h5' and dst != 'h5'")" 0 "other cells lost"
# h3's cluster pairs lose probes: a per-pair retest would wait out every
# lost probe (and fail, leaving the first measurement); none is retested.
assert_eq "$(sqlite3 "$T/m.db" "select count(*) from cells where network = 'cluster' and
	(src = 'h3' or dst = 'h3') and json_extract(data, '\$.retested')")" 0 "lossy pairs retested"
sqlite3 "$T/m.db" "select data from cells where state = 'lost' limit 1" | grep -q "h5\|agent\|connect" ||
	fail "lost reason: $(sqlite3 "$T/m.db" "select data from cells where state = 'lost' limit 1")"
jq -e '.verdict == "incomplete" and ([.findings[] | select(.kind == "unreachable")] | length) == 0 and
	([.findings[] | select(.kind == "not_measured") | .location.host] | unique) == ["h5"] and
	all(.findings[] | select(.kind == "not_measured"); .evidence.cause == "agent_down")' "$T/m.json" >/dev/null ||
	fail "h5's agent down: $(jq -c '[.verdict, .findings]' "$T/m.json")"
jq -e '[.networks.public.cells[] | select(.src != "h5" and .dst != "h5") | .rtt_p99_us > 0] | all' \
	"$T/m.json" >/dev/null || fail "RTT in the report"
grep -q "RTT p99" "$T/m.txt" || fail "terminal RTT grid"
exit 0
