#!/usr/bin/env bash
# The shipped systemd unit runs the agent as its own user with CAP_NET_RAW
# and nothing else, hardened as 'systemd-analyze security' asks (its
# exposure score recorded in docs/security.md); and an agent started that way
# (an unprivileged user, CAP_NET_RAW alone, no new privileges) serves a
# test with its streams' paths traced and a live capture.
. "$(dirname "$0")/lib.sh"
UNIT=$T/cephfab-agent.service
sed "s|@PREFIX@|/usr/local|g" "$TOP/dist/cephfab-agent.service.in" > "$UNIT"
grep -q '^User=cephfab$' "$UNIT" || fail "the unit does not name its user"
assert_eq "$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")" CAP_NET_RAW "capability bounding set"
assert_eq "$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")" CAP_NET_RAW "ambient capabilities"
grep -q 'CAP_SETUID\|CAP_SETGID\|CAP_SYS_ADMIN' "$UNIT" && fail "the unit keeps more than CAP_NET_RAW"
# The monitor keeps its pinglist in state_dir: /var/lib/cephfab, made for
# the user by systemd (ProtectSystem=strict leaves nothing else writable).
grep -q '^StateDirectory=cephfab$' "$UNIT" || fail "no StateDirectory for the monitor's state_dir"
if command -v systemd-analyze >/dev/null; then
	score=$(systemd-analyze security --offline=true "$UNIT" 2>/dev/null |
		sed -n 's/.*Overall exposure level for cephfab-agent.service: \([0-9.]*\).*/\1/p')
	note "systemd-analyze security --offline=true: exposure $score"
	[ -n "$score" ] || fail "no exposure score"
	[ "$(echo "$score <= 2.0" | bc)" = 1 ] || fail "exposure $score over 2.0"
fi

# As the unit runs it: another user, CAP_NET_RAW only.
command -v setpriv >/dev/null || skip "no setpriv"
N=$(loopnet)
keygen "$T/key"
chmod o+x "$T"	# the unprivileged agent reads its files here
cp "$T/key" "$T/key.nobody"
chown nobody "$T/key.nobody"
printf 'public_network = 127.0.0.0/8\n' > "$T/a.conf"	# lo holds 127.0.0.1/8
chmod 644 "$T/a.conf"
setpriv --reuid=nobody --regid=nogroup --init-groups --inh-caps=-all,+net_raw \
	--ambient-caps=-all,+net_raw --bounding-set=-all,+net_raw --no-new-privs \
	"$AGENT" -d --listen "$N.11:7470" --key "$T/key.nobody" -c "$T/a.conf" > "$T/a.log" 2>&1 &
PIDS+=($!)
A=$!
start_agent b "$N.12:7470" "$T/key" -c "$T/a.conf"
wait_until 5 grep -q "listening on" "$T/a.log" || fail "the unprivileged agent: $(cat "$T/a.log")"
grep -q '^CapEff:.*0000000000002000$' "/proc/$A/status" || fail "capabilities: $(grep Cap "/proc/$A/status")"
assert_eq "$(stat -c %U "/proc/$A")" nobody "the agent's user"
printf '[global]\nkey = %s\n[host a]\nagent = %s.11\npublic = %s.11\n[host b]\nagent = %s.12\npublic = %s.12\n' \
	"$T/key" "$N" "$N" "$N" "$N" > "$T/inv"
"$CEPHFAB" -i "$T/inv" pair a b -t 1 --json > "$T/p.json" 2>"$T/p.err" || fail "pair: $(cat "$T/p.err")"
jq -e '[.end.streams[].sender.path] | length > 0 and all(has("error") | not)' "$T/p.json" >/dev/null ||
	fail "paths not traced: $(jq -c '[.end.streams[].sender.path]' "$T/p.json")"
"$CEPHFAB" -i "$T/inv" watch --net public -t 2 --json > "$T/w.json" 2>"$T/w.err"
grep -q '"host": *"a"\|"host":"a"' "$T/w.json" || fail "no capture from the unprivileged agent: $(cat "$T/w.err")"
grep -q '"error"' "$T/w.json" && fail "capture error: $(grep error "$T/w.json" | head -2)"
true
