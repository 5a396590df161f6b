#!/usr/bin/env bash
# The network cut mid-test: an iptables DROP on h2 for everything from h1's
# cluster address, two seconds into an 8-second test. The test fails,
# naming the stall (not a low average passed off as a result), the
# coordinator finishes within the duration and its grace, and neither
# agent keeps a thread or a socket of it. The same cut during a matrix
# makes the cell 'lost' and the run completes.
. "$(dirname "$0")/lib.sh"
need_lab
command -v iptables >/dev/null || skip "no iptables"
printf 'design = flat\nhosts = 3\nhost_mbit = 1000\nmtu = 9000\n' > "$T/three.topo"
lab_up "$T/three.topo" --agents
res() { cf hosts --json | jq -r --arg h "$1" ".hosts[] | select(.name == \$h) | .$2"; }
A1=$(awk '$1 == "h1" {print $3}' "$LST/hosts")
fds1=$(res h1 fds); thr1=$(res h1 threads); fds2=$(res h2 fds); thr2=$(res h2 threads)

(sleep 2; lx h2 iptables -I INPUT -s "$A1" -j DROP) &
PIDS+=($!)
t0=$(date +%s)
cf pair h1 h2 --net cluster -P 2 -t 8 --json > "$T/p.json"
rc=$?
secs=$(( $(date +%s) - t0 ))
note "cut at 2 s of 8: exit $rc after $secs s: $(jq -r .error "$T/p.json")"
assert_eq "$rc" 3 "pair exit across a cut"
jq -e '.error | test("stalled")' "$T/p.json" >/dev/null || fail "error: $(jq -c .error "$T/p.json")"
[ "$secs" -le 30 ] || fail "the coordinator took $secs s"
# Nothing of the test survives on either agent.
wait_until 10 test "$(res h1 threads)" = "$thr1" || fail "h1 threads $thr1 -> $(res h1 threads)"
wait_until 10 test "$(res h2 threads)" = "$thr2" || fail "h2 threads $thr2 -> $(res h2 threads)"
wait_until 10 test "$(res h1 fds)" = "$fds1" || fail "h1 fds $fds1 -> $(res h1 fds)"
wait_until 10 test "$(res h2 fds)" = "$fds2" || fail "h2 fds $fds2 -> $(res h2 fds)"

# In a matrix: the cut pair's cell is lost, the others are measured.
cf matrix --net cluster --tests bw -t 4 --profile "$TOP/configs/profiles/lab.conf" \
	--db "$T/m.db" --json "$T/m.json" > /dev/null 2>&1
assert_eq "$?" 1 "matrix exit with a cut pair"
jq -e '[.networks.cluster.cells[] | select(.state == "lost") | "\(.src)>\(.dst)"] | sort |
	. == ["h1>h2", "h2>h1"]' "$T/m.json" >/dev/null ||
	fail "lost cells: $(jq -c '[.networks.cluster.cells[] | [.src, .dst, .state, .gbps]]' "$T/m.json")"
lx h2 iptables -D INPUT -s "$A1" -j DROP
exit 0
