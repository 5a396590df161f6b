#!/usr/bin/env bash
# The ports probe never shares a port with another process: a daemon of
# the agent's own user listening with SO_REUSEPORT keeps every connection
# made to it while probes of that port run (the probe's own listener
# would otherwise join the daemon's reuseport group and take some), and
# the port reported is the daemon's. Two coordinators probing one port at
# once both see it open (the second shares the first's listener).
. "$(dirname "$0")/lib.sh"
N=$(loopnet)
keygen "$T/key"
start_agent a "$N.11:7470" "$T/key"
start_agent b "$N.12:7470" "$T/key"
printf '[global]\nkey = %s\n[host a]\nagent = %s.11\npublic = %s.11\n[host b]\nagent = %s.12\npublic = %s.12\n' \
	"$T/key" "$N" "$N" "$N" "$N" > "$T/inv"

python3 - "$N.12" "$CEPHFAB" "$T" > "$T/r.json" <<'PY' || fail "reuseport: $(cat "$T/r.json")"
import json, socket, subprocess, sys, threading, time
host, cephfab, tdir = sys.argv[1:4]
# The daemon: the agent's own user (root here), SO_REUSEPORT, counting.
d = socket.socket(); d.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
d.bind((host, 6800)); d.listen(128); d.settimeout(0.2)
got, stop, dstop = [0], [False], [False]
def daemon():
    while not dstop[0]:
        try:
            c, _ = d.accept(); got[0] += 1; c.close()
        except socket.timeout:
            pass
th = threading.Thread(target=daemon); th.start()
# Clients connect all along while probes of the port run one after
# another for 3 s.
made = [0]
def clients():
    while not stop[0]:
        try:
            socket.create_connection((host, 6800), timeout=1).close(); made[0] += 1
        except OSError:
            pass
        time.sleep(0.01)
ct = threading.Thread(target=clients); ct.start()
states = []
t0 = time.monotonic()
while len(states) < 5 or time.monotonic() - t0 < 3:
    r = subprocess.run([cephfab, "-i", tdir + "/inv", "ports", "a", "b", "--ports", "6800", "--json"],
                       capture_output=True, text=True, timeout=30)
    try:
        states.append(json.loads(r.stdout)["results"][0]["ports"][0]["state"])
    except Exception:
        states.append((r.stdout + r.stderr)[-200:])
stop[0] = True; ct.join(); time.sleep(0.5); dstop[0] = True; th.join()
nprobes = len(states)
print(json.dumps({"made": made[0], "daemon": got[0], "probes": nprobes,
                  "states": sorted(set(states))}))
PY
note "reuseport: $(cat "$T/r.json")"
# The daemon got every client's connection and each probe's own.
jq -e '.made >= 20 and .daemon == .made + .probes and .states == ["open"]' "$T/r.json" >/dev/null ||
	fail "connections taken from the daemon, or its port misread: $(cat "$T/r.json")"

# Two probes of one free port at once: both open.
CP=()
for i in 1 2 3; do
	"$CEPHFAB" -i "$T/inv" ports a b --ports 6899 --json > "$T/c$i.json" 2>&1 &
	CP+=($!)
done
wait "${CP[@]}"
for i in 1 2 3; do
	assert_eq "$(jq -r '.results[0].ports[0].state' "$T/c$i.json" 2>/dev/null)" open \
		"concurrent probe $i ($(head -c 300 "$T/c$i.json"))"
done
