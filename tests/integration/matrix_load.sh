#!/usr/bin/env bash
# The matrix's load modes on the leaf-spine lab (2 racks of 2 hosts, BGP
# ECMP over 2 spines). all-to-all runs all 12 flows at once and fanout 8
# (each host to both hosts of the other rack); on a healthy fabric every
# host reaches its fair share and nothing is reported. With both of leaf
# 1's uplinks shaped to 150 Mbit/s the racks' inter-rack traffic is
# starved while hosts still fill their ports inside the rack: that is
# 'oversubscribed', for the racks, and nothing per host. --lat-loaded runs
# the latency mesh again while the all-to-all load runs.
. "$(dirname "$0")/lib.sh"
need_lab
command -v vtysh >/dev/null || skip "no FRR"
lab_up leafspine --agents
INV=$LST/lab.inv
PROF=$TOP/configs/profiles/lab.conf
cf() { ip netns exec "$LP-adm" "$CEPHFAB" -i "$INV" "$@"; }

t0=$(date +%s%N)
cf matrix --profile "$PROF" --net cluster --tests bw,lat --mode all-to-all,fanout -t 3 \
	--lat-mesh --lat-loaded --db "$T/m.db" --json "$T/h.json" > "$T/h.txt" 2> "$T/h.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
note "healthy: all-to-all + fanout in $ms ms, exit $rc"
assert_eq "$rc" 0 "healthy load exit ($(cat "$T/h.err"))"
# Both loads ran at once each: far less than one after another (20 flows
# x 3 s = 60 s).
[ "$ms" -lt 30000 ] || fail "loads took $ms ms: flows did not run concurrently"
# The lab's tbf queues hold 20 ms per hop: under all-to-all the RTT p99
# passes the lab profile's 20 ms, a warning and nothing else.
jq -e 'all(.findings[]; .kind == "high_latency" and .severity == "warn" and
	(.summary | test("under load"))) and .verdict == "pass" and
	(.networks.cluster.load["all-to-all"] | .flows == 12 and .lost == 0 and
	 (.hosts | length) == 4 and all(.hosts[]; .flows_out == 3 and .flows_in == 3 and
	   .tx_pct >= 70 and .rx_pct >= 70 and .tx_gbps <= 1.05)) and
	(.networks.cluster.load.fanout | .flows == 8 and
	 all(.hosts[]; .flows_out == 2 and .flows_in == 2 and .tx_pct >= 70))' \
	"$T/h.json" >/dev/null || fail "healthy load: $(jq -c '.findings, .networks.cluster.load' "$T/h.json")"
# The latency mesh ran idle and again during the all-to-all load: every
# pair has both, and queueing under load shows as a higher RTT.
assert_eq "$(sqlite3 "$T/m.db" "select count(*) from cells where test = 'lat_load' and state = 'ok'")" 6 "loaded latency cells"
jq -e '([.networks.cluster.cells[] | .rtt_loaded_p99_us > 0 and .rtt_p99_us > 0] | all) and
	([.networks.cluster.cells[].rtt_loaded_p99_us] | add) > 5 * ([.networks.cluster.cells[].rtt_p99_us] | add)' \
	"$T/h.json" >/dev/null || fail "loaded RTT in the report"
note "RTT p99 median idle $(jq '[.networks.cluster.cells[].rtt_p99_us] | sort | .[6]' "$T/h.json") us, under all-to-all $(jq '[.networks.cluster.cells[].rtt_loaded_p99_us] | sort | .[6]' "$T/h.json") us"
# Only the loads ran: no pairwise cells were measured.
n=$(sqlite3 "$T/m.db" "select count(*) from cells where test = 'bw'")
assert_eq "$n" 0 "pairwise cells in a load-only run"
# Fanout crosses racks: h1 and h2 (rack 1) send only to h3 and h4.
d=$(sqlite3 "$T/m.db" "select group_concat(src || '>' || dst, ' ') from (select src, dst from cells where test = 'fanout' order by src, dst)")
assert_eq "$d" "h1>h3 h1>h4 h2>h3 h2>h4 h3>h1 h3>h2 h4>h1 h4>h2" "fanout receivers"
grep -q "all-to-all load" "$T/h.txt" || fail "terminal load table"

# Starve leaf 1's uplinks.
"$LAB" fault "$LP" add rate:l1-s1:150 2>/dev/null || fail "fault add"
"$LAB" fault "$LP" add rate:l1-s2:150 2>/dev/null || fail "fault add"
cf matrix --profile "$PROF" --net cluster --tests bw --mode all-to-all -t 3 \
	--db "$T/m.db" --json "$T/o.json" > "$T/o.txt" 2> "$T/o.err"
rc=$?
assert_eq "$rc" 1 "oversubscribed exit"
got=$(jq -r '.findings[] | "\(.kind)|\(.hosts | join(","))"' "$T/o.json" | sort | tr '\n' ' ')
assert_eq "$got" "oversubscribed|h1,h2 oversubscribed|h3,h4 " "findings under a starved spine"
jq -e '.networks.cluster.load["all-to-all"] |
	.inter_rack_flow_gbps < 0.5 * .intra_rack_flow_gbps' "$T/o.json" >/dev/null ||
	fail "inter-rack flows not below intra-rack: $(jq -c '.networks.cluster.load' "$T/o.json")"
note "starved: $(jq -r '.findings[0].summary' "$T/o.json")"
exit 0
