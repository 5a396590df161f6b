#!/usr/bin/env bash
# make image: the agent's container image, from Debian's packages alone:
# an mmdebstrap root file system of bookworm's minimal base (minbase, with
# the updates and security suites) plus build/deb's packages installed by apt, which
# resolves their Depends. No registry is pulled from.
#   mkimage.sh [--debs DIR] [--dir DIR [--import]] [--name IMAGE]
# The root becomes build/image/cephfab-agent_VERSION.tar and, with buildah
# or podman, the local image IMAGE (default localhost/cephfab-agent:VERSION,
# which dist/cephadm and dist/kubernetes name). --dir writes the root file
# system to DIR instead and stops there (the tests run the agent from it
# with chroot), unless --import makes the image from DIR too.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$("$top/scripts/version.sh")
debs=$top/build/deb
dir=""
import=""
img=localhost/cephfab-agent:$ver
usage="usage: mkimage.sh [--debs DIR] [--dir DIR [--import]] [--name IMAGE]"
while [ $# -gt 0 ]; do
	case "$1" in
	--debs) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; debs=$2; shift 2 ;;
	--dir) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; dir=$2; shift 2 ;;
	--import) import=1; shift ;;
	--name) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; img=$2; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
# The tar is always imported; a --dir root only when asked.
[ -z "$dir" ] && import=1
command -v mmdebstrap >/dev/null ||
	{ echo "mkimage: no mmdebstrap (make test-deps)" >&2; exit 2; }
arch=$(dpkg --print-architecture)
pkgs=()
for p in cephfab-agent cephfab; do
	f=$debs/${p}_${ver}_$arch.deb
	[ -f "$f" ] || { echo "mkimage: no $f (make deb first)" >&2; exit 2; }
	pkgs+=("$f")
done
mirror=${MIRROR:-http://deb.debian.org/debian}
secmirror=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
fmt=tar
if [ -n "$dir" ]; then
	out=$dir fmt=directory
else
	mkdir -p "$top/build/image"
	out=$top/build/image/cephfab-agent_$ver.tar
fi
log=${dir:+$dir.log}
log=${log:-$top/build/image/mkimage.log}
# The packages go in through /tmp, are installed by apt (Depends from the
# archive), and leave with apt's caches: the image holds what runs.
if ! mmdebstrap --variant=minbase --mode=root --format="$fmt" \
	--customize-hook="copy-in ${pkgs[*]} /tmp" \
	--customize-hook='chroot "$1" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/cephfab*.deb"' \
	--customize-hook='rm -f "$1"/tmp/cephfab*.deb' \
	--customize-hook='chroot "$1" apt-get clean' \
	--customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
	bookworm "$out" \
	"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
	"deb $secmirror bookworm-security main" > "$log" 2>&1; then
	tail -15 "$log" >&2
	echo "mkimage: mmdebstrap failed (all of it in $log)" >&2
	exit 1
fi
echo "${dir:-$out}"
[ -n "$import" ] || exit 0
entry='["/usr/sbin/cephfab-agent", "-d", "-c", "/etc/cephfab/agent.conf"]'
if command -v buildah >/dev/null; then
	# buildah add copies a directory's contents, or unpacks a tar.
	c=$(buildah from scratch)
	buildah add "$c" "${dir:-$out}" / >/dev/null
	buildah config --entrypoint "$entry" --port 7470/tcp \
		--label org.opencontainers.image.version="$ver" "$c"
	buildah commit -q "$c" "$img" >/dev/null
	buildah rm "$c" >/dev/null
	echo "$img (buildah)"
elif command -v podman >/dev/null; then
	if [ -n "$dir" ]; then
		tar -C "$dir" -cf - . | podman import -q --change "ENTRYPOINT $entry" \
			--change "EXPOSE 7470/tcp" - "$img" >/dev/null
	else
		podman import -q --change "ENTRYPOINT $entry" \
			--change "EXPOSE 7470/tcp" "$out" "$img" >/dev/null
	fi
	echo "$img (podman import)"
else
	echo "mkimage: no buildah or podman here: load the root file system" \
		"with 'podman import ${dir:-$out} $img' where there is" >&2
fi
