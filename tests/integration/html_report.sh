#!/usr/bin/env bash
# The HTML report in a real browser (headless Chromium): the verdict
# first, when and how the run was measured and by which version, a
# heatmap for each metric that was measured and a button for no other,
# every cell coloured on a continuous scale with its legend, a caption
# saying which way a row reads, table headers, readable hover details,
# and it is one file that fetches nothing.
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null 2>&1 || skip "no chromium"
loop_cluster 3 h%d
"$CEPHFAB" -i "$T/inv" matrix --net public --tests bw,lat,ports -t 1 --db "$T/m.db" \
	--html "$T/m.html" > "$T/m.txt" 2>&1 || fail "matrix: $(tail -5 "$T/m.txt")"
grep -Eq 'src="?https?:|href="?https?:' "$T/m.html" && fail "the report fetches something"
CU=$(mktemp -d "$T/chromium.XXXXXX")
CH=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--user-data-dir="$CU")
timeout 60 "${CH[@]}" --dump-dom "file://$T/m.html" > "$T/dom.html" 2>/dev/null ||
	fail "chromium could not load the report"
# The verdict before anything measured.
v=$(grep -bo 'id="verdict"' "$T/dom.html" | head -1 | cut -d: -f1)
g=$(grep -bo 'id="grids"' "$T/dom.html" | head -1 | cut -d: -f1)
[ -n "$v" ] && [ -n "$g" ] && [ "$v" -lt "$g" ] || fail "verdict not at the top"
grep -q 'class="verdict v-pass">verdict: pass<' "$T/dom.html" || fail "verdict: $(grep -o 'id="verdict"[^<]*' "$T/dom.html")"
# When, how long, how, by which version.
meta=$(grep -o 'id="meta">[^<]*' "$T/dom.html")
echo "$meta" | grep -Eq 'measured 20[0-9-]+ [0-9:]+ UTC' || fail "no date: $meta"
echo "$meta" | grep -Eq 'took [0-9]+ s' || fail "no duration: $meta"
echo "$meta" | grep -q "cephfab $("$CEPHFAB" version --json | jq -r .version)" || fail "no version: $meta"
grep -q 'id="opts">options: networks public, tests bw,lat,ports, modes pairwise, streams 2, seconds 1' "$T/dom.html" ||
	fail "options: $(grep -o 'id="opts">[^<]*' "$T/dom.html")"
# A button per measured metric, none for MTU (not measured) or Ceph's
# heartbeat (not asked for).
buttons=$(grep -o '<button[^>]*>[^<]*' "$T/dom.html" | sed 's/.*>//' | tr '\n' '|')
assert_eq "$buttons" "Gbit/s|loss retransmits per GB|RTT p50 (us)|RTT p99 (us)|Ceph ports not open|" "metric buttons"
# The grid: headers, a caption, every cell coloured on the scale, the
# legend, hover details in words.
grep -q '<th>from \\ to</th>' "$T/dom.html" || fail "no corner header"
grep -q 'class="cap">row sends to column<' "$T/dom.html" || fail "no caption"
assert_eq "$(grep -o '<th scope="col">' "$T/dom.html" | wc -l)" 3 "column headers"
grep -q 'id="legend"><span>Gbit/s: </span><div class="bar"' "$T/dom.html" || fail "no legend"
# Every measured cell coloured (Chromium writes the hsl as rgb), and its
# hover details in words, a line each (not a dump of the cell's JSON).
python3 - "$T/dom.html" <<'PY' || fail "cells"
import re, sys
t = open(sys.argv[1]).read()
cells = re.findall(r'<td class="cell" id="c-public-(h\d)-(h\d)" title="([^"]*)" style="background: rgb\((\d+), (\d+), (\d+)\);">', t)
assert len(cells) == 6, ("coloured cells", len(cells))
for s, d, title, *rgb in cells:
    lines = title.split("\n")
    assert lines[0] == f"{s} → {d} on the public network", lines
    assert lines[1] == "state: ok", lines
    assert re.fullmatch(r"throughput: [0-9.]+ Gbit/s", lines[2]), lines
    assert re.fullmatch(r"loss retransmits: [0-9.]+ per GB", lines[3]), lines
    assert re.fullmatch(r"RTT p50 / p99: \d+ / \d+ us", lines[4]), lines
    assert lines[5] == "Ceph ports: all open", lines
    assert "object Object" not in title
PY
timeout 60 "${CH[@]}" --window-size=1000,900 --screenshot="$T/m.png" "file://$T/m.html" >/dev/null 2>&1 || fail "screenshot"
[ "$(head -c 8 "$T/m.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "screenshot is not a PNG"
