#!/usr/bin/env bash
# Runs after every scenario (run_integration.sh runs tests/integration/
# last/ explicitly at the end): the scenarios left no lab namespace,
# state directory, FRR instance, Open vSwitch daemon or agent behind.
. "$(dirname "$0")/../lib.sh"
# new NAME...: the names not already there when the run began.
new() { local n; for n in "$@"; do case " ${CF_BEFORE:-} " in *" $n "*) ;; *) echo "$n" ;; esac; done; }
left=$(new $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^(t[0-9a-f]{5}[0-9]*|lab[0-9a-f]{5})-'))
[ -z "$left" ] || fail "namespaces left: $(echo $left)"
st=$(new $(ls /run/cephfab-lab 2>/dev/null))
[ -z "$st" ] || fail "lab state left: $st"
frr=$(new $(ls /var/run/frr 2>/dev/null | grep -E '^(t[0-9a-f]{5}[0-9]*|lab[0-9a-f]{5})-'))
[ -z "$frr" ] || fail "FRR run dirs left: $frr"
p=$(pgrep -af "$TOP/build(/asan)?/cephfab-agent" | grep -v pgrep || true)
[ -z "$p" ] || fail "agents left: $p"
# Open vSwitch daemons of a lab (stacked-lacp): their command lines name
# the lab's state directory.
o=$(pgrep -af "/run/cephfab-lab/(t[0-9a-f]{5}[0-9]*|lab[0-9a-f]{5})/ovs-" | grep -v pgrep || true)
[ -z "$o" ] || fail "OVS daemons left: $o"
[ -n "${CF_BEFORE// /}" ] && note "there before this run, not judged: $CF_BEFORE"
echo "nothing_left: ok"
