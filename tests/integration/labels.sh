#!/usr/bin/env bash
# Hosts named the way real clusters name them (ceph-osd-01, -02, -03)
# each get their own row and column in the terminal matrix (they were all
# printed as "ceph-os"), with the shared part said once.
. "$(dirname "$0")/lib.sh"
loop_cluster 3 ceph-osd-0%d
"$CEPHFAB" -i "$T/inv" matrix --net public --tests lat --db "$T/m.db" > "$T/m.txt" 2>&1
assert_eq "$?" 0 "matrix exit"
grep -Eq '^ +01 +02 +03$' "$T/m.txt" || fail "column labels: $(cat "$T/m.txt")"
for i in 1 2 3; do
	grep -Eq "^0$i +" "$T/m.txt" || fail "row 0$i: $(cat "$T/m.txt")"
done
grep -q '^hosts ceph-osd-\* (the part all share left out)$' "$T/m.txt" || fail "legend: $(cat "$T/m.txt")"
# The run keeps its inventory: 'report' renders it without -i, and with
# today's inventory changed (a host renamed) it warns and still shows the
# hosts that were measured, not '? ? ?' and a pass.
"$CEPHFAB" report 1 --db "$T/m.db" > "$T/r.txt" 2> "$T/r.err"
assert_eq "$?" 0 "report without -i ($(cat "$T/r.err"))"
diff <(grep -v '^cephfab: matrix run' "$T/m.txt") "$T/r.txt" > "$T/r.diff" ||
	fail "report differs from the matrix: $(cat "$T/r.diff")"
sed 's/ceph-osd-03/ceph-osd-09/' "$T/inv" > "$T/inv2"
"$CEPHFAB" -i "$T/inv2" report 1 --db "$T/m.db" --json - > "$T/r2.json" 2> "$T/r2.err"
assert_eq "$?" 0 "report with a renamed host"
grep -q "^cephfab: report: warning: $T/inv2's hosts are not run 1's (+ceph-osd-09 -ceph-osd-03): rendered with the run's own inventory$" "$T/r2.err" ||
	fail "renamed host warning: $(cat "$T/r2.err")"
assert_eq "$(jq -r '[.hosts[] | if type == "object" then .name else . end] | join(" ")' "$T/r2.json")" \
	"ceph-osd-01 ceph-osd-02 ceph-osd-03" "hosts of the stored run"
# A bandwidth run without a black hole has no 'mtu!' legend, and its
# paths name only the networks it measured.
"$CEPHFAB" -i "$T/inv" matrix --net public --tests bw,facts -t 1 --db "$T/b.db" > "$T/bw.txt" 2>&1
assert_eq "$?" 0 "bw matrix exit ($(tail -3 "$T/bw.txt"))"
grep -q "floor" "$T/bw.txt" || fail "no floor line: $(cat "$T/bw.txt")"
grep -q "mtu! =" "$T/bw.txt" && fail "mtu! legend without an mtu! cell: $(cat "$T/bw.txt")"
grep -A3 '^paths:' "$T/bw.txt" | grep -q "public: " || fail "paths: $(cat "$T/bw.txt")"
grep -A3 '^paths:' "$T/bw.txt" | grep -q "cluster:" && fail "a public run lists cluster paths: $(grep -A3 '^paths:' "$T/bw.txt")"
# Every measured matrix is shown, not Gbit/s alone: the loss
# retransmits beside it; an MTU and ports run shows those (it printed
# nothing but the verdict); --show picks.
grep -q '^public network: loss retransmits per GB, row sends to column$' "$T/bw.txt" ||
	fail "no retransmit matrix: $(cat "$T/bw.txt")"
# (Loopback's path MTU search stops near 33 KB, far below lo's 65536:
# an mtu_blackhole here is loopback's, so exit 1 is allowed.)
"$CEPHFAB" -i "$T/inv" matrix --net public --tests mtu,ports --db "$T/mp.db" > "$T/mp.txt" 2>&1
[ "$?" -le 1 ] || fail "mtu,ports matrix exit ($(tail -3 "$T/mp.txt"))"
grep -q '^public network: path MTU in bytes, row sends to column$' "$T/mp.txt" || fail "no MTU matrix: $(cat "$T/mp.txt")"
grep -q '^public network: Ceph ports not open, row connects to column$' "$T/mp.txt" || fail "no ports matrix: $(cat "$T/mp.txt")"
[ "$(grep -Ec '^0[123] +(- +|ok +){2}(-|ok)$' "$T/mp.txt")" = 3 ] || fail "ports rows: $(cat "$T/mp.txt")"
"$CEPHFAB" report 1 --db "$T/b.db" --show gbps > "$T/s.txt" 2>&1
assert_eq "$(grep -c ' network: ' "$T/s.txt")" 1 "--show gbps: one matrix ($(cat "$T/s.txt"))"
out=$("$CEPHFAB" report 1 --db "$T/b.db" --show speed 2>&1); assert_eq "$?" 2 "--show a bad word"
assert_eq "$out" "cephfab: report: --show: 'speed' is not gbps, retrans, rtt, mtu or ports" "--show message"
# iperf3's -J, -u and -b mean here what they mean there.
"$CEPHFAB" -i "$T/inv" pair ceph-osd-01 ceph-osd-02 -t 1 -J -u -b 20M > "$T/p.json" 2>"$T/p.err" ||
	fail "pair -J -u -b: $(cat "$T/p.err")"
assert_eq "$(jq -r '.start.options.protocol + " " + (.start.options.rate | tostring)' "$T/p.json")" "udp 20000000" \
	"pair -u -b 20M -J"
# Paced streams that reached their rate were limited by the pacing.
"$CEPHFAB" -i "$T/inv" pair ceph-osd-01 ceph-osd-02 -t 2 --bidir --rate 50M --json > "$T/b.json" 2>"$T/b.err" ||
	fail "pair --bidir --rate: $(cat "$T/b.err")"
assert_eq "$(jq -r '[.end.sum.limited_by, .end.sum_reverse.limited_by] | join(" ")' "$T/b.json")" "app app" \
	"limited by the pacing ($(jq -c '[.end.sum.bits_per_second, .end.sum_reverse.bits_per_second]' "$T/b.json"))"
