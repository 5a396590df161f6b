#!/usr/bin/env bash
# Three agents on loopback: one good, one with the wrong key, one killed;
# 'cephfab hosts --json' reports exactly ok, auth_failed, unreachable, in
# under 10 s, with exit 1. Plus a fourth speaking another protocol version,
# and the all-ok case with exit 0.
. "$(dirname "$0")/lib.sh"

N=$(loopnet)
keygen "$T/key"
keygen "$T/other"
start_agent good "$N.11:7470" "$T/key"
start_agent wrongkey "$N.12:7470" "$T/other"
start_agent killed "$N.13:7470" "$T/key"
KILLED=$AGENT_PID
start_agent newer "$N.14:7470" "$T/key" --x-proto-version 3
kill "$KILLED"; wait "$KILLED" 2>/dev/null
cat > "$T/inv" <<INV
[global]
key = key
public_network = $N.0/24
[host good]
agent = $N.11
public = $N.11
[host wrongkey]
agent = $N.12
[host killed]
agent = $N.13
[host newer]
agent = $N.14:7470
INV

start=$(date +%s%N)
"$CEPHFAB" -i "$T/inv" hosts --json >"$T/out.json" 2>"$T/err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
note "hosts took ${ms} ms, exit $rc"
assert_eq "$rc" 1 "exit status"
[ "$ms" -lt 10000 ] || fail "took ${ms} ms"
jq -e . "$T/out.json" >/dev/null || fail "not JSON: $(cat "$T/out.json")"
state() { jq -r --arg h "$1" '.hosts[] | select(.name == $h) | .state' "$T/out.json"; }
assert_eq "$(state good)" ok "good"
assert_eq "$(state wrongkey)" auth_failed "wrongkey"
assert_eq "$(state killed)" unreachable "killed"
assert_eq "$(state newer)" version_mismatch "newer"
assert_eq "$(jq -r .verdict "$T/out.json")" fail "verdict"
assert_eq "$(jq -r '.hosts[0].version' "$T/out.json")" "0.1.0" "version"
assert_eq "$(jq -r '.hosts[0].public.present' "$T/out.json")" true "public present"
jq -e '.hosts[0].uptime >= 0' "$T/out.json" >/dev/null || fail "uptime"
[ -s "$T/err" ] && fail "stderr not empty in a pipe: $(cat "$T/err")"
# The agent logged the refused coordinator and kept serving.
grep -q "authentication failed" "$T/wrongkey.log" || fail "no auth log"
grep -q "version mismatch" "$T/newer.log" || fail "no version log"

# The human table says the same.
"$CEPHFAB" -i "$T/inv" hosts >"$T/out.txt" 2>&1
grep -q '^wrongkey .*auth_failed' "$T/out.txt" || fail "table: $(cat "$T/out.txt")"
# An agent with no Ceph networks in its agent.conf may send anywhere its
# host is: the table warns about it, by name (JSON: targets).
grep -q "^warning: good's agent has no public_network" "$T/out.txt" ||
	fail "no warning for an agent without networks: $(cat "$T/out.txt")"
assert_eq "$(jq -r '.hosts[] | select(.name == "good") | .targets' "$T/out.json")" host_subnets \
	"targets in JSON"
"$AGENT" -n --key "$T/key" -c /dev/null > "$T/n1.txt" 2>&1
grep -q "^warning: no public_network" "$T/n1.txt" || fail "-n without networks: $(cat "$T/n1.txt")"
printf 'public_network = %s.0/24\nmax_rate = 10G\n' "$N" > "$T/nets.conf"
"$AGENT" -n --key "$T/key" -c "$T/nets.conf" > "$T/n2.txt" 2>&1
grep -q "^warning" "$T/n2.txt" && fail "-n with networks warned: $(cat "$T/n2.txt")"

# Only good hosts: exit 0.
cat > "$T/inv2" <<INV
[global]
key = key
[host good]
agent = $N.11
INV
"$CEPHFAB" -i "$T/inv2" hosts >/dev/null 2>&1
assert_eq "$?" 0 "all-ok exit status"

# SIGTERM: the agent stops cleanly with exit 0.
kill -TERM "${PIDS[0]}"
wait "${PIDS[0]}"; rc=$?
assert_eq "$rc" 0 "agent exit status after SIGTERM"
grep -q stopped "$T/good.log" || fail "no clean stop"

# SIGTERM while a facts job waits for a vtysh that hangs: the agent ends
# the child and stops at once, not at vtysh's 5 s deadline per command.
printf '#!/bin/sh\nsleep 30\n' > "$T/hang-vtysh"
chmod +x "$T/hang-vtysh"
printf 'vtysh = %s\n' "$T/hang-vtysh" > "$T/hang.conf"
start_agent hang "$N.15:7470" "$T/key" -c "$T/hang.conf"
HANG=$AGENT_PID
printf '[global]\nkey = key\n[host hang]\nagent = %s.15\n' "$N" > "$T/inv3"
"$CEPHFAB" -i "$T/inv3" hosts --facts >/dev/null 2>&1 &
PIDS+=($!)
wait_until 5 pgrep -f "$T/hang-vtysh" >/dev/null || fail "the facts job did not start vtysh"
t0=$(date +%s%N)
kill -TERM "$HANG"
wait "$HANG"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
note "SIGTERM with vtysh hanging: stopped in $ms ms, exit $rc"
assert_eq "$rc" 0 "agent exit status after SIGTERM with vtysh hanging"
[ "$ms" -lt 2000 ] || fail "SIGTERM took $ms ms with vtysh hanging"
pgrep -f "$T/hang-vtysh" >/dev/null && fail "vtysh left running"
echo "hosts: ok"
