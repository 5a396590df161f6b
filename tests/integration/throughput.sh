#!/usr/bin/env bash
# The throughput engine on the flat lab, end to end with real agents:
# a 200 Mbit/s tbf cap is measured within 5 %; 1 % loss shows retransmits
# at the sender and out-of-order arrivals at the receiver; reordering shows
# spurious retransmits (DSACK) that do not count as loss; reverse mode
# reports the sender's TCP_INFO; UDP over 2 % drop reports 2 +- 0.5 % loss;
# a second test gets 'busy' naming the holder; the agent's limits refuse
# with the limit named; data connections need the test's token; nothing
# outlives a test; killing the server agent ends the client within 2 s.
# build: product (it judges speed: a tbf cap measured within 5 %)
# alone: a tbf cap judged within 5 % (nothing runs beside it)
. "$(dirname "$0")/lib.sh"
need_lab
lab_up flat --agents
res() { cf hosts --json | jq -r --arg h "$1" --arg f "$2" '.hosts[] | select(.name == $h) | .[$f]'; }
fds0=$(res h2 fds); thr0=$(res h2 threads)
# whole FILE SECS: every interval of a SECS-second test, the last one
# too (the test's end and the last interval's timer fall together, and
# the end used to win half the time).
whole() {
	assert_eq "$(jq '.intervals | length' "$1")" "$2" "intervals of a $2 s test ($(jq -c '[.intervals[] | .end]' "$1"))"
}

# 1. The tbf cap, 200 Mbit/s on h2's cluster link.
"$LAB" fault "$LP" add rate:h2-clu:200 2>/dev/null || fail "rate fault"
cf pair h1 h2 -t 4 -P 2 --json > "$T/cap.json"; rc=$?
assert_eq "$rc" 0 "pair under a cap"
whole "$T/cap.json" 4
bps=$(jq '.end.sum.bits_per_second' "$T/cap.json")
note "200 Mbit/s cap measured $(jq -n "$bps / 1e6 | floor") Mbit/s"
jq -e '.end.sum.bits_per_second >= 190e6 and .end.sum.bits_per_second <= 210e6' "$T/cap.json" >/dev/null ||
	fail "cap 200 Mbit/s measured $bps"
jq -e '(.intervals | length) >= 3 and (.end.streams | length) == 2 and
	(.end.streams[] | .sender.bytes > 0 and .receiver.bytes > 0) and
	.start.a.host == "h1" and .start.b.port > 0 and
	.end.cpu.a.wall > 0 and .end.sum.jain_fairness > 0' "$T/cap.json" >/dev/null ||
	fail "result tree incomplete"
# The efficient receive (no copy, a low-water mark tuned to the rate):
# the same sum, and every interval after the first counted as it arrived,
# not in lumps.
cf pair h1 h2 -t 4 -P 2 --skip-rx-copy --json > "$T/capx.json" || fail "pair --skip-rx-copy"
whole "$T/capx.json" 4
note "--skip-rx-copy: $(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor] | map(tostring) | join(" ")' "$T/capx.json") Mbit/s per interval"
jq -e '.end.sum.bits_per_second >= 190e6 and .end.sum.bits_per_second <= 210e6 and
	(.intervals | length) >= 4 and
	all(.intervals[1:][]; .sum.bits_per_second >= 170e6 and .sum.bits_per_second <= 230e6)' \
	"$T/capx.json" >/dev/null || fail "--skip-rx-copy under the cap: $(jq -c '[.end.sum.bits_per_second, [.intervals[].sum.bits_per_second]]' "$T/capx.json")"
"$LAB" fault "$LP" del rate:h2-clu:200 2>/dev/null

# 2. 1 % loss: both ends see it.
"$LAB" fault "$LP" add loss:h1-clu:1 2>/dev/null || fail "loss fault"
cf pair h1 h2 -t 3 --json > "$T/loss.json" || fail "pair with loss"
whole "$T/loss.json" 3
r=$(jq '.end.sum.retransmits' "$T/loss.json"); o=$(jq '.end.sum.receiver_out_of_order' "$T/loss.json")
note "1 % loss: sender retransmits $r, receiver out-of-order $o"
[ "$r" -gt 0 ] && [ "$o" -gt 0 ] || fail "loss not reported by both ends ($r, $o)"
# Real loss: the retransmissions filled holes; few were spurious.
jq -e '.end.sum.spurious_retransmits * 2 < .end.sum.retransmits and
	.end.sum.loss_retransmits_per_gb > 0' "$T/loss.json" >/dev/null ||
	fail "loss counted as spurious: $(jq -c '.end.sum' "$T/loss.json")"
"$LAB" fault "$LP" del loss:h1-clu:1 2>/dev/null

# 2b. Reordering, nothing lost: 1 % of the packets held back behind a slow
# class. TCP retransmits them in vain and the receiver reports each
# duplicate (DSACK): spurious retransmits, which do not count as loss.
"$LAB" fault "$LP" add reorder:h1-clu:1 2>/dev/null || fail "reorder fault"
cf pair h1 h2 -t 3 --json > "$T/reo.json" || fail "pair over a reordering link"
whole "$T/reo.json" 3
note "1 % reordered: $(jq -r '.end.sum | "\(.retransmits) retransmits (\(.retransmits_per_gb | floor) per GB), \(.spurious_retransmits) spurious, \(.loss_retransmits_per_gb | floor) loss retransmits per GB"' "$T/reo.json")"
jq -e '.end.sum.retransmits >= 20 and
	.end.sum.spurious_retransmits >= 0.8 * .end.sum.retransmits and
	.end.sum.loss_retransmits_per_gb * 4 < .end.sum.retransmits_per_gb and
	.end.streams[0].sender.spurious_retransmits > 0 and
	([.intervals[].sum.spurious_retransmits] | add) > 0' "$T/reo.json" >/dev/null ||
	fail "spurious retransmits: $(jq -c '.end.sum' "$T/reo.json")"
