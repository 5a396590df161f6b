#!/usr/bin/env bash
# 'make demo': the main job on a built-in lab. Until the matrix exists it
# builds the leaf-spine lab with agents and runs 'cephfab hosts' from the
# admin namespace; the lab is removed on exit, whatever happens.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "demo: needs root (network namespaces)" >&2; exit 2; }
P=""
trap '[ -n "$P" ] && "$top/tests/lab/lab.sh" down "$P" >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM
P=$("$top/tests/lab/lab.sh" up "${DEMO_TOPOLOGY:-leafspine}" --agents) || exit 3
echo "# cephfab -i lab.inv hosts   (lab $P, coordinator in $P-adm)" >&2
ip netns exec "$P-adm" "$top/build/cephfab" -i "/run/cephfab-lab/$P/lab.inv" hosts
