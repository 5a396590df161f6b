#!/usr/bin/env bash
# Bad input to both programs: one clear line naming the file (and line)
# and the right exit code, never a crash.
. "$(dirname "$0")/lib.sh"

keygen "$T/key"
# A key readable by others is refused by both programs.
"$CEPHFAB" keygen > "$T/openkey"; chmod 644 "$T/openkey"
out=$("$AGENT" -n --key "$T/openkey" 2>&1); rc=$?
assert_eq "$rc" 2 "agent with 0644 key"
echo "$out" | grep -q "$T/openkey: key file is accessible by group or others" || fail "msg: $out"
# A short key.
echo 0011 > "$T/short"; chmod 600 "$T/short"
out=$("$AGENT" -n --key "$T/short" 2>&1); rc=$?
assert_eq "$rc" 2 "agent with short key"
echo "$out" | grep -q "at least 32" || fail "msg: $out"
# -n on a good config.
printf 'listen = 127.0.0.1:7999\nkey = %s\n' "$T/key" > "$T/agent.conf"
out=$("$AGENT" -n -c "$T/agent.conf" 2>&1); rc=$?
assert_eq "$rc" 0 "agent -n good"
# A config error names file and line.
printf 'listen = 127.0.0.1:7999\nmax_sessions = lots\n' > "$T/bad.conf"
out=$("$AGENT" -n -c "$T/bad.conf" 2>&1); rc=$?
assert_eq "$rc" 2 "agent -n bad"
assert_eq "$out" "cephfab-agent: $T/bad.conf:2: max_sessions: 'lots' is not a whole number in [1, 1024]" "agent config message"
out=$("$AGENT" --bogus 2>&1); rc=$?
assert_eq "$rc" 2 "agent bad flag"

# Coordinator: inventory errors name file:line, exit 2.
printf '[global]\nkey = key\n[host a]\nagent = 127.0.0.1\nclster = 1.2.3.4\n' > "$T/bad.inv"
out=$("$CEPHFAB" -i "$T/bad.inv" check 2>&1); rc=$?
assert_eq "$rc" 2 "check bad inventory"
assert_eq "$out" "cephfab: $T/bad.inv:5: unknown key 'clster' in [host]" "inventory message"
out=$("$CEPHFAB" -i "$T/bad.inv" hosts --json 2>/dev/null); rc=$?
assert_eq "$rc" 2 "hosts on bad inventory"
printf '[global]\nkey = key\n[host a]\nagent = 127.0.0.1\n' > "$T/good.inv"
out=$("$CEPHFAB" -i "$T/good.inv" check 2>&1); rc=$?
assert_eq "$rc" 0 "check good inventory"
out=$("$CEPHFAB" -i "$T/good.inv" -k "$T/openkey" check 2>&1); rc=$?
assert_eq "$rc" 2 "check with open key"
out=$("$CEPHFAB" frobnicate 2>&1); rc=$?
assert_eq "$rc" 2 "unknown command"
echo "$out" | grep -q "unknown command 'frobnicate'" || fail "msg: $out"
out=$("$CEPHFAB" hosts 2>&1); rc=$?
assert_eq "$rc" 2 "no inventory"
out=$("$CEPHFAB" -t abc hosts 2>&1); rc=$?
assert_eq "$rc" 2 "bad timeout"
# keygen -o never overwrites.
out=$("$CEPHFAB" keygen -o "$T/key" 2>&1); rc=$?
assert_eq "$rc" 3 "keygen over an existing key"
assert_eq "$(stat -c %a "$T/key")" 600 "keygen mode"
# migrate: a plan that is not one, or names an unknown action, or a
# journal that is not one: one line naming the file (and step), exit 2,
# nothing run.
echo 'not json' > "$T/p1.json"
out=$("$CEPHFAB" migrate --plan "$T/p1.json" 2>&1); rc=$?
assert_eq "$rc" 2 "migrate on a non-JSON plan"
assert_eq "$out" "cephfab: migrate: $T/p1.json: not JSON (a plan from 'cephfab plan --out')" "plan message"
echo '{"to": "198.20.0.0/24", "steps": [{"name": "x", "do": {"op": "reboot"}}]}' > "$T/p2.json"
out=$("$CEPHFAB" migrate --plan "$T/p2.json" --execute 2>&1); rc=$?
assert_eq "$rc" 2 "migrate on an unknown op"
assert_eq "$out" "cephfab: migrate: $T/p2.json: steps[0]: op: 'reboot' unknown" "op message"
[ -e "$T/p2.json.journal" ] && fail "a journal for a refused plan"
echo '{"to": "198.20.0.0/24", "steps": [{"name": "x"}]}' > "$T/p3.json"
printf '{"event":"begin","to":"198.20.0.0/24","steps":1}\ngarbage\n' > "$T/p3.json.journal"
out=$("$CEPHFAB" migrate --plan "$T/p3.json" --execute --resume 2>&1); rc=$?
[ "$rc" = 3 ] || [ "$rc" = 2 ] || fail "migrate on a bad journal: exit $rc"
assert_eq "$out" "cephfab: migrate: $T/p3.json.journal:2: not a journal event" "journal message"
out=$("$CEPHFAB" migrate --plan "$T/p3.json" --execute 2>&1); rc=$?
assert_eq "$rc" 2 "migrate over an existing journal without --resume"
echo "$out" | grep -q "continue it with --resume, undo it with --rollback" || fail "msg: $out"
echo "cli_errors: ok"
