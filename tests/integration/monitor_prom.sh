#!/usr/bin/env bash
# Monitoring end to end on a 4-host flat lab with a real Prometheus
# (Debian's package) in the admin namespace, scraping every agent's
# metrics_listen each second and evaluating dist/prometheus's rules with
# their windows and 'for' shortened for the test: 'monitor start'; no
# alert while the fabric is clean; 20 % loss on h2's public port makes
# CephfabPeerPacketLoss fire for exactly the six directed pairs with h2 on
# public, and clear once the fault is removed; h3's agent killed and
# started again resumes probing without a new 'monitor start' (Prometheus
# sees it up again); promtool accepts every agent's /metrics.
. "$(dirname "$0")/lib.sh"
need_lab
command -v prometheus >/dev/null || skip "no prometheus (Debian package prometheus)"
lab_up flat --agents

cf monitor start --rate 10 --mtu-every 5 --probe-timeout 500 > "$T/start.txt" ||
	fail "monitor start: $(cat "$T/start.txt")"
# A host's agent address (the management network), its instance label.
ip2inst() {
	awk -v h="$1" '$1 == "[host" && $2 == h"]" {f=1} f && $1 == "agent" {print $3; exit}' "$INV"; }
targets=""
for h in h1 h2 h3 h4; do targets="$targets'$(ip2inst $h):7471',"; done
# The real rules, with windows and durations a test can wait for.
sed -e 's/\[5m\]/[8s]/g' -e 's/for: [0-9]*m/for: 3s/' \
	"$TOP/dist/prometheus/cephfab-rules.yml" > "$T/rules.yml"
cat > "$T/prom.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['$T/rules.yml']
scrape_configs:
  - job_name: cephfab
    static_configs:
      - targets: [${targets%,}]
YML
promtool check config "$T/prom.yml" > "$T/pc.out" 2>&1 || fail "prometheus config: $(cat "$T/pc.out")"
lx adm prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address=127.0.0.1:9090 > "$T/prom.log" 2>&1 &
PIDS+=($!)
api() { lx adm curl -s -m 5 "http://127.0.0.1:9090/api/v1/$1"; }
# The loss alerts firing now, as sorted "instance-host>peer/network" lines.
firing() {
	api alerts | jq -r '
		.data.alerts[] | select(.state == "firing" and .labels.alertname == "'"$1"'")
		| "\(.labels.instance)>\(.labels.peer)/\(.labels.network)"' | sort
}
wait_until 20 sh -c "[ \"\$(ip netns exec $LP-adm curl -s -m 2 http://127.0.0.1:9090/api/v1/query?query=count%28up%3D%3D1%29 | jq -r '.data.result[0].value[1]')\" = 4 ]" ||
	fail "Prometheus does not see 4 agents up: $(api targets | jq -c '[.data.activeTargets[] | [.scrapeUrl, .health, .lastError]]')"
sleep 10
[ -z "$(firing CephfabPeerPacketLoss)" ] || fail "loss alerts on a clean fabric: $(firing CephfabPeerPacketLoss)"
[ -z "$(firing CephfabPeerUnreachable)" ] || fail "unreachable on a clean fabric: $(firing CephfabPeerUnreachable)"
[ -z "$(firing CephfabPathMTUBelowPort)" ] || fail "MTU alerts on a clean fabric: $(firing CephfabPathMTUBelowPort)"

# h2's public port loses 20 %: every direction with h2 on public, only.
"$LAB" fault "$LP" add loss:h2-pub:20 || fail "fault add"
want=$(for a in h1 h3 h4; do
	echo "$(ip2inst h2):7471>$a/public"; echo "$(ip2inst $a):7471>h2/public"; done | sort)
end=$(( $(date +%s) + 40 ))
while [ "$(firing CephfabPeerPacketLoss)" != "$want" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 1; done
got=$(firing CephfabPeerPacketLoss)
[ "$got" = "$want" ] || fail "loss alerts: want $(echo $want), got $(echo $got)"
note "fired in $(( 40 - (end - $(date +%s)) )) s: $(echo $got)"
"$LAB" fault "$LP" del loss:h2-pub:20 || fail "fault del"
wait_until 40 sh -c "[ -z \"\$(ip netns exec $LP-adm curl -s -m 2 http://127.0.0.1:9090/api/v1/alerts | jq -r '.data.alerts[] | select(.labels.alertname == \"CephfabPeerPacketLoss\")')\" ]" ||
	fail "loss alerts did not clear: $(firing CephfabPeerPacketLoss)"

# h3's agent killed and started again: resumes from its state_dir.
pid=$(cat "$LST/agent-h3.pid")
kill "$pid"; wait_until 5 sh -c "! kill -0 $pid 2>/dev/null" || fail "h3's agent did not stop"
# Not through lx (a function: $! would be its subshell, and the lab's
# teardown, which kills by the pid file, would leave the agent behind).
ip netns exec "$LP-h3" setsid "$AGENT" -d -c "$LST/agent-h3.conf" > "$LST/agent-h3.log" 2>&1 < /dev/null &
echo $! > "$LST/agent-h3.pid"
wait_until 10 grep -q "monitor: resumed from" "$LST/agent-h3.log" || fail "h3 did not resume: $(cat "$LST/agent-h3.log")"
i3=$(ip2inst h3)
wait_until 15 sh -c "ip netns exec $LP-adm curl -s -m 2 http://$i3:7471/metrics | grep -q '^cephfab_peer_up{peer=\"h1\",network=\"cluster\"} 1$'" ||
	fail "h3 not probing after restart"
cf monitor status --json > "$T/status.json" || fail "status after restart"
jq -e '.running == 4' "$T/status.json" > /dev/null || fail "status: $(jq -c . "$T/status.json")"

for h in h1 h2 h3 h4; do
	lx adm curl -s -m 5 "http://$(ip2inst $h):7471/metrics" > "$T/m-$h.txt"
	promtool check metrics < "$T/m-$h.txt" > "$T/pc-$h.out" 2>&1 || fail "promtool check metrics on $h: $(head -5 "$T/pc-$h.out")"
done
cf monitor stop > /dev/null || fail "monitor stop"
echo "monitor_prom: ok"
