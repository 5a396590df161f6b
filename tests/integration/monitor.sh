#!/usr/bin/env bash
# The monitor on loopback, three agents with metrics_listen and their own
# state_dir: 'monitor start' gives each its pinglist and they probe one
# another on both networks with no coordinator connected; /metrics serves
# the counters, the RTT histogram and the path MTU in a format promtool
# accepts; only GET/HEAD /metrics is served (404, 405, 400) and a slow or
# oversized request is closed; a datagram without the token is refused
# (counted, not echoed); an agent killed and started again resumes from
# its state_dir without a new 'monitor start'; a stopped agent's
# pinglist is gone; status names an agent that is down.
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || skip "no promtool (Debian package prometheus)"

N=$(loopnet)
keygen "$T/key"
for i in 1 2 3; do
	mkdir -p "$T/state$i"
	# Each may send only within the test's /24, at most 150 probes/s.
	printf '[agent]\nmetrics_listen = %s.%d:7471\nstate_dir = %s\nallow_targets = %s.0/24\nmonitor_max_pps = 150\n' \
		"$N" "$i" "$T/state$i" "$N" > "$T/agent$i.conf"
	start_agent "a$i" "$N.$i:7470" "$T/key" -c "$T/agent$i.conf"
	eval "PID$i=\$AGENT_PID"
done
cat > "$T/inv" <<INV
[global]
key = key
[host h1]
agent = $N.1
public = $N.1
cluster = $N.11
rack = r1
[host h2]
agent = $N.2
public = $N.2
cluster = $N.12
rack = r1
[host h3]
agent = $N.3
public = $N.3
cluster = $N.13
rack = r2
INV
cf() { "$CEPHFAB" -i "$T/inv" "$@"; }
metrics() { curl -s -m 5 "http://$N.$1:7471/metrics"; }

# Off before start: the agent still serves its own info.
metrics 1 | grep -q '^cephfab_monitor_running 0$' || fail "metrics before start: $(metrics 1 | head -5)"

cf monitor start --rate 20 --mtu-every 2 --json > "$T/start.json"
assert_eq "$?" 0 "monitor start exit"
jq -e '.running == 3 and all(.hosts[]; .peers.public == 2 and .peers.cluster == 2)' \
	"$T/start.json" >/dev/null || fail "start: $(jq -c . "$T/start.json")"
[ -s "$T/state1/monitor.json" ] || fail "pinglist not kept in state_dir"
[ "$(stat -c %a "$T/state1/monitor.json")" = 600 ] || fail "pinglist mode $(stat -c %a "$T/state1/monitor.json")"

sleep 4
metrics 1 > "$T/m1.txt"
promtool check metrics < "$T/m1.txt" > "$T/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$T/promtool.out")"
for peer in h2 h3; do
	for net in public cluster; do
		s=$(awk -v k="cephfab_peer_probes_sent_total{peer=\"$peer\",network=\"$net\"}" '$1 == k {print $2}' "$T/m1.txt")
		l=$(awk -v k="cephfab_peer_probes_lost_total{peer=\"$peer\",network=\"$net\"}" '$1 == k {print $2}' "$T/m1.txt")
		c=$(awk -v k="cephfab_peer_rtt_seconds_count{peer=\"$peer\",network=\"$net\"}" '$1 == k {print $2}' "$T/m1.txt")
		[ "${s:-0}" -ge 40 ] || fail "h1 -> $peer $net: sent $s after 4 s at 20/s"
		[ "${l:-1}" -le 1 ] || fail "h1 -> $peer $net: lost $l on loopback"
		[ "${c:-0}" -ge $((s - 21)) ] || fail "h1 -> $peer $net: $c answered of $s"
		grep -q "^cephfab_peer_up{peer=\"$peer\",network=\"$net\"} 1$" "$T/m1.txt" || fail "h1 -> $peer $net not up"
		# lo's MTU is 65536: the largest IP datagram, 65535, crosses.
		m=$(awk -v k="cephfab_peer_path_mtu_bytes{peer=\"$peer\",network=\"$net\"}" '$1 == k {print $2}' "$T/m1.txt")
		assert_eq "$m" 65535 "h1 -> $peer $net: path MTU"
	done
done
grep -q '^cephfab_network_mtu_bytes{network="cluster"} 65535$' "$T/m1.txt" || fail "port MTU"
grep -q '^cephfab_peer_rtt_seconds_bucket{peer="h2",network="public",le="+Inf"}' "$T/m1.txt" || fail "no +Inf bucket"
note "h1 -> h2 public: $(grep -E '^cephfab_peer_(probes|rtt_seconds_(count|sum))[^ ]*peer="h2",network="public"' "$T/m1.txt" | tr '\n' ' ')"

