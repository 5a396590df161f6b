#!/usr/bin/env bash
# Runs after every scenario (run_integration.sh runs tests/integration/
# last/ explicitly at the end): the scenarios left no lab namespace,
# state directory, FRR instance or agent behind.
. "$(dirname "$0")/../lib.sh"
left=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^(t[0-9a-f]{5}[0-9]*|lab[0-9a-f]{5})-' || true)
[ -z "$left" ] || fail "namespaces left: $(echo $left)"
st=$(ls /run/cephfab-lab 2>/dev/null || true)
[ -z "$st" ] || fail "lab state left: $st"
frr=$(ls /var/run/frr 2>/dev/null | grep -E '^(t[0-9a-f]{5}[0-9]*|lab[0-9a-f]{5})-' || true)
[ -z "$frr" ] || fail "FRR run dirs left: $frr"
p=$(pgrep -af "$TOP/build(/asan)?/cephfab-agent" | grep -v pgrep || true)
[ -z "$p" ] || fail "agents left: $p"
echo "nothing_left: ok"
