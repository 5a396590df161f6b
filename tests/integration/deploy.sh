#!/usr/bin/env bash
# From a source tree to nodes (issue 29), as an operator deploys:
# 1. 'make deb' (from a fresh copy of the tree) makes the two packages;
#    lintian finds no error; their Depends are shared libraries only (no
#    test package); each holds its own files.
# 2. dist/ansible against two lab hosts (an sshd in each host's
#    namespace, chrooted into the host's own Debian root, python3 there):
#    on hosts without systemd the default supervisor says so and stops;
#    with start-stop-daemon it installs and starts the agents and the gate
#    passes; a second run changes nothing; a newer package is installed and
#    the agents restarted on it; a host given another key fails the gate,
#    named.
# 3. 'make image's root file system (mmdebstrap of Debian's packages plus
#    the .debs, apt resolving their Depends), imported as an image by
#    podman with the agent as its entrypoint: its agent runs from it with
#    chroot in two more lab hosts (as the cephfab user, CAP_NET_RAW only),
#    its coordinator in the admin namespace as an operator in group
#    cephfab reading the 0640 key: 'cephfab hosts' all ok, a short matrix
#    passes; an operator outside the group is told how to read the key;
#    without /proc the matrix says so instead of timing out.
# 4. ansible-playbook --syntax-check and yamllint on dist/.
# The Debian roots come from the archive while the packages build.
. "$(dirname "$0")/lib.sh"
need_lab
for t in dpkg-buildpackage dh lintian mmdebstrap ansible-playbook sshd yamllint jq; do
	command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] || skip "no $t (make test-deps)"
done
VER=$("$TOP/scripts/version.sh")
ARCH=$(dpkg --print-architecture)

# A node's own root for the playbook, from Debian's archive while the
# packages build: python3 for Ansible (apt's module wants python3-apt).
HR=$T/hostroot
# Each in a process group of its own: a failure stops the whole group
# (mmdebstrap unmounts what it mounted in the root when it is told to
# stop) and waits for it, before the temporary directory goes.
bg_group() { # bg_group LOG CMD...: sets BG, the group's leader
	local log=$1; shift
	setsid "$@" > "$log" 2>&1 < /dev/null &
	BG=$!
	CLEANUPS+=("kill -TERM -- -$BG; for i in \$(seq 300); do kill -0 -- -$BG 2>/dev/null || break; sleep 0.1; done")
}
bg_group "$T/hostroot.out" mmdebstrap --variant=apt --mode=root --format=directory \
	--include=python3,python3-apt --skip=cleanup/apt bookworm "$HR"
hr_pid=$BG

# --- 1. the packages -----------------------------------------------------
# make deb's own script builds from a fresh copy of the tree's files
# (git's, edits included), here into $T/deb.
"$TOP/scripts/mkdeb.sh" "$T/deb" > "$T/deb.out" 2>&1 || fail "make deb: $(tail -5 "$T/deb.out")"
D=$T/deb
AD=$D/cephfab-agent_${VER}_$ARCH.deb CD=$D/cephfab_${VER}_$ARCH.deb
[ -f "$AD" ] && [ -f "$CD" ] || fail "make deb made: $(ls "$D")"
# make image's root file system from them, while the rest goes on.
R=$T/image
# With podman (or buildah) the image is made from it too, under a name of
# this run's (removed after), and its entrypoint is checked below.
IMG=localhost/cephfab-agent:$VER-test$RUN_ID
CLEANUPS+=("podman rmi -f $IMG")
bg_group "$T/image.out" "$TOP/scripts/mkimage.sh" --debs "$D" --dir "$R" --import --name "$IMG"
img_pid=$BG
[ "$("$CEPHFAB" version | awk '{print $2}')" = "$VER" ] ||
	fail "cephfab version '$("$CEPHFAB" version)' is not debian/changelog's $VER"
