#!/usr/bin/env bash
# Every JSON document on stdout carries one envelope (command, version,
# started and finished with a zone, options), and a command asked for
# JSON that fails before printing its document (usage, configuration)
# still prints one, with the error line and the exit code in it: stdout
# is never empty under --json.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
loop_cluster 2 h%d
ts='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}$'
# envelope FILE COMMAND: the document's envelope is whole and right.
envelope() {
	jq -e . "$1" > /dev/null 2>&1 || fail "$2: not one JSON document: $(head -c 300 "$1")"
	assert_eq "$(jq -r .command "$1")" "$2" "$2: command"
	assert_eq "$(jq -r .version "$1")" "$("$CEPHFAB" version --json | jq -r .version)" "$2: version"
	jq -r .started "$1" | grep -Eq "$ts" || fail "$2: started $(jq -r .started "$1")"
	jq -r .finished "$1" | grep -Eq "$ts" || fail "$2: finished $(jq -r .finished "$1")"
	[ "$(jq -r '.started <= .finished' "$1")" = true ] || fail "$2: finished before it started"
	assert_eq "$(jq -r '.options | type' "$1")" array "$2: options"
}
c() { "$CEPHFAB" -i "$T/inv" "$@" 2> "$T/err"; }
# ok FILE COMMAND: an envelope and no error.
ok() { envelope "$1" "$2"; assert_eq "$(jq -r 'has("error")' "$1")" false "$2: an error member: $(jq -r .error "$1")"; }

c check --json > "$T/check.json"; assert_eq "$?" 0 "check --json"
ok "$T/check.json" check
assert_eq "$(jq -r '[.hosts[].name] | join(" ")' "$T/check.json")" "h1 h2" "check: hosts as data"
assert_eq "$(jq -r '.hosts[0].public' "$T/check.json")" "$N.11" "check: an address"
c hosts --json > "$T/hosts.json"; assert_eq "$?" 0 "hosts --json"
ok "$T/hosts.json" hosts
c pair h1 h2 -t 1 --json > "$T/pair.json"; assert_eq "$?" 0 "pair --json ($(cat "$T/err"))"
ok "$T/pair.json" pair
assert_eq "$(jq -c .options "$T/pair.json")" '["h1","h2","-t","1","--json"]' "pair: options as given"
c latency h1 h2 --count 20 --json > "$T/lat.json"; assert_eq "$?" 0 "latency --json"
ok "$T/lat.json" latency
c matrix --net public --tests lat --db "$T/m.db" --json - > "$T/m.json"; assert_eq "$?" 0 "matrix --json -"
ok "$T/m.json" matrix
c matrix --net public --tests lat,ports --db "$T/m.db" --json "$T/mf.json" --csv "$T/m.csv" > /dev/null
assert_eq "$?" 0 "matrix --json FILE"
# ports: [] when every port was open (the CSV says "open").
assert_eq "$(jq -c '[.networks.public.cells[].ports]' "$T/mf.json")" "[[],[]]" "ports as data"
assert_eq "$(sed -n 2p "$T/m.csv" | awk -F, '{print $NF}')" open "ports in the CSV"
ok "$T/mf.json" matrix
# /dev/stdout is standard output, as '-' is: through a pipe (old code:
# "Too many levels of symbolic links"), and one output only.
c report 2 --db "$T/m.db" --json /dev/stdout | cat > "$T/rs.json"
assert_eq "${PIPESTATUS[0]}" 0 "report --json /dev/stdout ($(cat "$T/err"))"
ok "$T/rs.json" report
c report 2 --db "$T/m.db" --json - --csv /dev/stdout > /dev/null
assert_eq "$?" 2 "two outputs to standard output"
grep -q 'only one output can go to standard output' "$T/err" || fail "two outputs: $(cat "$T/err")"
"$CEPHFAB" runs --db "$T/m.db" --json > "$T/runs.json"; ok "$T/runs.json" runs
"$CEPHFAB" report 1 --db "$T/m.db" --json - > "$T/r.json"; ok "$T/r.json" report
"$CEPHFAB" compare 1 2 --db "$T/m.db" --json > "$T/cmp.json"; ok "$T/cmp.json" compare
"$CEPHFAB" version --json > "$T/v.json"; ok "$T/v.json" version
assert_eq "$(jq -r '.runs | length' "$T/runs.json")" 2 "runs: the stored runs"
c mesh --count 5 --json > "$T/mesh.json"; assert_eq "$?" 0 "mesh --json"
ok "$T/mesh.json" mesh
assert_eq "$(jq -r '.results | length' "$T/mesh.json")" 2 "mesh: both directions"

# Errors: a document with exit and error, the same line on stderr.
err_doc() {
	# err_doc NAME COMMAND EXIT ERROR: the last run's stdout ($T/e.json).
	envelope "$T/e.json" "$2"
	assert_eq "$(jq -r .exit "$T/e.json")" "$3" "$1: exit in the document"
	assert_eq "$(jq -r .error "$T/e.json")" "$4" "$1: error in the document"
	assert_eq "$(jq -r .verdict "$T/e.json")" error "$1: verdict"
	grep -qF "cephfab: $4" "$T/err" || fail "$1: stderr: $(cat "$T/err")"
}
c pair h1 --json > "$T/e.json"; assert_eq "$?" 2 "pair with one host"
err_doc "usage" pair 2 "pair: two hosts, A and B"
c matrix -t 0 --json - > "$T/e.json"; assert_eq "$?" 2 "matrix -t 0"
err_doc "bad value" matrix 2 "matrix: -t: '0' is not a number in [1, 300]"
"$CEPHFAB" -i "$T/none.inv" hosts --json > "$T/e.json" 2> "$T/err"; assert_eq "$?" 2 "missing inventory"
err_doc "configuration" hosts 2 "inventory $T/none.inv: No such file or directory"
"$CEPHFAB" --json -i "$T/none.inv" check > "$T/e.json" 2> "$T/err"; assert_eq "$?" 2 "check --json, missing inventory"
err_doc "check" check 2 "inventory $T/none.inv: No such file or directory"
"$CEPHFAB" report 7 --db "$T/m.db" --json - > "$T/e.json" 2> "$T/err"; rc=$?
[ "$rc" -ge 2 ] || fail "report of a missing run: exit $rc"
envelope "$T/e.json" report
# getopt's own complaint is the error too.
"$CEPHFAB" compare 1 2 --db "$T/m.db" --frob --json > "$T/e.json" 2> "$T/err"; rc=$?
err_doc "getopt" compare 2 "compare: unrecognized option '--frob'"
# Without --json, stdout stays empty on an error; --json FILE (not '-')
# leaves stdout to the table, so no document there either.
out=$(c pair h1); assert_eq "$out" "" "error without --json"
out=$(c matrix -t 0 --json "$T/x.json"); assert_eq "$out" "" "error with --json FILE"