"$LAB" fault "$LP" del reorder:h1-clu:1 2>/dev/null || fail "reorder fault del"
lx h1 tc qdisc show dev clu | grep -q "tbf.*rate 1Gbit" || fail "link rate not restored: $(lx h1 tc qdisc show dev clu)"

# 3. Reverse: h2 sends, and its TCP_INFO is what we get.
cf pair h1 h2 -t 2 -R --json > "$T/rev.json" || fail "pair -R"
whole "$T/rev.json" 2
jq -e '.end.streams[0].direction == "h2->h1" and .end.streams[0].sender.rtt_us > 0 and
	.end.streams[0].sender.snd_cwnd > 0 and .end.streams[0].sender.retransmits >= 0 and
	.end.sum.limited_by != null' "$T/rev.json" >/dev/null || fail "reverse lacks sender TCP_INFO"

# 4. UDP at 50 Mbit/s through 2 % drop on h2's cluster link.
"$LAB" fault "$LP" add loss:h2-clu:2 2>/dev/null || fail "loss fault 2"
cf pair h1 h2 -t 4 --udp --rate 50M --json > "$T/udp.json" || fail "pair --udp"
whole "$T/udp.json" 4
lp=$(jq '.end.sum.lost_percent' "$T/udp.json")
note "UDP over 2 % drop: $lp % lost of $(jq '.end.sum.expected' "$T/udp.json")"
jq -e '.end.sum.lost_percent >= 1.5 and .end.sum.lost_percent <= 2.5' "$T/udp.json" >/dev/null ||
	fail "UDP loss $lp % not 2 +- 0.5"
"$LAB" fault "$LP" del loss:h2-clu:2 2>/dev/null

# 5. Busy: h2 is held by a test; a second one is refused, naming it.
cf pair h1 h2 -t 4 > "$T/first.txt" 2>&1 &
first=$!; PIDS+=("$first")
wait_until 5 sh -c "ip netns exec $LP-adm $CEPHFAB -i $INV hosts --json | jq -e '.hosts[] | select(.name == \"h2\") | .busy'"
# Running another coordinator's test is healthy: ok, with what it does
# said, and no failure for it.
cf hosts --json > "$T/busy.json"; assert_eq "$?" 0 "hosts while an agent tests"
assert_eq "$(jq -r '.hosts[] | select(.name == "h2") | .state + "/" + .detail' "$T/busy.json")" \
	"ok/running a test" "a testing agent's state"
out=$(cf pair h3 h2 -t 1 2>&1); rc=$?
assert_eq "$rc" 3 "second test exit"
echo "$out" | grep -q "is running test .* for coordinator" || fail "busy message: $out"
wait "$first"; assert_eq "$?" 0 "first test"

# 6. Limits: refused with the limit named, nothing sent.
out=$(cf pair h1 h2 -P 200 -t 1 2>&1); assert_eq "$?" 3 "too many streams"
echo "$out" | grep -q "limit max_streams = 128" || fail "max_streams: $out"
out=$(cf pair h1 h2 -t 400 2>&1); assert_eq "$?" 3 "too long"
echo "$out" | grep -q "limit max_duration = 300" || fail "max_duration: $out"
K=$LST/key
ip netns exec "$LP-adm" python3 "$TOP/tests/integration/cfproto.py" "$K" 198.18.255.11 7470 \
	limit 198.19.0.11 203.0.113.9 "allow_targets" >/dev/null || fail "allow_targets not enforced"

# 7. Tokens: strangers are closed at once; the listener closes when full.
# From h1: a stranger on the cluster network.
ip netns exec "$LP-h1" python3 "$TOP/tests/integration/cfproto.py" "$K" 198.18.255.12 7470 \
	token 198.19.0.12 > "$T/token.out" || fail "token scenario: $(cat "$T/token.out")"

# 8. Nothing outlives a test.
wait_until 5 test "$(res h2 threads)" = "$thr0" || fail "threads $thr0 -> $(res h2 threads)"
assert_eq "$(res h2 fds)" "$fds0" "agent fds after tests"

# 9. Kill the server agent mid-test: the client ends within 2 s.
cf pair h1 h2 -t 20 > "$T/kill.txt" 2>&1 &
pair=$!; PIDS+=("$pair")
wait_until 5 grep -q "0.00-1.00" "$T/kill.txt" || fail "test did not start: $(cat "$T/kill.txt")"
kill -9 "$(cat "$LST/agent-h2.pid")"
t0=$(date +%s%N)
wait "$pair"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
note "client ended $ms ms after the server agent was killed (exit $rc)"
[ "$rc" = 3 ] || fail "exit after kill: $rc; output: $(cat "$T/kill.txt")"
[ "$ms" -lt 2000 ] || fail "took $ms ms"
grep -q "^cephfab: pair: agent on h2" "$T/kill.txt" || fail "no clear error: $(tail -3 "$T/kill.txt")"
# h1's agent is free again.
wait_until 3 sh -c "ip netns exec $LP-adm $CEPHFAB -i $INV hosts --json | jq -e '.hosts[] | select(.name == \"h1\") | .busy == false'" ||
	fail "h1 still busy"
echo "throughput: ok"