# lintian while the rest is checked (its verdict is read below).
lintian --tag-display-limit 0 "$D/cephfab_${VER}_$ARCH.changes" > "$T/lintian" 2>&1 &
lintian_pid=$!
PIDS+=("$lintian_pid")
for d in "$AD" "$CD"; do
	dep=$(dpkg-deb -f "$d" Depends)
	echo "$dep" | grep -Eq 'ceph|frr|prometheus|chromium|openvswitch|tshark|valgrind|clang|iperf|sockperf|cmocka|ansible' &&
		fail "$(basename "$d") depends on a test package: $dep"
	# Every Depends is a library (lib*) or libc: ${shlibs:Depends}.
	extra=$(echo "$dep" | tr ',' '\n' | awk '{print $1}' | grep -v '^lib' || true)
	assert_eq "$extra" "" "$(basename "$d"): Depends beyond shared libraries"
	note "$(basename "$d"): $(stat -c %s "$d") bytes; Depends: $dep"
done
dpkg-deb -f "$AD" Depends | grep -q libpcap || fail "agent Depends lacks libpcap"
dpkg-deb -f "$CD" Depends | grep -q libsqlite3 || fail "coordinator Depends lacks libsqlite3"
files() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$' | sort; }
files "$AD" > "$T/agent.files"; files "$CD" > "$T/coord.files"
for f in /usr/sbin/cephfab-agent /lib/systemd/system/cephfab-agent.service \
	/etc/cephfab/agent.conf /usr/share/man/man8/cephfab-agent.8.gz; do
	grep -qx "$f" "$T/agent.files" || fail "cephfab-agent lacks $f: $(cat "$T/agent.files")"
done
for f in /usr/bin/cephfab /usr/share/man/man8/cephfab.8.gz \
	/usr/share/bash-completion/completions/cephfab /usr/share/cephfab/cephfab-rules.yml \
	/usr/share/cephfab/ansible/site.yml /usr/share/cephfab/cephadm/cephfab-agent.yaml; do
	grep -qx "$f" "$T/coord.files" || fail "cephfab lacks $f: $(cat "$T/coord.files")"
done
grep -Eq '^(/usr/sbin/cephfab-agent|/lib/systemd/system/cephfab-agent.service|/etc/cephfab/agent.conf)$' "$T/coord.files" &&
	fail "the coordinator's package holds the agent's files"
grep -q '/usr/bin/cephfab$' "$T/agent.files" && fail "the agent's package holds the coordinator"
mkdir -p "$T/ctl" && dpkg-deb -e "$AD" "$T/ctl"
grep -qx /etc/cephfab/agent.conf "$T/ctl/conffiles" || fail "agent.conf is not a conffile"
dpkg-deb --fsys-tarfile "$AD" | tar -xOf - ./lib/systemd/system/cephfab-agent.service |
	grep -q '^ExecStart=/usr/sbin/cephfab-agent ' || fail "the unit does not run /usr/sbin/cephfab-agent"

lab_up flat
ctl_addr() { awk -v h="$1" '$1 == h {print $4}' "$LST/hosts"; }
# One key for the whole lab: the image's agents, the playbook's, and the
# admin's copies.
"$CEPHFAB" keygen -o "$T/key"
wait $hr_pid || fail "host root: $(tail -5 "$T/hostroot.out")"
# The libraries the agent's package asks for, fetched by apt (from the
# package's Depends) into the host root's cache: the lab hosts have no
# route to the archive, so apt installs from the cache there.
cp "$AD" "$HR/tmp/" && chroot "$HR" apt-get install --download-only -y -q \
	"/tmp/$(basename "$AD")" > "$T/download.out" 2>&1 || fail "download: $(tail -3 "$T/download.out")"
rm -f "$HR/tmp/$(basename "$AD")"

wait $lintian_pid
grep -q '^E:' "$T/lintian" && fail "lintian errors: $(grep '^E:' "$T/lintian")"
note "lintian: $(grep -c '^W:' "$T/lintian") warnings"

# --- 2. the playbook -----------------------------------------------------
note "packages, lab and host root ready at $SECONDS s"
# sshd's chroot must be owned by root and no one else may write any
# component of its path: not under /tmp.
M=/run/cephfab-deploy-$RUN_ID
install -d -m 755 "$M"
CLEANUPS+=("rm -rf --one-file-system $M")
ssh-keygen -q -t ed25519 -N '' -f "$T/id" && ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" ||
	fail "ssh-keygen"
