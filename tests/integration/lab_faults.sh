#!/usr/bin/env bash
# Faults on the flat lab, each proven on real traffic and confined to its
# link or host: loss raises TCP retransmits only on flows that cross the
# lossy link; a one-ended MTU drops DF 8972-byte pings across that link
# only; rate caps a link; block and egress act on one host; every fault is
# removable. Traffic is iperf3 and ping between the lab's namespaces only,
# each bounded in time.
. "$(dirname "$0")/lib.sh"
need_lab
command -v iperf3 >/dev/null || skip "no iperf3"
lab_up flat

# iperf_retrans SRC DST_HOST DST_ADDR RATE: one bounded 2 s TCP test.
iperf_json() {
	local src=$1 dst=$2 addr=$3 rate=$4 pid
	lx "$dst" iperf3 -s -1 -B "$addr" -p 5201 >/dev/null 2>&1 &
	pid=$!; PIDS+=("$pid")
	wait_until 5 lx "$dst" sh -c "ss -ltn | grep -q '$addr:5201'" || fail "iperf3 server on $dst"
	lx "$src" timeout 20 iperf3 -c "$addr" -p 5201 -t 2 -b "$rate" -J 2>/dev/null
	wait "$pid" 2>/dev/null
}
retrans() { jq '.end.sum_sent.retransmits'; }
mbps() { jq '.end.sum_received.bits_per_second / 1e6 | floor'; }

# Baseline: no loss on a clean link at a rate under the link speed.
base=$(iperf_json h3 h4 198.19.0.14 200M | retrans)
note "clean h3->h4 retransmits: $base"

"$LAB" fault "$LP" add loss:h1-clu:3 2>/dev/null || fail "loss add"
# At 3 % loss a lost SYN costs iperf3 a second of its two (the kernel's
# initial RTO), and the flow then carries a few hundred kilobytes: judge
# a run that carried at least 10 MB, up to three tries.
for try in 1 2 3; do
	j=$(iperf_json h1 h2 198.19.0.12 200M)
	lossy=$(retrans <<< "$j")
	[ "$(jq '.end.sum_sent.bytes // 0' <<< "$j")" -ge 10000000 ] && break
	note "try $try carried $(jq '.end.sum_sent.bytes' <<< "$j") bytes, again"
done
clean=$(iperf_json h3 h4 198.19.0.14 200M | retrans)
pub=$(iperf_json h1 h2 198.18.0.12 200M | retrans)
note "with loss:h1-clu:3 -> h1->h2 cluster $lossy, h3->h4 cluster $clean, h1->h2 public $pub"
[ "$lossy" -ge 20 ] || fail "lossy flow has only $lossy retransmits"
[ "$clean" -le $(( lossy / 10 )) ] || fail "clean flow has $clean retransmits"
[ "$pub" -le $(( lossy / 10 )) ] || fail "public flow of h1 has $pub retransmits"
"$LAB" fault "$LP" del loss:h1-clu:3 2>/dev/null || fail "loss del"
after=$(iperf_json h1 h2 198.19.0.12 200M | retrans)
[ "$after" -le $(( lossy / 10 )) ] || fail "loss not removed: $after"

# One-ended MTU on h2's cluster link, switch side: a silent black hole.
ping_df() { lx "$1" ping -c1 -W1 -M do -s "$3" "$2" >/dev/null 2>&1; }
ping_df h1 198.19.0.12 8972 || fail "jumbo before fault"
"$LAB" fault "$LP" add mtu:h2-clu:sw:1500 2>/dev/null || fail "mtu add"
ping_df h1 198.19.0.12 8972 && fail "8972 DF crossed the 1500 end"
ping_df h1 198.19.0.12 1472 || fail "1500-byte packets must still pass"
ping_df h1 198.19.0.13 8972 || fail "h1->h3 jumbo must pass"
ping_df h1 198.18.0.12 8972 || fail "h2 public jumbo must pass"
"$LAB" fault "$LP" del mtu:h2-clu:sw:1500 2>/dev/null
ping_df h1 198.19.0.12 8972 || fail "jumbo after fault removed"

# Rate: the default 1000 Mbit/s, then 100 Mbit/s on h3's public link.
"$LAB" fault "$LP" add rate:h3-pub:100 2>/dev/null || fail "rate add"
m=$(iperf_json h4 h3 198.18.0.13 0 | mbps)
note "rate:h3-pub:100 -> $m Mbit/s"
[ "$m" -ge 70 ] && [ "$m" -le 105 ] || fail "rate 100 gave $m Mbit/s"
"$LAB" fault "$LP" del rate:h3-pub:100 2>/dev/null

# Block: Ceph's OSD ports on h2's cluster address; other ports and hosts
# are untouched.
tcp_open() { # SRC ADDR PORT: 0 when a listener answers
	lx "$1" timeout 3 bash -c "exec 3<>/dev/tcp/$2/$3" 2>/dev/null
}
for port in 6800 3300; do
	lx h2 timeout 20 iperf3 -s -1 -B 198.19.0.12 -p "$port" >/dev/null 2>&1 &
	PIDS+=("$!")
done
wait_until 5 lx h2 sh -c "ss -ltn | grep -q ':3300'" || fail "listeners"
"$LAB" fault "$LP" add block:h2:cluster:6800-7300:reject 2>/dev/null || fail "block add"
tcp_open h1 198.19.0.12 6800 && fail "6800 reachable through the block"
tcp_open h1 198.19.0.12 3300 || fail "3300 must stay reachable"
"$LAB" fault "$LP" del block:h2:cluster:6800-7300:reject 2>/dev/null
tcp_open h1 198.19.0.12 6800 || fail "6800 after block removed"

# Egress: h1's cluster traffic leaves through its public interface.
dev() { lx h1 ip -j route get 198.19.0.13 | jq -r '.[0].dev'; }
assert_eq "$(dev)" clu "route before egress fault"
"$LAB" fault "$LP" add egress:h1:cluster 2>/dev/null || fail "egress add"
assert_eq "$(dev)" pub "route with egress fault"
"$LAB" fault "$LP" del egress:h1:cluster 2>/dev/null
assert_eq "$(dev)" clu "route after egress fault"

# Bad specs are refused with a clear message and exit 2.
out=$("$LAB" fault "$LP" add loss:nolink:5 2>&1); rc=$?
assert_eq "$rc" 2 "bad link"; echo "$out" | grep -q "no link 'nolink'" || fail "msg: $out"
out=$("$LAB" fault "$LP" add bogus:x 2>&1); assert_eq "$?" 2 "bad kind"
out=$("$LAB" fault "$LP" add reorder:h1-clu:80 2>&1); assert_eq "$?" 2 "reorder over 50 %"
echo "$out" | grep -q "reorder must be in (0, 50\]" || fail "msg: $out"
out=$("$LAB" fault "$LP" del down:h1-pub 2>&1); assert_eq "$?" 2 "del inactive"
assert_eq "$("$LAB" status "$LP" --json | jq '.faults | length')" 0 "faults left"
echo "lab_faults: ok"
