#!/usr/bin/env bash
# Trust in the field (issue 28), on one machine with loopback agents, as a
# new user would first try the tool: the try-out passes on a healthy
# machine (no MTU black hole at loopback's 65536, bandwidth measured, the
# paths name their port); agents with max_rate are a paced matrix, not
# dead networks (no unreachable, the RTTs shown); a second matrix against
# the same agents waits for the first and completes, or with --no-wait
# refuses to start (exit 2) naming the holder and writing nothing; an
# interrupted run reports 'incomplete' (exit 4, the counts of the
# interrupt line, runs and report alike) and --resume completes it; a
# report of a database that is not there makes none; --prom passes
# promtool.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
loop_cluster 3 h%d
c() { "$CEPHFAB" -i "$T/inv" "$@"; }
# The lab's profile (a 1 Gbit/s floor, a 20 ms RTT limit): loopback on a
# machine busy with other work stays above it, so a finding is a fault.
P=(--profile "$TOP/configs/profiles/lab.conf")

# 1. The try-out: the README's one-machine commands, on a healthy machine.
c matrix "${P[@]}" -t 1 --tests bw,lat,mtu,facts --db "$T/t.db" --json "$T/t.json" > "$T/t.txt" 2> "$T/t.err"
assert_eq "$?" 0 "try-out exit ($(jq -c '[.findings[].summary]' "$T/t.json"); $(tail -2 "$T/t.err"))"
# No error finding; a loaded machine's own warnings (a late probe thread,
# one loopback direction faster than the other) may be there.
jq -e '.verdict == "pass" and ([.findings[] | select(.severity == "error")] | length == 0)' "$T/t.json" > /dev/null ||
	fail "try-out error findings: $(jq -c '[.findings[] | select(.severity == "error") | .summary]' "$T/t.json")"
jq -e '.findings | length == 0' "$T/t.json" > /dev/null || note "try-out warnings: $(jq -c '[.findings[].summary]' "$T/t.json")"
jq -e '[.networks.public.cells[] | .path_mtu == 65535 and .gbps > 0] | all and length == 6' "$T/t.json" > /dev/null ||
	fail "try-out cells: $(jq -c '[.networks.public.cells[] | {path_mtu, gbps}]' "$T/t.json")"
grep -q '^  h1 *public: lo mtu 65536, 1 path to every peer' "$T/t.txt" ||
	fail "try-out paths: $(grep -A3 '^paths:' "$T/t.txt")"
# The agents name the coordinator that authenticated (the preflight's
# STATUS and the facts too): its host name, not an empty one.
grep -q "coordinator $(hostname) (" "$T/a1.log" && ! grep -q "coordinator  (" "$T/a1.log" ||
	fail "the agent's log of the coordinator: $(grep authenticated "$T/a1.log" | head -3)"

# 2. Agents with max_rate = 2G: every bandwidth cell paced within it, none
# refused, no unreachable, the RTT matrix printed with numbers.
for i in 1 2 3; do kill "${PIDS[$((i - 1))]}"; done
PIDS=()
printf 'max_rate = 2G\nallow_targets = %s.0/24\n' "$N" > "$T/rate.conf"
for i in 1 2 3; do start_agent "r$i" "$N.1$i:7470" "$T/key" -c "$T/rate.conf"; done
c matrix "${P[@]}" -t 1 --tests bw,lat --db "$T/r.db" --json "$T/r.json" > "$T/r.txt" 2> "$T/r.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "max_rate matrix exit $rc: $(tail -3 "$T/r.err")"
jq -e '[.findings[] | select(.kind == "unreachable" or .kind == "not_measured" or .kind == "slow_pair" or .kind == "slow_host" or .kind == "fabric_rate")] | length == 0' \
	"$T/r.json" > /dev/null || fail "max_rate findings: $(jq -c '[.findings[].summary]' "$T/r.json")"
jq -e '[.networks.public.cells[] | .paced_gbps == 2 and .gbps > 1.8 and .gbps <= 2.05 and .rtt_p99_us > 0] | all' \
	"$T/r.json" > /dev/null || fail "max_rate cells: $(jq -c '[.networks.public.cells[] | {paced_gbps, gbps, rtt_p99_us}]' "$T/r.json")"