cp "$T/id.pub" "$T/authorized_keys"
install -d -m 755 /run/sshd
for h in h3 h4; do
	mkdir -p "$T/$h/up" "$T/$h/wk" "$M/$h"
	mount -t overlay overlay -o "lowerdir=$HR,upperdir=$T/$h/up,workdir=$T/$h/wk" "$M/$h" ||
		fail "overlay for $h"
	CLEANUPS=("umount -l $M/$h" "${CLEANUPS[@]}")
	mount -t proc proc "$M/$h/proc" && mount --bind /dev "$M/$h/dev" || fail "proc, dev for $h"
	CLEANUPS=("umount $M/$h/proc" "umount $M/$h/dev" "${CLEANUPS[@]}")
	# The agent the play starts: killed by the pid file it leaves.
	CLEANUPS=("kill \$(cat $M/$h/run/cephfab-agent.pid)" "${CLEANUPS[@]}")
	cat > "$T/$h/sshd_config" <<SSHD
ListenAddress $(ctl_addr "$h")
HostKey $T/hostkey
PidFile $T/$h/sshd.pid
AuthorizedKeysFile $T/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
ChrootDirectory $M/$h
Subsystem sftp internal-sftp
SSHD
	ip netns exec "$LP-$h" /usr/sbin/sshd -f "$T/$h/sshd_config" -E "$T/$h/sshd.log" ||
		fail "sshd in $h: $(cat "$T/$h/sshd.log")"
	wait_until 5 test -s "$T/$h/sshd.pid" || fail "sshd in $h did not start"
	CLEANUPS=("kill $(cat "$T/$h/sshd.pid")" "${CLEANUPS[@]}")
done
# The Ansible inventory from the cephfab inventory: one source of truth.
"$CEPHFAB" keygen -o "$T/otherkey"
sed "s|^key = .*|key = $T/key|" "$LST/lab.inv" > "$T/lab.inv"
mkdir -p "$T/ans/host_vars"
"$CEPHFAB" -i "$T/lab.inv" inventory --ansible --out "$T/ans/hosts.yml" || fail "inventory --ansible"
python3 - "$T/ans/hosts.yml" "$T/lab.inv" "$T/key" <<'PY' || fail "inventory --ansible wrote the wrong inventory"
import sys, yaml
inv = yaml.safe_load(open(sys.argv[1]))["all"]["children"]["cephfab_agents"]
v, hosts = inv["vars"], inv["hosts"]
assert v["cephfab_inventory"] == sys.argv[2] and v["cephfab_key_file"] == sys.argv[3], v
assert v["cephfab_public_network"] == "198.18.0.0/24", v
assert sorted(hosts) == ["h1", "h2", "h3", "h4"], hosts
assert hosts["h3"]["ansible_host"] == "198.18.255.13", hosts["h3"]
assert hosts["h3"]["cephfab_listen"] == "198.18.255.13:7470", hosts["h3"]
assert hosts["h3"]["cephfab_cluster"] == "198.19.0.13", hosts["h3"]
PY
cat > "$T/ans/ansible.cfg" <<CFG
[defaults]
host_key_checking = False
private_key_file = $T/id
remote_user = root
interpreter_python = /usr/bin/python3
local_tmp = $T/ans/tmp
[ssh_connection]
ssh_args = -o ControlMaster=auto -o ControlPersist=10s -o ControlPath=$T/ans/cm-%C -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR
pipelining = True
CFG
# One ssh connection per host for a run's tasks; the masters are told to
# go at the end (they would go 10 s after their last use anyway).
for h in h3 h4; do
	CLEANUPS=("ip netns exec $LP-adm ssh -o ControlPath=$T/ans/cm-%C -O exit root@$(ctl_addr "$h")" "${CLEANUPS[@]}")
