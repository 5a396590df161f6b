#!/usr/bin/env bash
# The coordinator killed with SIGKILL at random points of a matrix run, ten
# times, each time resumed: the run completes, no cell is missing or
# stored twice, and the database passes PRAGMA integrity_check. Then the
# disk fills while the run writes: a clear error, exit 3, and the
# database still opens. Six agents on loopback, probes only (latency, MTU,
# ports: 60 cells).
. "$(dirname "$0")/lib.sh"
N=$(loopnet)
keygen "$T/key"
{ printf '[global]\nkey = %s\n' "$T/key"
  for i in 1 2 3 4 5 6; do printf '[host h%d]\nagent = %s.%d\npublic = %s.%d\n' $i "$N" $((10 + i)) "$N" $((10 + i)); done
} > "$T/inv"
for i in 1 2 3 4 5 6; do start_agent "h$i" "$N.$((10 + i)):7470" "$T/key"; done
# Started directly, never through a shell function: a function run with &
# is a subshell, its $! is that shell's, and kill -9 would leave the
# coordinator running (it then held the database's lock while the checks
# below read it).
MX=("$CEPHFAB" -i "$T/inv" matrix --tests lat,mtu,ports --db "$T/m.db")
# The checks wait for a lock rather than read an error as an empty count.
q() { sqlite3 -cmd '.timeout 10000' "$T/m.db" "$@"; }
# Nothing of a killed coordinator may live on: its children are in flight
# cells, and they end by themselves within their bounds.
no_coordinator() {
	local i
	for i in $(seq 50); do
		pgrep -f -- "--db $T/m.db" > /dev/null || return 0
		sleep 0.2
	done
	fail "a killed coordinator is still running: $(pgrep -af -- "--db $T/m.db")"
}

# The first attempt, killed early, with a profile: the resumes (given
# none) judge by it, as stored with the run.
"${MX[@]}" --profile "$TOP/configs/profiles/lab.conf" --json "$T/m.json" > /dev/null 2>&1 &
p=$!
# Killed once the run is in the database (a slow, sanitized build takes a
# while to get there), at a random point of its first cells.
wait_until 20 sh -c "sqlite3 -cmd '.timeout 2000' '$T/m.db' 'select count(*) from runs' 2>/dev/null | grep -q '^1$'" ||
	fail "the run was not stored"
sleep 0.$((RANDOM % 3 + 1)); kill -9 "$p"; wait "$p" 2>/dev/null
no_coordinator
run=$(q "select max(id) from runs")
[ -n "$run" ] || fail "no run was stored before the kill"
kills=1
counts=$(q "select count(*) from cells where run = $run")
for k in $(seq 2 10); do
	"${MX[@]}" --resume "$run" > /dev/null 2>&1 &
	# Kills from 10 to 400 ms in: a resumed run of what is left takes
	# well under 1 s, more with the sanitizers; one that ends first is
	# fine too.
	p=$!; sleep 0.$((RANDOM % 4))$((RANDOM % 9 + 1)); kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null
	no_coordinator
	kills=$((kills + 1))
	counts+=" $(q "select count(*) from cells where run = $run")"
	assert_eq "$(q 'pragma integrity_check')" ok "integrity after kill $k"
done
n_before=$(q "select count(*) from cells where run = $run")
"${MX[@]}" --resume "$run" --json "$T/final.json" > /dev/null 2> "$T/final.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "final resume exit $rc: $(cat "$T/final.err")"
note "$kills kills; cells stored after each: $counts"
# The kills landed mid-run: the first left cells to do.
[ "${counts%% *}" -lt 60 ] || fail "the first kill came after the run ended ($counts)"
assert_eq "$(q "select count(*) from cells where run = $run")" 60 "cells after the resumes"
assert_eq "$(q "select count(*) from (select network, src, dst, test from cells where run = $run group by 1, 2, 3, 4 having count(*) > 1)")" 0 "cells stored twice"
assert_eq "$(q 'pragma integrity_check')" ok "integrity at the end"
jq -e '(.networks.public.cells | length) == 30' "$T/final.json" >/dev/null || fail "final report"
assert_eq "$(jq -r .profile "$T/final.json")" lab "the resumed run's profile"
# report re-judges by the stored profile, or by one given to it.
assert_eq "$("$CEPHFAB" -i "$T/inv" report "$run" --db "$T/m.db" --json - 2>/dev/null | jq -r .profile)" lab "report's profile"
assert_eq "$("$CEPHFAB" -i "$T/inv" report "$run" --db "$T/m.db" --json - \
	--profile "$TOP/configs/profiles/hdd-10g.conf" 2>/dev/null | jq -r .profile)" hdd-10g "report with --profile"

