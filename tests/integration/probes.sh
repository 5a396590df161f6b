#!/usr/bin/env bash
# Probes on the flat lab with real agents: a one-ended MTU fault gives
# mtu_blackhole on exactly the pairs crossing it; DROP on 6800-6810 gives
# 'filtered', REJECT gives 'refused'; on a tbf-capped link the loaded p99
# exceeds the idle p99; a wrong route for the cluster subnet is
# wrong_egress; cross-network reach works and reports its route; runs
# longer than the session idle limit (34 s latency on a lossy link, 33 s
# throughput intervals) return their results.
. "$(dirname "$0")/lib.sh"
need_lab
lab_up flat --agents
kinds() { jq -r '[.findings[].kind] | sort | unique | join(",")' "$1"; }

# Latency: every size reported with percentiles, JSON valid.
cf latency h1 h2 --count 200 --json > "$T/lat.json"; rc=$?
assert_eq "$rc" 0 "latency exit"
jq -e '.results[0].sizes | length == 4 and all(.rtt.count == 200 and .rtt.p50_us > 0 and
	.rtt.p99_us >= .rtt.p50_us and .rtt.max_us >= .rtt.p999_us and (.rtt.buckets | length) > 0)' \
	"$T/lat.json" >/dev/null || fail "latency result: $(head -c 600 "$T/lat.json")"
jq -e '.results[0].sizes[] | select(.size == 2000)' "$T/lat.json" >/dev/null || fail "no 2000 B size"
cf latency h1 h2 --tcp --count 100 --size 64,65536 --json | jq -e '.results[0].sizes | length == 2' >/dev/null ||
	fail "TCP latency"

# MTU: a black hole on h2's cluster link, switch side.
"$LAB" fault "$LP" add mtu:h2-clu:sw:1500 2>/dev/null
cf mtu h1 h2 --json > "$T/m12.json"; assert_eq "$?" 1 "mtu h1 h2 exit"
assert_eq "$(kinds "$T/m12.json")" mtu_blackhole "h1-h2 findings"
jq -e '.results[0].configured == 9000 and .results[0].path < 1600' "$T/m12.json" >/dev/null ||
	fail "h1->h2 path: $(jq -c '.results[0] | {configured, path}' "$T/m12.json")"
cf mtu h1 h3 --json > "$T/m13.json"; assert_eq "$?" 0 "mtu h1 h3 (not crossing)"
cf mtu h3 h4 --json > "$T/m34.json"; assert_eq "$?" 0 "mtu h3 h4 (not crossing)"
cf mtu h1 h2 --net public --json > "$T/m12p.json"; assert_eq "$?" 0 "mtu h1 h2 public"
"$LAB" fault "$LP" del mtu:h2-clu:sw:1500 2>/dev/null

# Ports: DROP -> filtered, REJECT -> refused, others open.
"$LAB" fault "$LP" add block:h2:cluster:6800-6810:drop 2>/dev/null
"$LAB" fault "$LP" add block:h3:cluster:6800-6810:reject 2>/dev/null
cf ports h1 h2 --ports 6800,6805,6900 --json > "$T/p2.json"; assert_eq "$?" 1 "ports h2"
assert_eq "$(jq -r '[.results[0].ports[].state] | join(",")' "$T/p2.json")" "filtered,filtered,open" "h2 ports"
cf ports h1 h3 --ports 6800,6805,6900 --json > "$T/p3.json"; assert_eq "$?" 1 "ports h3"
assert_eq "$(jq -r '[.results[0].ports[].state] | join(",")' "$T/p3.json")" "refused,refused,open" "h3 ports"
assert_eq "$(kinds "$T/p3.json")" port_refused "h3 findings"
cf ports h1 h4 --json > "$T/p4.json"; assert_eq "$?" 0 "default Ceph ports on h4"
jq -e '.results[0].ports | length == 11' "$T/p4.json" >/dev/null || fail "default cluster port sample"

# Loaded vs idle on a 200 Mbit/s link.
"$LAB" fault "$LP" add rate:h2-clu:200 2>/dev/null
# The probes keep their 200/s under the load (pipelined), so the shaper's
# full queue may drop a few of them: probe loss is then the truth, and
# the only finding allowed.
cf latency h1 h2 --size 2000 -t 3 --rate 200 --loaded --json > "$T/load.json"
rc=$?
[ "$rc" = 0 ] || { [ "$rc" = 1 ] && jq -e '[.findings[].kind] | all(. == "probe_loss")' "$T/load.json" >/dev/null; } ||
	fail "loaded latency: exit $rc, $(jq -c .findings "$T/load.json")"
jq -e '[.results[] | .sizes[0].sent] | all(. >= 570)' "$T/load.json" >/dev/null ||
	fail "loaded latency: the rate did not hold: $(jq -c '[.results[] | .sizes[0] | {sent, lost}]' "$T/load.json")"