done
play() { # play LOG [ARGS]: the playbook on h3 and h4 from the admin namespace
	local log=$1 t0=$SECONDS rc; shift
	(cd "$T/ans" && ANSIBLE_CONFIG=$T/ans/ansible.cfg ANSIBLE_NOCOLOR=1 \
		ip netns exec "$LP-adm" ansible-playbook -i hosts.yml --limit h3,h4 \
		"$TOP/dist/ansible/site.yml" -e "cephfab_deb=$AD" -e "cephfab_bin=$CEPHFAB" "$@") > "$T/$log" 2>&1
	rc=$?
	note "play ${log%.log}: exit $rc, $((SECONDS - t0)) s"
	return $rc
}
recap() { grep -E "^$1 +:" "$T/$2" | grep -o "$3=[0-9]*" | cut -d= -f2; }
# Hosts without systemd (the lab's): the default supervisor says so.
play nosystemd.log
assert_eq "$?" 2 "the play on hosts without systemd"
grep -q "h3 has no systemd" "$T/nosystemd.log" || fail "no-systemd message: $(grep -m2 'msg' "$T/nosystemd.log")"
[ -e "$M/h3/usr/sbin/cephfab-agent" ] && fail "installed on a host the play stopped at"
SSD=(-e cephfab_agent_supervisor=start-stop-daemon)
play run1.log "${SSD[@]}" || fail "first run: $(grep -E 'fatal|FAILED|msg' "$T/run1.log" | head -5)"
for h in h3 h4; do
	assert_eq "$(recap "$h" run1.log failed)" 0 "first run failures on $h"
	[ "$(recap "$h" run1.log changed)" -ge 3 ] || fail "first run changed on $h: $(grep "^$h " "$T/run1.log")"
	pid=$(cat "$M/$h/run/cephfab-agent.pid") || fail "no pid file on $h"
	assert_eq "$(ps -o user= -p "$pid" | tr -d ' ')" "$(chroot "$M/$h" id -u cephfab)" "agent user on $h"
	assert_eq "$(awk '/^CapEff/ {print $2}' "/proc/$pid/status")" 0000000000002000 "agent capabilities on $h"
	assert_eq "$(stat -c '%u %a' "$M/$h/etc/cephfab/key")" "$(chroot "$M/$h" id -u cephfab) 600" "key on $h"
	grep -q "^listen = $(ctl_addr "$h"):7470" "$M/$h/etc/cephfab/agent.conf" || fail "agent.conf on $h"
	grep -q "^cluster_network = 198.19.0.0/24" "$M/$h/etc/cephfab/agent.conf" || fail "networks on $h"
done
out=$(ip netns exec "$LP-adm" "$CEPHFAB" -i "$T/lab.inv" hosts --json 2>/dev/null)
assert_eq "$(jq -r '[.hosts[] | select(.state == "ok") | .name] | join(",")' <<<"$out")" "h3,h4" \
	"hosts ok after the play"
# Idempotent: nothing changes the second time.
play run2.log "${SSD[@]}" || fail "second run: $(grep -E 'fatal|msg' "$T/run2.log" | head -5)"
for h in h3 h4; do
	assert_eq "$(recap "$h" run2.log changed)" 0 "second run changed on $h ($(grep -E '^changed' "$T/run2.log"))"
done
# An upgrade is the same play with a newer package: installed, the agent
# restarted on it, the gate passing. (The newer package is this one with
# a higher version: what changes is apt's view, not the program.)
NV="$VER+up1"
dpkg-deb -R "$AD" "$T/up" && sed -i "s/^Version: .*/Version: $NV/" "$T/up/DEBIAN/control" &&
	dpkg-deb -b "$T/up" "$T/cephfab-agent_${NV}_$ARCH.deb" > /dev/null || fail "the newer package"
old_pid=$(cat "$M/h3/run/cephfab-agent.pid")
play upgrade.log "${SSD[@]}" -e "cephfab_deb=$T/cephfab-agent_${NV}_$ARCH.deb" ||
	fail "upgrade: $(grep -E 'fatal|msg' "$T/upgrade.log" | head -5)"
for h in h3 h4; do
	assert_eq "$(chroot "$M/$h" dpkg-query -W -f '${Version}' cephfab-agent)" "$NV" "version on $h after the upgrade"
done
[ "$(cat "$M/h3/run/cephfab-agent.pid")" != "$old_pid" ] || fail "the agent on h3 was not restarted by the upgrade"

# Another key on h4: its agent restarts with it and the gate names it.
echo "cephfab_key_file: $T/otherkey" > "$T/ans/host_vars/h4.yml"
play wrongkey.log "${SSD[@]}" -e "cephfab_deb=$T/cephfab-agent_${NV}_$ARCH.deb"
assert_eq "$?" 2 "the play with h4's key wrong"
grep -q "cephfab hosts: not ok: h4 (auth_failed)" "$T/wrongkey.log" ||
	fail "gate message: $(grep -E 'msg' "$T/wrongkey.log")"

