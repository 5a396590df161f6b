#!/usr/bin/env bash
# Live capture: 'cephfab watch' on a 2-host flat lab whose h2 cluster port
# drops 1 % of what it receives. While a throughput test runs, h1's agent
# sees ~50 Mbit/s to h2 with retransmissions and h2's sees them arrive;
# the default filter (Ceph's ports) sees traffic to port 6800 and not the
# test's; traffic while no watch runs is not reported by the next one; a
# bad BPF filter is refused with its error; an agent running as
# 'nobody' (user = in agent.conf) still captures with the handle it opened
# as root; and the watch ends by itself at -t.
. "$(dirname "$0")/lib.sh"
need_lab
printf 'design = flat\nhosts = 2\nhost_mbit = 1000\nmtu = 1500\n' > "$T/two.topo"
lab_up "$T/two.topo" --agents --fault loss:h2-clu:1

(sleep 1; cf pair h1 h2 --net cluster -t 2 --rate 50M > /dev/null 2>&1) &
PIDS+=($!)
t0=$(date +%s%N)
cf watch --net cluster --interval 1 -t 4 --filter "tcp and not port 7470" > "$T/w.jsonl"
assert_eq "$?" 0 "watch exit"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -lt 9000 ] || fail "watch -t 4 took $ms ms"
jq -s -e '[.[] | select(.host == "h1") | .peers[] | select(.host == "h2")] |
	(map(.tx_mbps) | max) > 30 and (map(.tx.retransmissions) | add) > 0' "$T/w.jsonl" >/dev/null ||
	fail "h1's view: $(jq -c '[.host, .seq, [.peers[] | [.host, .tx_mbps, .tx.retransmissions]]]' "$T/w.jsonl")"
jq -s -e '[.[] | select(.host == "h2") | .peers[] | select(.host == "h1") | .rx.retransmissions] | add > 0' \
	"$T/w.jsonl" >/dev/null || fail "h2's view"
jq -s -e 'all(.[]; .dropped == 0) and (map(.seq) | max) >= 4' "$T/w.jsonl" >/dev/null || fail "intervals"
note "h1 -> h2: $(jq -s -c '[.[] | select(.host == "h1") | .peers[] | select(.host == "h2") | {mbps: (.tx_mbps | floor), retrans: .tx.retransmissions}]' "$T/w.jsonl")"

# The tracer's own probes are not the stream's: watch beside ten traced
# pair runs on the clean public network sees no retransmission worth the
# name in any interval (the probes' random sequence numbers, taken for
# data, made 84 % and 99.9 % of a stream's segments read as retransmitted
# in two runs of five, as the cutover's settle gate reads them too).
(sleep 1; for i in 1 2 3 4 5 6 7 8 9 10; do
	cf pair h1 h2 --net public -t 1 --rate 200M > /dev/null 2>&1; done) &
tp=$!; PIDS+=("$tp")
cf watch --net public --interval 2 -t 20 --filter "tcp and not port 7470" --json > "$T/tr.jsonl"
assert_eq "$?" 0 "watch beside traced pairs"
wait "$tp"
jq -s -e '[.[] | select(.host == "h1") | .peers[] | select(.host == "h2") | select(.tx.segments > 1000)] |
	length >= 6 and all(.tx.retransmissions * 100 < .tx.segments)' "$T/tr.jsonl" >/dev/null ||
	fail "tracer probes read as retransmissions: $(jq -s -c '[.[] | select(.host == "h1") | .peers[] | select(.host == "h2") | [.tx.segments, .tx.retransmissions]]' "$T/tr.jsonl")"
jq -s -e '[.[] | select(.host == "h2") | .peers[] | select(.host == "h1") | select(.rx.segments > 1000)] |
	all(.rx.retransmissions * 100 < .rx.segments)' "$T/tr.jsonl" >/dev/null ||
	fail "tracer probes at the receiver: $(jq -s -c '[.[] | select(.host == "h2") | .peers[] | select(.host == "h1") | [.rx.segments, .rx.retransmissions]]' "$T/tr.jsonl")"

