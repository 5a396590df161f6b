#!/usr/bin/env bash
# Bad input to both programs: one clear line naming the file (and line)
# and the right exit code, never a crash.
. "$(dirname "$0")/lib.sh"

keygen "$T/key"
# A key readable by others is refused by both programs.
"$CEPHFAB" keygen > "$T/openkey"; chmod 644 "$T/openkey"
out=$("$AGENT" -n --key "$T/openkey" 2>&1); rc=$?
assert_eq "$rc" 2 "agent with 0644 key"
echo "$out" | grep -q "$T/openkey: key file is accessible by others" || fail "msg: $out"
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
# What a new user gets wrong, said plainly: a directory for -i, a host
# name for an address, a key file that is not there yet.
out=$("$CEPHFAB" -i "$T" check 2>&1); assert_eq "$?" 2 "-i a directory"
assert_eq "$out" "cephfab: inventory $T: a directory, not a file" "-i a directory message"
out=$("$CEPHFAB" -i "$T/none.inv" check 2>&1); assert_eq "$?" 2 "-i a missing file"
assert_eq "$out" "cephfab: inventory $T/none.inv: No such file or directory" "-i a missing file message"
printf '[global]\n[host a]\nagent = ceph-osd-01.example\n' > "$T/dns.inv"
out=$("$CEPHFAB" -i "$T/dns.inv" check 2>&1); assert_eq "$?" 2 "a host name"
assert_eq "$out" "cephfab: $T/dns.inv:3: agent: 'ceph-osd-01.example' is not ADDR or ADDR:PORT (host names are not resolved: give the address)" "host name message"
printf '[global]\nkey = %s/nokey\n[host a]\nagent = 127.0.0.1\n' "$T" > "$T/nokey.inv"
out=$("$CEPHFAB" -i "$T/nokey.inv" check 2>&1); assert_eq "$?" 2 "missing key"
assert_eq "$out" "cephfab: $T/nokey: cannot read the key file: No such file or directory (make one with 'cephfab keygen -o FILE')" "missing key message"
out=$("$CEPHFAB" frobnicate 2>&1); rc=$?
assert_eq "$rc" 2 "unknown command"
echo "$out" | grep -q "unknown command 'frobnicate'" || fail "msg: $out"
# Without -i: $CEPHFAB_INVENTORY, else /etc/cephfab/inventory (where
# it exists; the test cannot know, so it only checks the message when
# that file is absent), else a line saying all three.
out=$(CEPHFAB_INVENTORY= "$CEPHFAB" hosts 2>&1); rc=$?
if [ ! -e /etc/cephfab/inventory ]; then
	assert_eq "$rc" 2 "no inventory"
	assert_eq "$out" "cephfab: no inventory: give -i FILE, set CEPHFAB_INVENTORY or write /etc/cephfab/inventory" "no inventory message"
fi
out=$(CEPHFAB_INVENTORY="$T/good.inv" "$CEPHFAB" check 2>&1); rc=$?
assert_eq "$rc" 0 "CEPHFAB_INVENTORY names the inventory"
out=$(CEPHFAB_INVENTORY="$T/bad.inv" "$CEPHFAB" check 2>&1); rc=$?
assert_eq "$out" "cephfab: $T/bad.inv:5: unknown key 'clster' in [host]" "CEPHFAB_INVENTORY is the one read"
out=$(CEPHFAB_INVENTORY="$T/bad.inv" "$CEPHFAB" -i "$T/good.inv" check 2>&1); rc=$?
assert_eq "$rc" 0 "-i wins over CEPHFAB_INVENTORY"
out=$("$CEPHFAB" --connect-timeout abc hosts 2>&1); rc=$?
assert_eq "$rc" 2 "bad timeout"
assert_eq "$out" "cephfab: --connect-timeout: 'abc' is not a number of seconds in [0.1, 600]" "bad timeout message"
# -t before the command: the connect timeout still, said to be ambiguous.
out=$("$CEPHFAB" -t 2 -i "$T/good.inv" check 2>&1 >/dev/null); rc=$?
assert_eq "$rc" 0 "-t before the command"
assert_eq "$out" "cephfab: warning: -t before the command is the connect timeout: say --connect-timeout (after the command, -t is a test's duration)" "-t warning"
# Global options anywhere: after the command word, and after its operands.
out=$("$CEPHFAB" check -i "$T/good.inv" 2>&1); assert_eq "$?" 0 "check -i after the command"
out=$("$CEPHFAB" check --inventory="$T/good.inv" --connect-timeout 2 2>&1); assert_eq "$?" 0 "--inventory= after the command"
out=$("$CEPHFAB" pair a b -i "$T/bad.inv" 2>&1); assert_eq "$?" 2 "pair's -i after the hosts is the inventory"
echo "$out" | grep -q "$T/bad.inv:5: unknown key 'clster'" || fail "pair -i INV read the inventory: $out"
# A mistyped option after a command word: one line naming both, not the
# global usage page without "cephfab:".
out=$("$CEPHFAB" -i "$T/bad.inv" hosts --jsno 2>&1); assert_eq "$?" 2 "hosts --jsno"
assert_eq "$out" "cephfab: hosts: unknown option '--jsno' (cephfab hosts --help lists its options)" "hosts --jsno message"
out=$("$CEPHFAB" -i "$T/good.inv" pair a b -i 0.5 2>&1); assert_eq "$?" 2 "pair -i 0.5 (iperf3's interval)"
echo "$out" | grep -q -- "--interval" || fail "pair -i 0.5 message: $out"
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

