#!/usr/bin/env bash
# 'make demo': the main job on a built-in lab. Until the lab and the matrix
# exist, it starts three agents on loopback and runs 'cephfab hosts'.
set -u
. "$(dirname "$0")/integration/lib.sh"
N=$(loopnet)
keygen "$T/key"
for i in 1 2 3; do start_agent "node$i" "$N.1$i:7470" "$T/key"; done
{
	echo "[global]"; echo "key = key"; echo "public_network = $N.0/24"
	for i in 1 2 3; do
		echo "[host node$i]"; echo "agent = $N.1$i"; echo "public = $N.1$i"
	done
} > "$T/demo.inv"
echo "# cephfab -i demo.inv hosts" >&2
"$CEPHFAB" -i "$T/demo.inv" hosts
