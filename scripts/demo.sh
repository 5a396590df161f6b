#!/usr/bin/env bash
# 'make demo': the main job on a built-in lab. Builds the leaf-spine
# fabric (2 spines, 2 leaves, 4 hosts, real FRR eBGP with ECMP), breaks it
# in two ways real fabrics break (1 % loss on one spine uplink, a
# 1500-byte MTU on one host's cluster port), starts an agent on every
# host, runs 'cephfab matrix' on both Ceph networks from the admin
# namespace, prints the matrix and the findings, writes demo-report.html,
# and removes the lab, whatever happens.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "demo: needs root (network namespaces)" >&2; exit 2; }
P=""
T=$(mktemp -d /tmp/cf-demo.XXXXXX)
trap '[ -n "$P" ] && "$top/tests/lab/lab.sh" down "$P" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
start=$(date +%s)
P=$("$top/tests/lab/lab.sh" up "${DEMO_TOPOLOGY:-leafspine}" --agents \
	--fault loss:l1-s1:1 --fault mtu:h2-clu:l1:1500) || exit 3
echo "# lab $P: leaf-spine, faults: 1 % loss on l1-s1, MTU 1500 on h2's cluster port (leaf side)" >&2
echo "# cephfab -i lab.inv matrix --profile configs/profiles/lab.conf -t 3 --html demo-report.html" >&2
ip netns exec "$P-adm" "$top/build/cephfab" -i "/run/cephfab-lab/$P/lab.inv" \
	matrix --profile "$top/configs/profiles/lab.conf" -t 3 --db "$T/demo.db" \
	--html "$top/demo-report.html" --json "$top/demo-report.json"
rc=$?
echo "# demo-report.html written; $(( $(date +%s) - start )) s in all; matrix exit $rc (1 = faults found, as injected)" >&2
[ $rc -le 1 ] || exit $rc
exit 0
