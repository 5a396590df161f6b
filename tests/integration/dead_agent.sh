#!/usr/bin/env bash
# One agent of three does not answer: the matrix says so once, before
# measuring (not a line per cell), stores its cells without trying them,
# and says once that the agent's tests were not measured, a warning at
# the agent (not an 'unreachable' per pair, nor a network finding at
# all): the run is incomplete (exit 4), never a pass.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
N=$(loopnet)
keygen "$T/key"
printf '[global]\nkey = %s\n' "$T/key" > "$T/inv"
for i in 1 2 3; do
	printf '[host h%d]\nagent = %s.1%d\npublic = %s.1%d\n' "$i" "$N" "$i" "$N" "$i" >> "$T/inv"
done
start_agent a1 "$N.11:7470" "$T/key"
start_agent a2 "$N.12:7470" "$T/key"
"$CEPHFAB" -i "$T/inv" matrix --net public --tests lat,ports --db "$T/m.db" \
	--json "$T/m.json" > "$T/m.txt" 2> "$T/m.err"
assert_eq "$?" 4 "matrix exit with a dead agent"
lines=$(grep -v '^cephfab: matrix run ' "$T/m.err")
assert_eq "$lines" "cephfab: matrix: the agent on h3 does not answer (connect to $N.13:7470: Connection refused): its cells are not measured" "stderr, once"
got=$(jq -r '.findings[] | select(.kind != "high_latency" and .kind != "busy_host") | "\(.kind)|\(.severity)|\(.location.scope)|\(.location.host)|\(.evidence.cause)|\(.evidence.tests)"' "$T/m.json")
# Two latency pairs and four ports directions (a busy machine's latency
# warnings about the live pair aside).
assert_eq "$got" "not_measured|warn|agent|h3|agent_down|6" "one warning at the agent, nothing else"
assert_eq "$(jq -r .verdict "$T/m.json")" incomplete "verdict"
jq -e '[.networks.public.cells[] | select(.src == "h3" or .dst == "h3")] |
	length == 4 and all(.state == "not_measured" and .ports == null and .rtt_p99_us == null and
	(.not_measured | length) >= 1 and all(.not_measured[]; .cause == "agent_down"))' "$T/m.json" >/dev/null ||
	fail "h3's cells: $(jq -c '[.networks.public.cells[] | select(.src == "h3" or .dst == "h3")]' "$T/m.json")"
jq -e '[.networks.public.cells[] | select(.src != "h3" and .dst != "h3")] |
	length == 2 and all(.state == "ok" and .rtt_p99_us != null)' "$T/m.json" >/dev/null ||
	fail "the live pair was not measured: $(jq -c '.networks.public.cells' "$T/m.json")"
