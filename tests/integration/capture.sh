#!/usr/bin/env bash
# The capture analyzer against tshark on captures made in the lab (stored
# under tests/fixtures/pcap: a transfer across a port dropping 1 % of
# packets, seen at the sender and at the receiver, and a transfer to a
# receiver that stops reading): retransmissions (tshark's
# tcp.analysis.retransmission, which includes fast and spurious ones),
# fast retransmissions, out-of-order segments and zero windows are equal.
# Then a generated capture of 200,000 flows through a 65,536-flow table:
# the evictions are counted and the memory stays bounded.
# build: product (it judges memory: shadow memory is not the product's RSS)
# alone: the capture's memory and rate (nothing runs beside it)
. "$(dirname "$0")/lib.sh"
command -v tshark >/dev/null || skip "no tshark (scripts/deps.sh install)"
FIX=$TOP/tests/fixtures/pcap
for f in "$FIX"/*.pcap; do
	"$AGENT" --analyze "$f" --json > "$T/a.json" || fail "analyze $f"
	for k in retransmission:retransmissions fast_retransmission:fast_retransmissions \
	    out_of_order:out_of_order zero_window:zero_windows \
	    spurious_retransmission:spurious_retransmissions; do
		want=$(tshark -r "$f" -Y "tcp.analysis.${k%%:*}" 2>/dev/null | wc -l)
		got=$(jq ".total.${k#*:}" "$T/a.json")
		assert_eq "$got" "$want" "$(basename "$f") ${k%%:*} (tshark)"
	done
	note "$(basename "$f"): $(jq -c '.total | [.segments, .retransmissions, .out_of_order, .zero_windows]' "$T/a.json") = tshark"
done
# Every fixture has something to find.
jq -e '.total.zero_windows > 0 and .total.out_of_order > 0' <("$AGENT" --analyze "$FIX/zero-window.pcap" --json) >/dev/null ||
	fail "zero-window fixture finds nothing"

# Bad input: a clear one-line error, exit 2.
printf 'not a capture' > "$T/bad.pcap"
"$AGENT" --analyze "$T/bad.pcap" 2> "$T/e"; assert_eq "$?" 2 "bad file exit"
[ "$(wc -l < "$T/e")" = 1 ] && grep -q "bad.pcap" "$T/e" || fail "bad file message: $(cat "$T/e")"

# 200,000 flows (a SYN each) through a table of 65,536.
python3 - "$T/many.pcap" <<'PY'
import struct, sys
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))  # DLT_RAW
for i in range(200000):
    src = bytes([10, 1 + (i >> 16) % 200, (i >> 8) & 255, i & 255])
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 0, 0, 64, 6, 0, src, bytes([10, 0, 0, 1]))
    tcp = struct.pack("!HHIIBBHHH", 1024 + i % 60000, 6800, i, 0, 0x50, 0x02, 65535, 0, 0)
    pkt = ip + tcp
    out.write(struct.pack("<IIII", 1000 + i // 100000, (i % 100000) * 10, len(pkt), len(pkt)) + pkt)
PY
/usr/bin/time -f "%M" -o "$T/rss" "$AGENT" --analyze "$T/many.pcap" --json --flows 65536 > "$T/m.json" ||
	fail "analyze 200,000 flows"
jq -e '.packets == 200000 and .flows == 65536 and .evicted == (200000 - 65536)' "$T/m.json" >/dev/null ||
	fail "flow cap: $(jq -c '{packets, flows, evicted}' "$T/m.json")"
rss=$(cat "$T/rss")
note "200,000 flows through 65,536: $(jq .evicted "$T/m.json") evicted, max RSS $((rss / 1024)) MB"
# The bound: 65,536 flows of ~500 bytes plus the table, far under 64 MB.
# (Sanitizer builds: shadow memory and quarantine are not the agent's.)
[ -n "${CF_SANITIZED:-}" ] || [ "$rss" -lt 65536 ] || fail "RSS $rss KB over 64 MB"
exit 0
