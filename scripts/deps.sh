#!/usr/bin/env bash
# The Debian packages cephfab builds and tests with.
#   deps.sh check     exit 0 when all are installed, 1 otherwise (lists them)
#   deps.sh install   apt-get install what is missing (root; idempotent)
set -u
PKGS=(
	make gcc pkg-config		# build
	libev-dev libcjson-dev libnl-3-dev libnl-route-3-dev libpcap-dev
	libssl-dev libsqlite3-dev libcmocka-dev
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
)
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
	apt-get update -qq >&2 || exit 3
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || exit 3
	# FRR's package starts its own daemons on some systems; the lab runs
	# its own instances per namespace and needs none in the root one.
	# Prometheus's likewise: the monitoring test runs its own server in a
	# lab namespace, and a packaged one would scrape this machine.
	# Open vSwitch's too: the lab starts one per namespace, by hand.
	for svc in frr prometheus openvswitch-switch; do
		if command -v systemctl >/dev/null 2>&1 && systemctl is-active -q "$svc" 2>/dev/null; then
			systemctl stop "$svc" >/dev/null 2>&1 || true
		fi
	done
	exit 0 ;;
*)
	echo "usage: deps.sh check|install" >&2; exit 2 ;;
esac