# --- 3. the image's root file system ------------------------------------
note "playbook done at $SECONDS s"
wait $img_pid || fail "mkimage: $(tail -5 "$T/image.out"; tail -5 "$R.log" 2>/dev/null)"
note "image root: $(du -sh "$R" | cut -f1)"
if command -v podman >/dev/null; then
	grep -q "^$IMG (podman import)" "$T/image.out" || fail "no image: $(cat "$T/image.out")"
	assert_eq "$(podman image inspect --format '{{json .Config.Entrypoint}}' "$IMG")" \
		'["/usr/sbin/cephfab-agent","-d","-c","/etc/cephfab/agent.conf"]' "the image's entrypoint"
	note "image $IMG: $(podman image inspect --format '{{.Size}}' "$IMG") bytes"
fi
in_root() { chroot "$R" "$@"; }
[ "$(in_root cephfab version | awk '{print $2}')" = "$VER" ] || fail "cephfab version in the image"
in_root getent passwd cephfab > /dev/null || fail "no cephfab user in the image"
in_root sh -c 'ldd /usr/sbin/cephfab-agent /usr/bin/cephfab' | grep -q 'not found' &&
	fail "the image lacks a library: $(in_root sh -c 'ldd /usr/sbin/cephfab-agent /usr/bin/cephfab' | grep 'not found')"
in_root dpkg-query -W cephfab-agent cephfab > /dev/null || fail "packages not installed in the image"
# The key: the agents' copy is cephfab's (0600), the coordinator's is
# root:cephfab 0640, read by an operator in group cephfab.
cp "$T/key" "$R/etc/cephfab/key"
cp "$T/key" "$R/etc/cephfab/admin.key"
in_root chown cephfab:cephfab /etc/cephfab/key
in_root chown root:cephfab /etc/cephfab/admin.key
chmod 640 "$R/etc/cephfab/admin.key"
in_root useradd -m -G cephfab cfadmin
in_root useradd -m outsider
{
	printf '[global]\nkey = /etc/cephfab/admin.key\n'
	grep _network "$LST/lab.inv"
	for h in h1 h2; do
		printf '[host %s]\nagent = %s\n' "$h" "$(ctl_addr "$h")"
		grep -A4 "^\[host $h\]" "$LST/lab.inv" | grep -E '^(public|cluster) ='
	done
} > "$R/etc/cephfab/inventory"
for h in h1 h2; do
	{
		sed -n '/^\[agent\]/,$p' "$R/etc/cephfab/agent.conf" | grep -v '^#' | grep -v '^listen'
		echo "listen = $(ctl_addr "$h"):7470"
		grep _network "$LST/lab.inv"
		echo "state_dir = /var/lib/cephfab/$h"
	} > "$R/etc/cephfab/agent-$h.conf"
	install -d -m 700 "$R/var/lib/cephfab/$h"
	in_root chown cephfab:cephfab "/var/lib/cephfab/$h"
	# As the unit runs it: the cephfab user, CAP_NET_RAW and nothing else.
	ip netns exec "$LP-$h" sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" \
		setpriv --reuid cephfab --regid cephfab --init-groups \
		--inh-caps +net_raw --ambient-caps +net_raw --bounding-set -all,+net_raw \
		/usr/sbin/cephfab-agent -d -c "/etc/cephfab/agent-$2.conf"' sh "$R" "$h" \
		> "$T/agent-$h.log" 2>&1 &
	PIDS+=($!)
done
for h in h1 h2; do
	wait_until 10 grep -q "listening on" "$T/agent-$h.log" ||
		fail "image agent $h did not start: $(tail -3 "$T/agent-$h.log")"
