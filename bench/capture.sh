#!/usr/bin/env bash
# bench/capture.sh: offline analysis rate of 'cephfab-agent --analyze'
# against tshark's ('tshark -r F -q -z io,stat,0') on the same large
# capture, and their retransmission counts, which must be equal. The
# capture is COPIES (default 200) copies of the lab's 1 %-loss fixture,
# each with its own ports and shifted in time (~3,600 packets each).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
COPIES=${COPIES:-200}
command -v tshark >/dev/null || { echo "bench: needs tshark" >&2; exit 2; }
make -C "$TOP" -s all >/dev/null || exit 3
T=$(mktemp -d /tmp/cf-capbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
python3 - "$TOP/tests/fixtures/pcap/loss1pct-sender.pcap" "$T/big.pcap" "$COPIES" <<'PY'
import struct, sys
src, dst, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
gh, recs, off = data[:24], [], 24
while off + 16 <= len(data):
    ts, tu, cl, ol = struct.unpack("<IIII", data[off:off + 16])
    recs.append((ts, tu, ol, bytearray(data[off + 16:off + 16 + cl])))
    off += 16 + cl
out = open(dst, "wb")
out.write(gh)
for k in range(copies):
    for ts, tu, ol, p in recs:
        q = bytearray(p)
        ihl = (q[14] & 15) * 4
        t = 14 + ihl
        sp, dp = struct.unpack("!HH", q[t:t + 4])
        # Both ends' ports moved the same way keep the flows apart.
        sp = 1024 + (sp + 7 * k) % 60000 if sp > 10000 else sp
        dp = 1024 + (dp + 7 * k) % 60000 if dp > 10000 else dp
        q[t:t + 4] = struct.pack("!HH", sp, dp)
        out.write(struct.pack("<IIII", ts + 3 * k, tu, len(q), ol) + q)
PY
pk=$(python3 -c "import os; print(os.path.getsize('$T/big.pcap'))")
s0=$(date +%s.%N)
"$TOP/build/cephfab-agent" --analyze "$T/big.pcap" --json > "$T/a.json" || exit 3
s1=$(date +%s.%N)
tshark -r "$T/big.pcap" -q -z io,stat,0 > /dev/null 2>&1
s2=$(date +%s.%N)
ours=$(jq .total.retransmissions "$T/a.json")
theirs=$(tshark -r "$T/big.pcap" -Y tcp.analysis.retransmission 2>/dev/null | wc -l)
n=$(jq .packets "$T/a.json")
a=$(echo "$s1 - $s0" | bc -l); b=$(echo "$s2 - $s1" | bc -l)
printf '# offline analysis, %d packets (%d copies of the 1%%-loss fixture, %d MB)\n' "$n" "$COPIES" $((pk / 1048576))
printf '%-30s %10.0f packets/s (%.2f s)\n' "cephfab-agent --analyze" "$(echo "$n / $a" | bc -l)" "$a"
printf '%-30s %10.0f packets/s (%.2f s)\n' "tshark -q -z io,stat,0" "$(echo "$n / $b" | bc -l)" "$b"
printf '%-30s %10.1fx (target >= 10x)\n' "ratio" "$(echo "$b / $a" | bc -l)"
printf '%-30s %10s / %s (tshark)\n' "retransmissions" "$ours" "$theirs"
[ "$ours" = "$theirs" ] || { echo "bench: retransmission counts differ" >&2; exit 1; }
