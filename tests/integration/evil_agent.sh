#!/usr/bin/env bash
# A hostile agent holding the key (root on any node has it) answers the
# coordinator over the real protocol with names of hundreds of bytes, a
# bond of forty such members all down, wrong types, huge counts and
# replies nobody asked for (tests/integration/evil_agent.py). hosts
# --facts, a matrix and report neither crash nor hang (in make check's
# second round under ASan+UBSan, which would report any overflow); the
# honest agent's results stand, the hostile one is reported as failing
# with a one-line reason, and the output is whole JSON.
. "$(dirname "$0")/lib.sh"
N=$(loopnet)
keygen "$T/key"
start_agent good "$N.11:7470" "$T/key"
python3 "$TOP/tests/integration/evil_agent.py" "$T/key" "$N.12" 7470 120 > "$T/evil.log" 2>&1 &
EVIL=$!
PIDS+=($EVIL)
wait_until 5 grep -q listening "$T/evil.log" || fail "the hostile agent did not start: $(cat "$T/evil.log")"
printf '[global]\nkey = %s\n[host good]\nagent = %s.11\npublic = %s.11\n[host evil]\nagent = %s.12\npublic = %s.12\n' \
	"$T/key" "$N" "$N" "$N" "$N" > "$T/inv"

timeout 60 "$CEPHFAB" --connect-timeout 5 -i "$T/inv" hosts --facts --json > "$T/h.json" 2> "$T/h.err"
rc=$?
note "hosts --facts: exit $rc, $(jq -c '[.hosts[] | {name, state}]' "$T/h.json" 2>/dev/null)"
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "hosts --facts exit $rc: $(tail -3 "$T/h.err")"
jq -e '.hosts | length == 2' "$T/h.json" >/dev/null || fail "hosts JSON: $(head -c 400 "$T/h.json")"
assert_eq "$(jq -r '.hosts[] | select(.name == "good") | .state' "$T/h.json")" ok "the honest agent"
# Its forty members, each named with 300 bytes, all down: one bounded
# finding (the old code wrote past a 384-byte buffer here).
grep -q "bond_degraded" "$T/h.json" || fail "no bond finding from the hostile facts"
jq -e '[.. | .summary? // empty | strings | length] | max < 1000' "$T/h.json" >/dev/null ||
	fail "an unbounded summary"
timeout 60 "$CEPHFAB" --connect-timeout 5 -i "$T/inv" hosts --facts > "$T/h.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "hosts --facts (text) exit $rc: $(tail -3 "$T/h.txt")"
[ "$(awk '{ if (length($0) > 2000) n++ } END { print n + 0 }' "$T/h.txt")" -eq 0 ] ||
	fail "an unbounded line in the table"

timeout 300 "$CEPHFAB" --connect-timeout 5 -i "$T/inv" matrix --tests bw,lat,mtu,ports -t 1 --db "$T/m.db" \
	--json "$T/m.json" --html "$T/m.html" --junit "$T/m.xml" > "$T/m.txt" 2>&1
rc=$?
note "matrix: exit $rc, $(jq -c '[.findings[] | .kind]' "$T/m.json" 2>/dev/null)"
assert_eq "$rc" 1 "matrix exit with a hostile agent ($(tail -3 "$T/m.txt"))"
jq -e '.verdict == "fail" and (.findings | length) >= 1' "$T/m.json" >/dev/null ||
	fail "matrix JSON: $(head -c 400 "$T/m.json")"
# Nothing not measured reads as passed: the lost cells carry no port
# state, and no JUnit testcase of the hostile pairs passes (each fails or
# is skipped, "not measured").
jq -e '[.networks[].cells[] | select(.state == "lost")] | length > 0 and all(.ports == null)' \
	"$T/m.json" >/dev/null || fail "lost cells: $(jq -c '[.networks[].cells[] | {state, ports}]' "$T/m.json")"
python3 - "$T/m.xml" <<'PY' || fail "JUnit passes what was not measured"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
cases = [c for c in r.iter("testcase") if "evil" in c.get("name")]
assert cases and all(c.find("failure") is not None or c.find("skipped") is not None
                     for c in cases), [ET.tostring(c)[:200] for c in cases]
PY
timeout 60 "$CEPHFAB" -i "$T/inv" report 1 --db "$T/m.db" > "$T/r.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "report exit $rc: $(tail -3 "$T/r.txt")"
# A test that failed before any stream reported has no rate, and is not
# "fair": null, not 0 and 1.
sqlite3 "$T/m.db" "select data from cells where test='bw' and state='lost'" |
	jq -s -e 'length > 0 and all(.end.sum | type == "object" and .bits_per_second == null and .jain_fairness == null)' \
	>/dev/null || fail "a failed test's sums: $(sqlite3 "$T/m.db" "select data from cells where test='bw'" | jq -c '.end.sum' | head -2)"
# "-" is standard output for every output file, as for --json; one at a
# time.
(cd "$T" && "$CEPHFAB" -i "$T/inv" report 1 --db "$T/m.db" --csv - > "$T/csv.out" 2>/dev/null)
assert_eq "$(head -1 "$T/csv.out")" "network,src,dst,state,gbps,loss_retransmits_per_gb,rtt_p50_us,rtt_p99_us,path_mtu,configured_mtu,ports" \
	"--csv - on standard output"
[ -e "$T/-" ] && fail "--csv - wrote a file named -"
out=$("$CEPHFAB" -i "$T/inv" report 1 --db "$T/m.db" --csv - --junit - 2>&1); rc=$?
assert_eq "$rc" 2 "two outputs on standard output"
assert_eq "$out" "cephfab: report: --junit -: only one output can go to standard output" "stdout conflict"
# The honest agent is still fine.
"$CEPHFAB" -i "$T/inv" hosts --json 2>/dev/null | jq -e '.hosts[] | select(.name == "good") | .state == "ok"' \
	>/dev/null || fail "the honest agent after the hostile one"
