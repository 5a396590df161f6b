#!/usr/bin/env bash
# Every command has its own --help page: on stdout, exit 0, nothing on
# stderr, its usage line naming the command itself (not the global page
# nor a sibling's); the global page lists every command and --version; a
# command's operands missing or wrong print the reason on the first line,
# 'cephfab: COMMAND: ...', before the usage.
. "$(dirname "$0")/lib.sh"

cmds=$("$CEPHFAB" --help | awk '/^commands:/ {f=1; next} /^options:/ {f=0} f {print $1}')
[ "$(echo "$cmds" | wc -l)" -ge 20 ] || fail "the global page lists $(echo $cmds)"
"$CEPHFAB" --help | grep -q -- "--version" || fail "--version not in the global page"
for c in $cmds; do
	for h in --help -h; do
		out=$("$CEPHFAB" "$c" $h 2>"$T/err"); rc=$?
		assert_eq "$rc" 0 "$c $h exit"
		[ -s "$T/err" ] && fail "$c $h wrote to stderr: $(cat "$T/err")"
		echo "$out" | head -1 | grep -q "^usage: cephfab .*\b$c\b" ||
			fail "$c $h: first line is '$(echo "$out" | head -1)'"
		echo "$out" | head -1 | grep -q "COMMAND" && fail "$c $h: the global page"
	done
done
# mtu, ports and reach are not latency's page.
for c in mtu ports reach; do
	"$CEPHFAB" "$c" --help | grep -q latency && fail "$c --help shows latency's page"
done
inv=$T/inv
printf '[global]\nkey = %s\n[host h1]\nagent = 127.0.0.1\n' "$T/key" > "$inv"
keygen "$T/key"
# reason: the command, why; exit 2.
why() {
	local want=$1; shift
	out=$("$CEPHFAB" "$@" 2>&1 >/dev/null); rc=$?
	assert_eq "$rc" 2 "$* exit"
	assert_eq "$(echo "$out" | head -1)" "$want" "$* first line"
}
why "cephfab: pair: two hosts, A and B" -i "$inv" pair h1
why "cephfab: mtu: two hosts, A and B" -i "$inv" mtu h1
why "cephfab: latency: only two hosts, A and B" -i "$inv" latency h1 h1 h1
why "cephfab: report: which run? ('cephfab runs' lists them)" report
why "cephfab: report: one run at a time ('cephfab compare A B' for two)" report 1 2
why "cephfab: watch: --net: 'storage' is not public or cluster" -i "$inv" watch --net storage
why "cephfab: matrix: unexpected 'h1' (the hosts are the inventory's)" -i "$inv" matrix h1
why "cephfab: version: takes no operand" version now
# version --json is JSON.
"$CEPHFAB" version --json | jq -e '.version and .protocol' > /dev/null || fail "version --json"
echo "cli_help: ok"