# The analyzer counts as tshark does, capture after capture: twenty
# captures of a 200 Mbit/s test at h2's port, which drops 1 % of what it
# receives, analyzed by both. In double seconds since the epoch one in
# three differed by a retransmission or two (a segment exactly at the
# handshake RTT's out-of-order threshold, which read 17.17 us for 17).
if command -v dumpcap > /dev/null && command -v tshark > /dev/null; then
	diffs=""
	for i in $(seq 1 20); do
		# Not through lx (a function): $! is dumpcap itself.
		ip netns exec "$LP-h2" dumpcap -q -i clu -f "tcp and not port 7470" \
			-s 160 -a duration:5 -w "$T/c$i.pcap" > /dev/null 2>&1 &
		dp=$!
		PIDS+=("$dp")
		wait_until 3 test -s "$T/c$i.pcap"
		# Untraced: tshark takes the tracer's probes for data
		# (their random sequence numbers), the analyzer does not.
		cf pair h1 h2 --net cluster -t 1 --rate 200M --no-trace > /dev/null 2>&1
		sleep 0.2
		kill -INT "$dp" 2>/dev/null
		wait "$dp"
	done
	# Both analyses of each capture, two captures at a time.
	cmp_one() {
		"$AGENT" --analyze "$T/c$1.pcap" --json > "$T/c$1.json" || return 1
		# One tshark pass: a line per flagged segment, its flags.
		tshark -r "$T/c$1.pcap" -Y "tcp.analysis.retransmission or tcp.analysis.out_of_order or tcp.analysis.spurious_retransmission" \
			-T fields -e tcp.analysis.retransmission -e tcp.analysis.fast_retransmission \
			-e tcp.analysis.out_of_order -e tcp.analysis.spurious_retransmission \
			2>/dev/null > "$T/c$1.ts"
	}
	export -f cmp_one
	export T AGENT
	seq 1 20 | xargs -P 2 -I{} bash -c 'cmp_one {}' || fail "analyzing the captures"
	for i in $(seq 1 20); do
		want=$(awk -F'\t' '{r += $1 != ""; f += $2 != ""; o += $3 != ""; s += $4 != ""}
			END {printf "%d %d %d %d", r, f, o, s}' "$T/c$i.ts")
		got=$(jq -r '.total | "\(.retransmissions) \(.fast_retransmissions) \(.out_of_order) \(.spurious_retransmissions)"' "$T/c$i.json")
		[ "$got" = "$want" ] || diffs="$diffs capture $i: ours $got, tshark $want;"
	done
	[ -z "$diffs" ] || fail "the analyzer and tshark differ (retrans fast ooo spurious):$diffs"
	note "20 captures: retransmissions as tshark counts them in every one ($(jq -s -c '[.[].total.retransmissions]' "$T"/c*.json))"
fi

# The default filter: Ceph's ports only.
lx h2 python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 6800)); s.listen(1); s.settimeout(8)
c, _ = s.accept()
while c.recv(65536): pass' &
PIDS+=($!)
(sleep 1.5; lx h1 python3 -c '
import socket, time
c = socket.create_connection(("'"$(awk '$1 == "h2" {print $3}' "$LST/hosts")"'", 6800), timeout=5)
for i in range(20): c.sendall(b"x" * 100000); time.sleep(0.05)
c.close()'; cf pair h1 h2 --net cluster -t 1 --rate 20M > /dev/null 2>&1) &
PIDS+=($!)
cf watch --net cluster --interval 1 -t 4 --json > "$T/d.jsonl" || fail "default-filter watch"
jq -s -e '[.[] | select(.host == "h1") | .peers[].tx.bytes] | add > 1000000 and add < 3000000' \
	"$T/d.jsonl" >/dev/null || fail "default filter: $(jq -c '[.host, [.peers[] | .tx.bytes]]' "$T/d.jsonl")"

# Nothing from before a watch: Ceph-port traffic while no watch runs
# (the last watch's filter was Ceph's ports) is not reported by the next
# watch, which sees a quiet network. Before idle handles took nothing,
# the ring kept that traffic and the next watch's first interval
# reported it as current.
H2C=$(awk '$1 == "h2" {print $3}' "$LST/hosts")
lx h2 python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 6800)); s.listen(1); s.settimeout(8)
c, _ = s.accept()
while c.recv(65536): pass' &
srv=$!; PIDS+=("$srv")
sleep 0.5
lx h1 python3 -c '
import socket
c = socket.create_connection(("'"$H2C"'", 6800), timeout=5)
c.sendall(b"x" * 2000000); c.close()' || fail "traffic before the watch"
wait "$srv"
cf watch --net cluster --interval 1 -t 2 --json > "$T/q.jsonl" || fail "quiet watch"
jq -s -e '(map(.seq) | max) >= 2 and ([.[] | .peers[] | .tx.bytes + .rx.bytes] | add // 0) == 0' \
	"$T/q.jsonl" >/dev/null || fail "a watch reported traffic from before it began: $(jq -c '[.host, .seq, [.peers[] | [.host, .tx.bytes, .rx.bytes]]]' "$T/q.jsonl")"

# A bad filter: refused, named.
cf watch --net cluster -t 1 --filter "tcp and bogus" > /dev/null 2> "$T/e"
assert_eq "$?" 3 "bad filter exit"
grep -q "filter" "$T/e" || fail "bad filter message: $(cat "$T/e")"

# Privileges dropped after the handles are open.
kill "$(cat "$LST/agent-h1.pid")"
wait_until 5 sh -c "! kill -0 $(cat "$LST/agent-h1.pid") 2>/dev/null"
{ cat "$LST/agent-h1.conf"; echo "user = nobody"; } > "$T/nobody.conf"
# Not through lx (a function: $! would be a subshell, not the agent).
ip netns exec "$LP-h1" "$AGENT" -d -c "$T/nobody.conf" > "$T/nobody.log" 2>&1 &
PIDS+=($!)
wait_until 5 grep -q "running as nobody" "$T/nobody.log" || fail "no privilege drop: $(cat "$T/nobody.log")"
(sleep 1; cf pair h2 h1 --net cluster -t 1 --rate 20M > /dev/null 2>&1) &
PIDS+=($!)
cf watch --net cluster --interval 1 -t 3 --filter "tcp and not port 7470" --json > "$T/n.jsonl"
assert_eq "$?" 0 "watch with the agent as nobody"
jq -s -e '[.[] | select(.host == "h1") | .peers[].rx.bytes] | add > 1000000' "$T/n.jsonl" >/dev/null ||
	fail "capture as nobody: $(cat "$T/n.jsonl")"
exit 0