idle=$(jq '.load.idle_p99_us' "$T/load.json"); loaded=$(jq '.load.loaded_p99_us' "$T/load.json")
note "p99 idle $idle us, loaded $loaded us"
jq -e '.load.loaded_p99_us > .load.idle_p99_us' "$T/load.json" >/dev/null || fail "loaded p99 not higher"
"$LAB" fault "$LP" del rate:h2-clu:200 2>/dev/null
# The throughput child is gone.
wait_until 10 sh -c "! pgrep -f '[c]ephfab -i $INV -k .* pair h1 h2' >/dev/null" || fail "load child left"

# Agents say nothing until a latency run ends, or between two reports of
# a throughput run: a run longer than the session's 30 s idle limit still
# returns its result. Latency for 34 s over a 20 % lossy link (a lost probe
# waits 1 s), a throughput run and a watch reporting every 33 s, side by
# side.
"$LAB" fault "$LP" add loss:h2-clu:20 2>/dev/null
cf latency h1 h2 -t 34 --size 64 --rate 100 --json > "$T/long.json" 2>"$T/long.err" & lpid=$!
cf watch --net public --interval 33 -t 34 --json > "$T/longw.jsonl" 2>"$T/longw.err" & wpid=$!
cf pair h1 h2 --net public -t 34 --interval 33 -b 10M --json > "$T/longp.json" 2>"$T/longp.err"
assert_eq "$?" 0 "33 s interval pair exit ($(cat "$T/longp.err"))"
jq -e '(.intervals | length) >= 1' "$T/longp.json" >/dev/null || fail "33 s interval: no interval"
wait "$wpid"; assert_eq "$?" 0 "33 s interval watch exit ($(cat "$T/longw.err"))"
jq -s -e 'length > 0 and (map(.seq) | max) >= 1' "$T/longw.jsonl" >/dev/null ||
	fail "33 s interval watch: $(head -c 300 "$T/longw.jsonl")"
wait "$lpid"; assert_eq "$?" 1 "34 s lossy latency exit ($(cat "$T/long.err"))"
# Pipelined: the rate holds whatever is lost (3400 probes within 5 %; one
# probe in flight with a 1 s timeout sent 111), and the loss reads true:
# 20 % each way at both ends of the link is 1 - 0.8 * 0.8 = 36 % of round
# trips, within 3 points.
jq -e '.results[0].sizes[0] | .sent >= 3230 and .sent <= 3400 and .rtt.count > 0 and
	(.lost / .sent * 100) >= 33 and (.lost / .sent * 100) <= 39' "$T/long.json" >/dev/null ||
	fail "34 s lossy latency at --rate 100: $(jq -c '.results[0].sizes[0] | {sent, lost}' "$T/long.json")"
note "34 s on 20 % loss: $(jq -c '(.results[0].sizes[0] | {sent, lost}), [.findings[].kind]' "$T/long.json" | tr '\n' ' ')"
"$LAB" fault "$LP" del loss:h2-clu:20 2>/dev/null

# Wrong egress: h1's cluster routes via its public NIC.
"$LAB" fault "$LP" add egress:h1:cluster 2>/dev/null
cf latency h1 h3 --count 20 --json > "$T/eg.json"; assert_eq "$?" 1 "wrong egress exit"
assert_eq "$(kinds "$T/eg.json")" wrong_egress "egress findings"
assert_eq "$(jq -r '.results[0].route.egress_if' "$T/eg.json")" pub "egress interface"
"$LAB" fault "$LP" del egress:h1:cluster 2>/dev/null

# Reach: from h1's public address to h2's cluster address on the flat
# fabric, the kernel rightly sends it out of h1's cluster port (the
# target's network is attached there), and h2 answers: a pass, with no
# wrong_egress (it said one, exit 1). The route says why.
cf reach h1 h2 --from-net cluster --to-net cluster --json > "$T/r1.json"; assert_eq "$?" 0 "reach same net"
cf reach h1 h2 --from-net public --to-net cluster --json > "$T/r2.json"
assert_eq "$?" 0 "reach public -> cluster on a flat fabric ($(jq -c .findings "$T/r2.json"))"
jq -e '.verdict == "pass" and .findings == [] and .results[0].route.egress_if == "clu" and
	.results[0].route.dst_attached' "$T/r2.json" >/dev/null ||
	fail "reach across networks: $(jq -c '{verdict, findings, route: .results[0].route}' "$T/r2.json")"

# Bad input: one clear line, exit 2.
out=$(cf latency h1 h2 --size 10 2>&1); assert_eq "$?" 2 "bad size"
echo "$out" | grep -q "not a list of numbers" || fail "size message: $out"
out=$(cf reach h1 h2 2>&1); assert_eq "$?" 2 "reach without nets"
echo "probes: ok"