grep -q 'paced at 2.00 Gbit/s each way' "$T/r.txt" || fail "max_rate terminal: $(head -8 "$T/r.txt")"
sed -n '/RTT p99/,/^$/p' "$T/r.txt" | grep -q lost && fail "RTTs shown as lost: $(cat "$T/r.txt")"
# compare: B's change from A on every row both have, the loss row too (it
# was blank: 1096.6 -> 0.0 said nothing), and each run's verdict.
c matrix "${P[@]}" -t 1 --tests bw --db "$T/r.db" > /dev/null 2>&1
"$CEPHFAB" compare --db "$T/r.db" 1 2 > "$T/cmp.txt" 2>&1 || fail "compare: $(cat "$T/cmp.txt")"
grep -Eq '^  loss retrans/GB \(med\) +[0-9.]+ +[0-9.]+ +[+-][0-9.]+$' "$T/cmp.txt" ||
	fail "compare's loss change: $(grep loss "$T/cmp.txt")"
grep -Eq '^  verdict +pass +pass$' "$T/cmp.txt" || fail "compare's verdicts: $(grep verdict "$T/cmp.txt")"
# An explicit --rate above the agents' limit is held to it.
c matrix -t 1 --tests bw --rate 5G --db "$T/r2.db" --json "$T/r2.json" > /dev/null 2>&1
jq -e '[.networks.public.cells[] | .paced_gbps == 2] | all' "$T/r2.json" > /dev/null ||
	fail "--rate over max_rate: $(jq -c '[.networks.public.cells[].paced_gbps]' "$T/r2.json")"

# 3. Two operators at once: the second waits for the first and completes;
# with --no-wait it refuses to start, naming the holder, writing nothing.
"$CEPHFAB" -i "$T/inv" matrix "${P[@]}" -t 3 --tests bw --db "$T/a.db" --json "$T/a.json" > /dev/null 2> "$T/a.err" &
apid=$!
PIDS+=("$apid")
wait_until 10 grep -q 'matrix run 1' "$T/a.err" || fail "first matrix did not start: $(cat "$T/a.err")"
sleep 1
c matrix -t 1 --tests bw --db "$T/nw.db" --no-wait > /dev/null 2> "$T/nw.err"
assert_eq "$?" 2 "--no-wait against busy agents"
grep -q "running tests for coordinator .*; not starting (--no-wait)" "$T/nw.err" ||
	fail "--no-wait message: $(cat "$T/nw.err")"
[ -e "$T/nw.db" ] && fail "--no-wait wrote a database"
c matrix "${P[@]}" -t 1 --tests bw --db "$T/b.db" --json "$T/b.json" > /dev/null 2> "$T/b.err"
assert_eq "$?" 0 "the second matrix ($(tail -2 "$T/b.err"))"
grep -q "waiting for them" "$T/b.err" || fail "the second matrix did not say it waits: $(cat "$T/b.err")"
wait "$apid"; assert_eq "$?" 0 "the first matrix"
for f in a b; do
	jq -e '.verdict == "pass" and .completeness.tests_not_measured == 0 and
		([.networks.public.cells[] | .gbps > 0] | all)' "$T/$f.json" > /dev/null ||
		fail "matrix $f: $(jq -c '{verdict, completeness, f: [.findings[].summary]}' "$T/$f.json")"
done

# 4. Interrupted: incomplete, not pass, the counts alike; --resume ends it.
"$CEPHFAB" -i "$T/inv" matrix "${P[@]}" -t 5 --tests bw,lat --db "$T/i.db" > /dev/null 2> "$T/i.err" &
ipid=$!
PIDS+=("$ipid")
wait_until 20 sh -c "sqlite3 '$T/i.db' 'select count(*) from cells where test = \"bw\"' 2>/dev/null | grep -q '^[1-9]'" ||
	fail "no bandwidth cell stored: $(cat "$T/i.err")"