# HTTP: only GET/HEAD /metrics.
code() { curl -s -o /dev/null -w '%{http_code}' -m 5 "$@"; }
assert_eq "$(code "http://$N.1:7471/")" 404 "GET /"
assert_eq "$(code "http://$N.1:7471/metrics?x=1")" 200 "query string"
assert_eq "$(code -X POST "http://$N.1:7471/metrics")" 405 "POST"
assert_eq "$(code -I "http://$N.1:7471/metrics")" 200 "HEAD"
printf 'GARBAGE\r\n\r\n' | timeout 5 python3 -c '
import socket, sys
s = socket.create_connection(("'"$N.1"'", 7471), timeout=5)
s.sendall(sys.stdin.buffer.read()); print(s.recv(100).split(b"\r\n")[0].decode())' > "$T/bad.txt"
grep -q "400" "$T/bad.txt" || fail "garbage: $(cat "$T/bad.txt")"
# Headers without end beyond 4 KiB: 400 and closed.
python3 -c '
import socket
s = socket.create_connection(("'"$N.1"'", 7471), timeout=5)
s.sendall(b"GET /metrics HTTP/1.1\r\n" + b"X: " + b"a" * 5000)
print(s.recv(100).split(b"\r\n")[0].decode())' > "$T/big.txt" 2>&1
grep -q "400" "$T/big.txt" || fail "oversized request: $(cat "$T/big.txt")"

# A stranger's datagram (no token) is counted, not echoed.
before=$(metrics 1 | awk '$1 == "cephfab_monitor_strangers_total" {print $2}')
python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1)
s.sendto(b"CFMN" + b"\0" * 60, ("'"$N.1"'", 7470))
try:
    s.recvfrom(100); print("echoed")
except socket.timeout:
    print("silent")' > "$T/stranger.txt"
assert_eq "$(cat "$T/stranger.txt")" silent "stranger's datagram"
after=$(metrics 1 | awk '$1 == "cephfab_monitor_strangers_total" {print $2}')
[ "$after" -gt "$before" ] || fail "stranger not counted ($before -> $after)"

# Killed and started again: resumes from state_dir.
kill "$PID2"; wait "$PID2" 2>/dev/null
cf monitor status --json > "$T/st.json"; rc=$?
assert_eq "$rc" 1 "status with an agent down"
assert_eq "$(jq -r '.hosts[] | select(.name == "h2") | .state' "$T/st.json")" error "h2 down"
start_agent a2 "$N.2:7470" "$T/key" -c "$T/agent2.conf"
grep -q "monitor: resumed from" "$T/a2.log" || fail "no resume: $(cat "$T/a2.log")"
sleep 2
cf monitor status --json > "$T/st2.json"
assert_eq "$?" 0 "status after restart"
jq -e '.running == 3' "$T/st2.json" >/dev/null || fail "after restart: $(jq -c . "$T/st2.json")"
metrics 2 | grep -q '^cephfab_peer_up{peer="h1",network="cluster"} 1$' || fail "h2 not probing after restart"

cf monitor stop > "$T/stop.txt"
assert_eq "$?" 0 "monitor stop"
[ ! -e "$T/state1/monitor.json" ] || sleep 1
[ ! -e "$T/state1/monitor.json" ] || fail "pinglist kept after stop"
metrics 1 | grep -q '^cephfab_monitor_running 0$' || fail "still running after stop"

# Probes are test traffic: a peer outside the allow_targets is refused,
# named; and an agent's monitor_max_pps bounds what a coordinator asks.
{ cat "$T/inv"; printf '[host far]\nagent = 127.250.0.1\npublic = 127.250.0.1\n'; } > "$T/inv2"
"$CEPHFAB" -i "$T/inv2" --connect-timeout 1 monitor start --json > "$T/far.json" 2> "$T/far.err"
assert_eq "$?" 3 "start with a peer outside every allow_targets"
jq -r '.hosts[] | select(.name == "h1") | .error' "$T/far.json" | grep -q "limit allow_targets: peer far's public address 127.250.0.1 not allowed" ||
	fail "h1's refusal: $(jq -c '.hosts[0]' "$T/far.json")"
cf monitor start --rate 40 --json > "$T/pps.json"
assert_eq "$?" 3 "start over monitor_max_pps"
jq -r '.hosts[] | select(.name == "h2") | .error' "$T/pps.json" | grep -q "limit monitor_max_pps = 150: 160 probes/s asked" ||
	fail "h2's refusal: $(jq -c '.hosts[1]' "$T/pps.json")"
cf monitor stop > /dev/null

# Bad options: one line, exit 2.
out=$(cf monitor start --peers rack,0 2>&1); assert_eq "$?" 2 "--peers rack,0"
echo "$out" | grep -q "rack,K" || fail "--peers message: $out"
out=$(cf monitor go 2>&1); assert_eq "$?" 2 "monitor go"
echo "monitor: ok"
