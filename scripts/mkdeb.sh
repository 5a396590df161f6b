#!/usr/bin/env bash
# make deb: the Debian packages cephfab-agent and cephfab, built with
# dpkg-buildpackage from a copy of the tree's files (git's tracked files
# when this is a clone; the tree's own build/ is left alone), into
# build/deb/.
#   mkdeb.sh [OUTDIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb}
ver=$("$top/scripts/version.sh")
for t in dpkg-buildpackage dh; do
	command -v "$t" >/dev/null || {
		echo "mkdeb: no $t (make test-deps, or apt-get install dpkg-dev debhelper)" >&2
		exit 2
	}
done
src=$out/cephfab-$ver
rm -rf "$src" "$out"/cephfab*_"$ver"_*.deb "$out"/cephfab_"$ver"_*.buildinfo \
	"$out"/cephfab_"$ver"_*.changes
mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# The tracked files as they are now, edits and new files included.
	(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src")
else
	(cd "$top" && tar --exclude=./build --exclude=./cephfab \
		--exclude=./cephfab-agent -cf - .) | (cd "$src" && tar -xf -)
fi
jobs=$(nproc 2>/dev/null || echo 2)
log=$out/build.log
if ! (cd "$src" && DEB_BUILD_OPTIONS="parallel=$jobs nocheck" \
	dpkg-buildpackage -us -uc -b) > "$log" 2>&1; then
	tail -20 "$log" >&2
	echo "mkdeb: dpkg-buildpackage failed (all of it in $log)" >&2
	exit 1
fi
rm -rf "$src"
ls "$out"/cephfab*_"$ver"_*.deb