# Output paths are checked before anything is measured (a typo used to
# cost the whole run): one line naming the option and the path, exit 2,
# no run stored.
printf '[global]\nkey = %s\n[host a]\nagent = 127.0.0.1\npublic = 127.0.0.1\n' "$T/key" > "$T/one.inv"
out=$("$CEPHFAB" -i "$T/one.inv" matrix --db "$T/none.db" --json /nonexistent-dir/m.json 2>&1); rc=$?
assert_eq "$rc" 2 "matrix with an unwritable --json"
assert_eq "$out" "cephfab: matrix: --json /nonexistent-dir/m.json: cannot write in /nonexistent-dir: No such file or directory" \
	"output path message"
out=$("$CEPHFAB" -i "$T/one.inv" matrix --db "$T/none.db" --html "$T" 2>&1); rc=$?
assert_eq "$rc" 2 "matrix with a directory for --html"
assert_eq "$out" "cephfab: matrix: --html $T: is a directory" "directory message"
[ -e "$T/none.db" ] && fail "a run was started before the output paths were checked"
true

# compare takes its options after the runs too, and says why it refuses.
out=$("$CEPHFAB" compare 1 2 --db "$T/missing.db" 2>&1); rc=$?
assert_eq "$rc" 2 "compare with a missing db"
assert_eq "$out" "cephfab: compare: $T/missing.db: No such file or directory" "compare --db after the runs"
out=$("$CEPHFAB" compare 1 --db "$T/missing.db" 2>&1); rc=$?
assert_eq "$rc" 2 "compare with one run"
assert_eq "$(echo "$out" | head -1)" "cephfab: compare: two or more runs to compare, got 1" "compare's reason"
"$CEPHFAB" compare --help > "$T/ch.txt" 2>&1 || fail "compare --help exit"
grep -q "^usage: cephfab compare" "$T/ch.txt" || fail "compare --help: $(cat "$T/ch.txt")"
true

# Errors name the command that was run, not another.
out=$("$CEPHFAB" -i "$T/one.inv" matrix -t 0 2>&1); rc=$?
assert_eq "$rc" 2 "matrix -t 0"
assert_eq "$out" "cephfab: matrix: -t: '0' is not a number in [1, 300]" "matrix's own name"
out=$("$CEPHFAB" -i "$T/one.inv" report abc 2>&1); rc=$?
assert_eq "$rc" 2 "report abc"
assert_eq "$out" "cephfab: report: RUN: 'abc' is not a number in [1, 1e+15]" "report's own name"
true

# iperf3 habits: -i and -O refused with what to type instead.
out=$("$CEPHFAB" -i "$T/one.inv" pair a a -i 0.5 2>&1); rc=$?
assert_eq "$rc" 2 "pair -i 0.5"
echo "$out" | grep -q "^cephfab: pair: -i 0.5: the interval is --interval S here" || fail "pair -i: $out"
out=$("$CEPHFAB" -i "$T/one.inv" pair a a -O 2 2>&1); rc=$?
assert_eq "$rc" 2 "pair -O 2"
echo "$out" | grep -q "^cephfab: pair: -O 2: there is no omit period" || fail "pair -O: $out"
true
