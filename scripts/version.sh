#!/bin/sh
# The version, said once: debian/changelog's first line, "cephfab (V) ...".
# The Makefile (cephfab version), make deb, make image and the tests read
# it here.
awk 'NR == 1 { gsub(/[()]/, "", $2); print $2 }' "$(dirname "$0")/../debian/changelog"