done
# The admin host: the image's root with its own /proc (the matrix runs
# its tests as children through /proc/self/exe).
as_op() {
	ip netns exec "$LP-adm" sh -c 'r=$1; shift; mount -t proc proc "$r/proc" &&
		exec chroot --userspec=cfadmin:cfadmin --groups=cephfab "$r" "$@"' sh "$R" "$@"
}
# Without /proc it says so and runs nothing (it read as every test
# timing out).
out=$(ip netns exec "$LP-adm" chroot "$R" cephfab -i /etc/cephfab/inventory matrix -t 1 2>&1)
assert_eq "$?" 2 "matrix without /proc"
echo "$out" | grep -q "^cephfab: matrix: /proc/self/exe: .*is /proc mounted" || fail "matrix without /proc: $out"
as_op cephfab -i /etc/cephfab/inventory check > "$T/check.out" 2>&1 || fail "check as cfadmin: $(cat "$T/check.out")"
out=$(as_op cephfab -i /etc/cephfab/inventory hosts --json)
assert_eq "$?" 0 "hosts from the image ($out)"
assert_eq "$(jq -r '[.hosts[] | select(.state == "ok")] | length' <<<"$out")" 2 "image agents ok"
# The lab's profile: its host links are 1 Gbit/s.
cp "$TOP/configs/profiles/lab.conf" "$R/etc/cephfab/lab.conf"
as_op sh -c 'cd /tmp && cephfab -i /etc/cephfab/inventory matrix -t 1 --tests bw,lat --profile /etc/cephfab/lab.conf --db /tmp/m.db --json /tmp/m.json' > "$T/matrix.out" 2>&1
rc=$?
assert_eq "$rc" 0 "matrix from the image ($(tail -3 "$T/matrix.out"); $(jq -c '[.findings[].summary]' "$R/tmp/m.json" 2>/dev/null))"
jq -e '.verdict == "pass" and ([.networks[].cells[] | select(.gbps > 0)] | length) >= 4' "$R/tmp/m.json" > /dev/null ||
	fail "image matrix: $(jq -c '{verdict, n: [.networks[].cells[] | .gbps]}' "$R/tmp/m.json")"
# An operator outside the group is told how to read the key.
out=$(ip netns exec "$LP-adm" chroot --userspec=outsider:outsider "$R" cephfab -i /etc/cephfab/inventory check 2>&1)
assert_eq "$?" 2 "check by an outsider"
echo "$out" | grep -q "admin.key: cannot read the key file: Permission denied (.*chgrp cephfab, chmod 640)" ||
	fail "unreadable key message: $out"

# --- 4. every file under dist/ -------------------------------------------
note "image done at $SECONDS s"
ansible-playbook --syntax-check -i "$T/ans/hosts.yml" "$TOP/dist/ansible/site.yml" > "$T/syntax" 2>&1 ||
	fail "syntax-check: $(tail -3 "$T/syntax")"
(cd "$TOP" && yamllint -s dist/) > "$T/yamllint" 2>&1 || fail "yamllint: $(head -5 "$T/yamllint")"
find "$TOP/dist" -name '*.yml' -o -name '*.yaml' | python3 -c '
import sys, yaml
for p in sys.stdin.read().split():
    list(yaml.safe_load_all(open(p)))' || fail "a YAML file under dist/ does not load"
# The container specs name the image make image builds, at this version,
# on the host's network with CAP_NET_RAW alone.
python3 - "$TOP/dist" "$VER" <<'PY' || fail "dist/cephadm, dist/kubernetes"
import sys, yaml
d, ver = sys.argv[1], sys.argv[2]
img = "localhost/cephfab-agent:" + ver
c = list(yaml.safe_load_all(open(d + "/cephadm/cephfab-agent.yaml")))[0]
assert c["service_type"] == "container" and c["spec"]["image"] == img, c
assert {"--net=host", "--cap-drop=ALL", "--cap-add=NET_RAW"} <= set(c["spec"]["args"]), c
assert any("destination=/etc/cephfab/key" in m for m in c["spec"]["bind_mounts"]), c
k = {x["kind"]: x for x in yaml.safe_load_all(open(d + "/kubernetes/cephfab-agent.yaml"))}
pod = k["DaemonSet"]["spec"]["template"]["spec"]
ctr = pod["containers"][0]
assert pod["hostNetwork"] is True and ctr["image"] == img, ctr
assert ctr["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["NET_RAW"]}, ctr
assert "listen = 0.0.0.0:7470" in k["ConfigMap"]["data"]["agent.conf"]
PY
grep -q "ENTRYPOINT\|--entrypoint" "$TOP/scripts/mkimage.sh" || fail "make image sets no entrypoint"
echo "deploy: ok"
