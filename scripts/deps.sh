#!/usr/bin/env bash
# The Debian packages cephfab needs, by purpose.
#   deps.sh check [build|test|all]    exit 0 when all are installed, 1
#                                     otherwise (lists them)
#   deps.sh install [build|test|all]  apt-get install what is missing
#                                     (root; idempotent)
# build: what compiles cephfab (make build-deps). test: what make check,
# the labs, the benchmarks and the packaging tests need (make test-deps).
# A node running the packages needs neither: the .debs' Depends name the
# shared libraries (README, "Install on a cluster"; docs/deploy.md).
set -u
BUILD_PKGS=(
	make gcc pkg-config
	libev-dev libcjson-dev libnl-3-dev libnl-route-3-dev libpcap-dev
	libssl-dev libsqlite3-dev
)
TEST_PKGS=(
	libcmocka-dev			# unit tests
	clang libclang-rt-14-dev	# libFuzzer harnesses
	valgrind			# make valgrind
	iproute2 iptables nftables ethtool	# the lab: namespaces, faults
	frr				# real routers in the lab
	iperf3 sockperf qperf bc	# the peer tools bench/ compares against
	jq procps psmisc iputils-ping sqlite3 time	# integration test assertions
	chromium			# the HTML report in a real browser
	tshark				# the capture analyzer's reference counts
	ceph-mon ceph-osd ceph-mgr ceph-common	# the real Ceph lab
	prometheus			# scrapes the agents' /metrics; promtool
	openvswitch-switch		# the stacked-LACP lab's bonds (userspace)
	dpkg-dev debhelper fakeroot lintian	# make deb, and its checks
	mmdebstrap podman		# make image: a root file system of packages, imported
	ansible-core openssh-server yamllint	# dist/ansible against lab hosts
	groff				# the man pages render without warnings
)
case "${2:-all}" in
build) PKGS=("${BUILD_PKGS[@]}") ;;
test) PKGS=("${TEST_PKGS[@]}") ;;
all) PKGS=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
*) echo "usage: deps.sh check|install [build|test|all]" >&2; exit 2 ;;
esac
missing=()
for p in "${PKGS[@]}"; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	[ "$s" = "install ok installed" ] || missing+=("$p")
done
case "${1:-check}" in
check)
	if [ ${#missing[@]} -gt 0 ]; then
		echo "missing Debian packages: ${missing[*]}" >&2
		exit 1
	fi
	exit 0 ;;
install)
	[ ${#missing[@]} -eq 0 ] && exit 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: need root to install: ${missing[*]}" >&2
		exit 2
	fi
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture: no, and no prompt.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections 2>/dev/null || true
	# FRR, Prometheus, Open vSwitch and sshd would start their own
	# daemons in the root namespace; the lab runs its own instances per
	# namespace and needs none here. Without systemd, invoke-rc.d asks
	# policy-rc.d: 101 is "not now".
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy"
	fi
	rc=0
	apt-get update -qq >&2 || rc=3
	[ $rc -eq 0 ] && { apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >&2 || rc=3; }
	[ -n "$policy" ] && rm -f "$policy"
	[ $rc -eq 0 ] || exit $rc
	for svc in frr prometheus openvswitch-switch ssh; do
		if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q "$svc" 2>/dev/null; then
			systemctl stop "$svc" >/dev/null 2>&1 || true
		fi
	done
	exit 0 ;;
*)
	echo "usage: deps.sh check|install [build|test|all]" >&2; exit 2 ;;
esac
