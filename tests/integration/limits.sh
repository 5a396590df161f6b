#!/usr/bin/env bash
# An agent's own limits, whatever the coordinator asks: more streams, a
# longer duration, a higher rate (or no rate at all where one is capped),
# a target outside allow_targets. Each refused with the limit named, exit
# 3, and nothing sent: no data connection reaches the other agent and the
# sender's byte counters do not move. Then a request within the limits
# runs.
. "$(dirname "$0")/lib.sh"
N=$(loopnet)
keygen "$T/key"
printf 'max_streams = 4\nmax_duration = 10\nmax_rate = 100M\nallow_targets = %s.0/24\n' "$N" > "$T/a.conf"
start_agent a "$N.11:7470" "$T/key" -c "$T/a.conf"
start_agent b "$N.12:7470" "$T/key"
printf '[global]\nkey = %s\n[host a]\nagent = %s.11\npublic = %s.11\n[host b]\nagent = %s.12\npublic = %s.12\n' \
	"$T/key" "$N" "$N" "$N" "$N" > "$T/inv"
printf '[global]\nkey = %s\n[host a]\nagent = %s.11\npublic = %s.11\n[host c]\nagent = %s.12\npublic = 127.1.2.3\n' \
	"$T/key" "$N" "$N" "$N" > "$T/out.inv"
cf() { "$CEPHFAB" -i "$T/inv" "$@"; }
# Data connections between the two agents' addresses, from the kernel,
# in any state: a closed one stays in TIME_WAIT for a minute, so one made
# by a refused request would still be seen. (The coordinator's control
# connections come from elsewhere.)
conns() { ss -tanH "( src $N.11 and dst $N.12 ) or ( src $N.12 and dst $N.11 )" 2>/dev/null | wc -l; }

refused() { # WHAT LIMIT ARGS...
	local what=$1 limit=$2 out rc; shift 2
	out=$("$@" 2>&1); rc=$?
	assert_eq "$rc" 3 "$what: exit"
	echo "$out" | grep -q "$limit" || fail "$what: the limit is not named: $out"
	[ "$(echo "$out" | grep -c "$limit")" -ge 1 ] || fail "$what: $out"
}
refused "streams" "limit max_streams = 4" cf pair a b -P 8 -t 1 --rate 10M
refused "duration" "limit max_duration = 10" cf pair a b -t 30 --rate 10M
refused "rate" "limit max_rate = 100 Mbit/s" cf pair a b -t 1 --rate 1G
refused "no rate" "limit max_rate = 100 Mbit/s" cf pair a b -t 1
refused "target" "allow_targets" "$CEPHFAB" -i "$T/out.inv" pair a c -t 1 --rate 10M
# Nothing was sent: no connection between a and b at all, and b's
# listeners were closed by the refusal.
assert_eq "$(conns)" 0 "connections from a to b after the refused requests"
assert_eq "$(grep -c "ended: aborted: agent on a (A) refused: limit" "$T/b.log")" 5 "b's listeners closed by the five refusals"
# And says what to do: the limit is the agent's, not the network's.
out=$(cf pair a b -t 1 2>&1)
echo "$out" | grep -q "pace the test within it: -b RATE" || fail "pair's refusal says no way out: $out"
# Within the limits: it runs, at the rate asked (and its connections
# show where the refused ones would have).
cf pair a b -P 2 -t 2 --rate 40M --json > "$T/ok.json" || fail "a test within the limits: $(jq -c .error "$T/ok.json")"
[ "$(conns)" -ge 2 ] || fail "the test's own connections are not seen: $(ss -tan | grep "$N" | head)"
jq -e '.end.sum.bits_per_second > 60e6 and .end.sum.bits_per_second < 90e6' "$T/ok.json" >/dev/null ||
	fail "2 x 40 Mbit/s: $(jq .end.sum.bits_per_second "$T/ok.json")"
exit 0
