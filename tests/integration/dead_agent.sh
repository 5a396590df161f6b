#!/usr/bin/env bash
# One agent of three does not answer: the matrix says so once, before
# measuring (not a line per cell), stores its cells lost without trying
# them, and finds one root cause, the agent, with its four directions as
# evidence (not an 'unreachable' per pair).
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
assert_eq "$?" 1 "matrix exit with a dead agent"
lines=$(grep -v '^cephfab: matrix run ' "$T/m.err")
assert_eq "$lines" "cephfab: matrix: the agent on h3 does not answer (connect to $N.13:7470: Connection refused): its cells are not measured" "stderr, once"
got=$(jq -r '.findings[] | select(.kind == "unreachable") | "\(.location.host)|\(.location.where)|\(.evidence.pairs | sort | join(" "))"' "$T/m.json")
assert_eq "$got" "h3|agent|h1->h3 h2->h3 h3->h1 h3->h2" "one finding at the agent"
jq -e '[.networks.public.cells[] | select(.src == "h3" or .dst == "h3")] |
	length == 4 and all(.state == "lost" and .ports == null and .rtt_p99_us == null)' "$T/m.json" >/dev/null ||
	fail "h3's cells: $(jq -c '[.networks.public.cells[] | select(.src == "h3" or .dst == "h3")]' "$T/m.json")"
jq -e '[.networks.public.cells[] | select(.src != "h3" and .dst != "h3")] |
	length == 2 and all(.state == "ok" and .rtt_p99_us != null)' "$T/m.json" >/dev/null ||
	fail "the live pair was not measured: $(jq -c '.networks.public.cells' "$T/m.json")"