# Ctrl-C during the bandwidth rounds (three of the agents, t = 3 s):
# every running test stops within 2 s, no child of the coordinator and
# no test on an agent is left, the database is whole and the run
# resumes to the end.
head -11 "$T/inv" > "$T/inv3"
"$CEPHFAB" -i "$T/inv3" matrix --tests bw -t 3 --db "$T/c.db" > /dev/null 2> "$T/c.err" &
p=$!
wait_until 30 sh -c "sqlite3 -cmd '.timeout 2000' '$T/c.db' 'select count(*) from cells where test = \"bw\"' 2>/dev/null | grep -qv '^0$'" ||
	fail "the bandwidth rounds did not start: $(cat "$T/c.err")"
sleep 0.5
kids=$(pgrep -P "$p" | tr '\n' ' ')
[ -n "$kids" ] || fail "no test running when interrupted"
t0=$(date +%s%N)
kill -INT "$p"
wait "$p"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
note "Ctrl-C: the coordinator ended in $ms ms, exit $rc: $(grep -m1 interrupted "$T/c.err")"
assert_eq "$rc" 4 "exit after Ctrl-C (the run incomplete)"
[ "$ms" -le 2500 ] || fail "Ctrl-C took $ms ms"
grep -q "interrupted; .* Resume with: .*--resume" "$T/c.err" || fail "Ctrl-C message: $(cat "$T/c.err")"
for k in $kids; do kill -0 "$k" 2>/dev/null && fail "child $k outlived the coordinator"; done
wait_until 3 sh -c "'$CEPHFAB' -i '$T/inv3' hosts --json | jq -e '[.hosts[] | select(.busy)] | length == 0'" ||
	fail "a test still runs on an agent: $("$CEPHFAB" -i "$T/inv3" hosts --json)"
assert_eq "$(sqlite3 "$T/c.db" 'pragma integrity_check')" ok "integrity after Ctrl-C"
crun=$(sqlite3 "$T/c.db" "select max(id) from runs")
cn=$(sqlite3 "$T/c.db" "select count(*) from cells where run = $crun and test = 'bw'")
"$CEPHFAB" -i "$T/inv3" matrix --db "$T/c.db" --resume "$crun" --json "$T/c.json" > /dev/null 2> "$T/cr.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "resume after Ctrl-C: exit $rc: $(cat "$T/cr.err")"
# Three hosts: three pairs, each cell both ways; nothing measured twice.
assert_eq "$(sqlite3 "$T/c.db" "select count(*) from cells where run = $crun and test = 'bw'")" 3 "bandwidth cells after the resume"
assert_eq "$(sqlite3 "$T/c.db" "select count(*) from (select src, dst from cells where run = $crun and test = 'bw' group by 1, 2 having count(*) > 1)")" 0 "bandwidth cells stored twice"
note "Ctrl-C after $cn of 3 bandwidth cells; the resume stored the rest"

# Disk full: the database on a 64 KB tmpfs (in a private mount namespace,
# gone with the command).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	mkdir -p "$T/full"
	# The reports too: an old report there stays whole, no
	# temporary is left, exit 3 naming the file.
	unshare -m sh -c "mount -t tmpfs -o size=64k none '$T/full' &&
		echo OLD > '$T/full/old.html' &&
		'$CEPHFAB' -i '$T/inv' matrix --tests lat,mtu,ports --db '$T/full/m.db' > /dev/null 2> '$T/full.err';
		echo \$? > '$T/full.rc'; cp '$T/full/m.db' '$T/full.db' 2>/dev/null;
		sqlite3 '$T/full/m.db' 'pragma integrity_check' > '$T/full.check' 2>&1;
		head -c 70000 /dev/zero > '$T/full/filler' 2>/dev/null;
		'$CEPHFAB' -i '$T/inv' report $run --db '$T/m.db' --html '$T/full/old.html' \
			--json '$T/full/r.json' > /dev/null 2> '$T/rep.err';
		echo \$? > '$T/rep.rc'; cat '$T/full/old.html' > '$T/old.after'; ls '$T/full' > '$T/full.ls'"
	assert_eq "$(cat "$T/rep.rc")" 3 "report exit on a full disk"
	grep -q "old.html: cannot write" "$T/rep.err" || fail "report message: $(cat "$T/rep.err")"
	[ "$(wc -l < "$T/rep.err")" = 2 ] || fail "one line per file: $(cat "$T/rep.err")"
	assert_eq "$(cat "$T/old.after")" OLD "the old report after a failed write"
	grep -q "tmp\|r.json" "$T/full.ls" && fail "half-written files left: $(cat "$T/full.ls")"
	note "full disk, report: $(head -1 "$T/rep.err")"
	assert_eq "$(cat "$T/full.rc")" 3 "exit on a full disk"
	grep -qi "full\|space\|disk" "$T/full.err" || fail "full-disk message: $(cat "$T/full.err")"
	assert_eq "$(head -1 "$T/full.check")" ok "the database after a full disk"
	note "full disk: $(grep -i 'full\|space' "$T/full.err" | head -1)"
else
	note "(disk-full part skipped: needs root for a private tmpfs)"
fi
exit 0