kill -INT "$ipid"
wait "$ipid"; assert_eq "$?" 4 "interrupted matrix exit"
line=$(grep 'interrupted;' "$T/i.err") || fail "interrupt line: $(cat "$T/i.err")"
stored=$(echo "$line" | sed -n 's/.*; \([0-9]*\) of \([0-9]*\) cells stored.*/\1/p')
planned=$(echo "$line" | sed -n 's/.*; \([0-9]*\) of \([0-9]*\) cells stored.*/\2/p')
[ -n "$stored" ] && [ "$stored" -lt "$planned" ] || fail "interrupt counts: $line"
assert_eq "$(sqlite3 "$T/i.db" 'select count(*) from cells')" "$stored" "cells in the database"
"$CEPHFAB" runs --db "$T/i.db" | grep -Eq "^ +1 .* incomplete +$stored/$planned " ||
	fail "runs: $("$CEPHFAB" runs --db "$T/i.db")"
"$CEPHFAB" report 1 --db "$T/i.db" --json "$T/ir.json" > /dev/null 2> "$T/ir.err"
assert_eq "$?" 4 "report of the interrupted run ($(cat "$T/ir.err"); $(jq -c "[.findings[].summary]" "$T/ir.json"))"
jq -e --argjson s "$stored" --argjson p "$planned" '.verdict == "incomplete" and
	.completeness.cells_stored == $s and .completeness.cells_planned == $p and
	.completeness.cells_missing == ($p - $s) and
	([.findings[] | select(.kind == "not_measured")] | length) == 1' "$T/ir.json" > /dev/null ||
	fail "report of the interrupted run: $(jq -c '{verdict, completeness}' "$T/ir.json")"
"$CEPHFAB" report 1 --db "$T/i.db" 2>/dev/null | grep -q '^verdict: incomplete (' ||
	fail "terminal verdict: $("$CEPHFAB" report 1 --db "$T/i.db" 2>&1 | tail -2)"
"$CEPHFAB" report 1 --db "$T/i.db" --prom "$T/i.prom" > /dev/null 2>&1
grep -q '^cephfab_matrix_verdict{verdict="incomplete"} 1$' "$T/i.prom" || fail "prom verdict: $(grep verdict "$T/i.prom")"
c matrix --db "$T/i.db" --resume 1 --json "$T/res.json" > /dev/null 2> "$T/res.err"
assert_eq "$?" 0 "resume ($(tail -2 "$T/res.err"))"
jq -e '.verdict == "pass" and .completeness.finished and .completeness.cells_missing == 0' "$T/res.json" > /dev/null ||
	fail "resumed: $(jq -c '{verdict, completeness}' "$T/res.json")"
"$CEPHFAB" runs --db "$T/i.db" | grep -Eq "^ +1 .* pass +$planned " || fail "runs after resume: $("$CEPHFAB" runs --db "$T/i.db")"

# 5. Read-only commands never make a database.
"$CEPHFAB" report 1 --db "$T/typo.db" > /dev/null 2> "$T/typo.err"
assert_eq "$?" 2 "report of a missing database"
[ "$(wc -l < "$T/typo.err")" = 1 ] && grep -q "typo.db: no results database there" "$T/typo.err" ||
	fail "missing database message: $(cat "$T/typo.err")"
"$CEPHFAB" runs --db "$T/typo.db" > /dev/null 2>&1; assert_eq "$?" 2 "runs of a missing database"
"$CEPHFAB" compare 1 2 --db "$T/typo.db" > /dev/null 2>&1; assert_eq "$?" 2 "compare of a missing database"
[ -e "$T/typo.db" ] && fail "a read-only command made $T/typo.db"

# 6. The Prometheus file passes promtool's own check.
if command -v promtool > /dev/null; then
	"$CEPHFAB" report 1 --db "$T/r.db" --prom "$T/r.prom" > /dev/null 2>&1
	promtool check metrics < "$T/r.prom" > "$T/pt" 2>&1 || fail "promtool: $(cat "$T/pt")"
fi
exit 0
