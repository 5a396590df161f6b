#!/usr/bin/env bash
# bench/localize.sh: how often the matrix's root causes name the fault, over
# seeded random faults on the lab's leaf-spine fabric (real FRR, eBGP, ECMP
# hashed on the 5-tuple as switches hash), as 007, NetBouncer and
# SkeletonHunter report their accuracy.
#
#   bench/localize.sh [--trials N] [--seed S] [--icmp ingress|egress|loopback]
#                     [--icmp-ratelimit MS] [--leaves L] [--spines S]
#                     [--hosts-per-leaf H] [-t SECS] [--tests LIST] [--lab P]
#                     [--json FILE] [--keep DIR]
#   bench/localize.sh --rescore DIR [--json FILE]
#
# Every sixth trial is healthy, every sixth has two faults of different
# kinds at different places, the others one fault, the kinds in turn (from
# the seed's), each at a random place: a leaf-spine link's loss one way or
# both ways (1-5 %), the link shaped to 200 Mbit/s, its MTU narrowed at one end,
# a host port's loss (what it receives), the port shaped, its MTU, and the
# host's filter of Ceph's OSD ports. One 'cephfab matrix' per trial
# (--tests, default bw,mtu,ports: what those faults show in), the faults
# cleared after. Its error findings are scored against the faults:
#   - a link fault is found by a finding whose link's two ends are that
#     link's two routers (whatever addresses it prints: the lab knows every
#     router's addresses), exact when that finding has no twin ('or');
#   - a host fault by a finding at that host of a kind that fits (loss:
#     lossy_host, shaped: slow_host, MTU: mtu_blackhole, filter:
#     port_blocked), or whose twin ('or') is that host's port (the flows
#     could not tell the two ports apart);
#   - an error finding that matches no fault is a false one.
# Last line:
#   localize: seed S, T trials, F faults: recall R, precision P, exact link E, healthy fp H
# (H: error findings on healthy trials). --lab P uses a running lab (make
# check: the root-cause scenario's) and leaves it up; --keep DIR keeps each
# trial's matrix output there, with the results database, the faults and
# the routers' addresses. --rescore DIR reads such a DIR again with this
# build's (or $CEPHFAB's) 'cephfab report': the same measurements judged
# by another diagnosis, no lab and no traffic (before and after a change,
# on identical evidence). As root; the lab's namespaces only.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
LAB=$TOP/tests/lab/lab.sh
CF=${CEPHFAB:-$TOP/build/cephfab}
TRIALS=16 SEED=1 ICMP=ingress RL=0 LEAVES=3 SPINES=2 HPL=2 SECS=1 USE="" JSON=""
TESTS=bw,mtu,ports KEEP="" RESCORE=""
usage() { sed -n '7,11p' "$0" | sed 's/^#   //; 1s/^/usage: /; 2,$s/^/       /' >&2; exit 2; }
num() { [[ "$2" =~ ^[0-9]+$ ]] || { echo "localize: $1 wants a number, not '$2'" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--trials) num "$1" "${2:-}"; TRIALS=$2; shift 2 ;;
	--seed) num "$1" "${2:-}"; SEED=$2; shift 2 ;;
	--icmp) ICMP=${2:-}; shift 2 ;;
	--icmp-ratelimit) num "$1" "${2:-}"; RL=$2; shift 2 ;;
	--leaves) num "$1" "${2:-}"; LEAVES=$2; shift 2 ;;
	--spines) num "$1" "${2:-}"; SPINES=$2; shift 2 ;;
	--hosts-per-leaf) num "$1" "${2:-}"; HPL=$2; shift 2 ;;
	-t) num "$1" "${2:-}"; SECS=$2; shift 2 ;;
	--tests) TESTS=${2:-}; shift 2 ;;
	--lab) USE=${2:-}; shift 2 ;;
	--json) JSON=${2:-}; shift 2 ;;
	--keep) KEEP=${2:-}; mkdir -p "$KEEP" || exit 2; shift 2 ;;
	--rescore) RESCORE=${2:-}; shift 2 ;;
	*) usage ;;
	esac
done
case $ICMP in ingress|egress|loopback) ;; *) echo "localize: --icmp is ingress, egress or loopback" >&2; exit 2 ;; esac
if [ -n "$RESCORE" ]; then
	for f in trials.jsonl routers.json m.db head; do
		[ -s "$RESCORE/$f" ] || { echo "localize: $RESCORE/$f: missing (not a --keep directory of a finished run)" >&2; exit 2; }
	done
	[ -x "$CF" ] || { echo "localize: no cephfab at $CF (run make)" >&2; exit 2; }
fi
[ -n "$RESCORE" ] || [ "$(id -u)" = 0 ] || { echo "localize: needs root (network namespaces)" >&2; exit 2; }
[ "$TRIALS" -ge 1 ] || { echo "localize: --trials at least 1" >&2; exit 2; }
P=""
T=$(mktemp -d /tmp/cf-localize.XXXXXX)
trap 'exit 130' INT TERM
trap 'for f in $(cat "$T/active" 2>/dev/null); do "$LAB" fault "$P" del "$f" >/dev/null 2>&1; done
	[ -n "$P" ] && [ -z "$USE" ] && "$LAB" down "$P" >/dev/null 2>&1; rm -rf "$T"' EXIT
# score FINDINGS FAULTS: one JSON line: the trial's faults found, exact,
# error findings and the false ones.
score() {
	jq -c --slurpfile r "$ROUTERS" --argjson faults "$2" '
	def routers: [.location.ends[]? | $r[0][.] // "?"] | sort;
	def hits($f):
		if $f.routers then (.location.ends != null and routers == ($f.routers | sort))
		else ((.location.host == $f.host or ((.location.or // "") | startswith($f.host + "\u0027s port"))) and
			((.network // $f.net) == $f.net) and
			(.kind as $k | $f.fits | index($k) != null)) end;
	[.findings[] | select(.severity == "error")] as $e |
	{faults: [$faults[] | . as $f | . + {found: ([$e[] | select(hits($f))] | length > 0),
		exact: ([$e[] | select(hits($f) and (.location.or == null))] | length > 0)}],
	 errors: ($e | length),
	 findings: [$e[] | "\(.kind) \(.network // "") \(.location.link // .location.host // ([.hosts[]?] | join(",")))"],
	 false: [$e[] | select(. as $x | [$faults[] | . as $f | $x | hits($f)] | any | not) |
		"\(.kind) \(.network // "") \(.location.link // .location.host // ([.hosts[]?] | join(",")))"]}' "$1"
}

# show_trial: a trial's line from its scored JSON on stdin.
show_trial() {
	jq -r '"trial \(.trial): " + (if (.faults | length) == 0 then "healthy" else
		([.faults[] | "\(.spec) \(if .routers and .exact then "exact" elif .found then "found" else "MISSED" end)"] | join(", ")) end) +
		"; \(.errors) error findings" + (if (.false | length) > 0 then ", false: " + (.false | join("; ")) else "" end)' 
}

# summary: the table per kind, then the figures, from $T/results.
summary() {
	jq -s -r '
		[.[] | .faults[]] as $f |
		"# kind               faults  found  exact",
		($f | group_by(.kind)[] | "  \(.[0].kind | . + " " * (18 - length)) \(length | tostring | " " * (6 - length) + .)  \([.[] | select(.found)] | length | tostring | " " * (5 - length) + .)  \(if .[0].routers then ([.[] | select(.exact)] | length | tostring | " " * (5 - length) + .) else "    -" end)")' "$T/results"
	jq -s -r --arg seed "$SEED" '
		[.[] | .faults[]] as $f | ([.[] | .errors] | add) as $e | ([.[] | .false | length] | add) as $fp |
		[$f[] | select(.routers)] as $lf |
		"localize: seed \($seed), \(length) trials, \($f | length) faults: recall \(if ($f | length) > 0 then ([$f[] | select(.found)] | length) / ($f | length) * 100 | round / 100 else 1 end), precision \(if $e > 0 then ($e - $fp) / $e * 100 | round / 100 else 1 end), exact link \(if ($lf | length) > 0 then ([$lf[] | select(.exact)] | length) / ($lf | length) * 100 | round / 100 else 1 end), healthy fp \([.[] | select((.faults | length) == 0) | .errors] | add // 0)"' "$T/results"
	[ -n "$JSON" ] && jq -s --arg icmp "$ICMP" --argjson rl "$RL" --argjson seed "$SEED" \
		'{seed: $seed, icmp: $icmp, icmp_ratelimit_ms: $rl, trials: .}' "$T/results" > "$JSON"
}

# --rescore: each kept trial's run judged again by this build's report.
if [ -n "$RESCORE" ]; then
	ROUTERS=$RESCORE/routers.json
	read -r SEED ICMP RL < "$RESCORE/head"
	echo "# localize: rescored $RESCORE with $CF ($("$CF" version 2>/dev/null | head -1)): routers answer from the $ICMP address (ICMP rate limit ${RL} ms), seed $SEED, $(wc -l < "$RESCORE/trials.jsonl") trials"
	: > "$T/results"
	while read -r line; do
		t=$(jq -r .trial <<<"$line"); run=$(jq -r .run <<<"$line"); faults=$(jq -c .faults <<<"$line")
		"$CF" report "$run" --db "$RESCORE/m.db" --profile "$TOP/configs/profiles/lab.conf" \
			--json "$T/r.json" > "$T/r.txt" 2>&1
		[ -s "$T/r.json" ] || { echo "localize: trial $t (run $run): report wrote nothing: $(tail -1 "$T/r.txt")" >&2; exit 3; }
		res=$(score "$T/r.json" "$faults" | jq -c --argjson t "$t" '. + {trial: $t}')
		echo "$res" >> "$T/results"
		show_trial <<<"$res"
		rm -f "$T/r.json"
	done < "$RESCORE/trials.jsonl"
	summary
	exit 0
fi
if [ -n "$USE" ]; then
	P=$USE
else
	make -C "$TOP" -s all >/dev/null || exit 3
	printf 'design = leafspine\nspines = %s\nleaves = %s\nhosts_per_leaf = %s\nhost_mbit = 1000\nuplink_mbit = 2000\nmtu = 9000\n' \
		"$SPINES" "$LEAVES" "$HPL" > "$T/fabric.topo"
	P=$(LAB_QUIET=1 "$LAB" up "$T/fabric.topo" --agents --icmp "$ICMP" --icmp-ratelimit "$RL" 2> "$T/up.err") ||
		{ P=""; echo "localize: lab up failed: $(tail -2 "$T/up.err")" >&2; exit 3; }
fi
ST=/run/cephfab-lab/$P
"$LAB" status "$P" --json > "$T/lab.json" || exit 3
jq -e '.design == "leafspine"' "$T/lab.json" >/dev/null ||
	{ echo "localize: lab $P is not a leaf-spine fabric" >&2; exit 2; }
ICMP=$(jq -r '.icmp // "ingress"' "$T/lab.json"); RL=$(jq -r '.icmp_ratelimit_ms // 0' "$T/lab.json")
# Every router's addresses, to read a finding's link ends as routers.
for r in $(jq -r '.nodes[] | select(.role == "leaf" or .role == "spine") | .name' "$T/lab.json"); do
	ip -n "$P-$r" -j addr show | jq -c --arg r "$r" '[.[].addr_info[] | select(.family == "inet" and .local != "127.0.0.1") | {key: .local, value: $r}]'
done | jq -s 'add | from_entries' > "$T/routers.json"
ROUTERS=$T/routers.json
mapfile -t FABRIC < <(jq -r '.links[] | select(.name | test("^l[0-9]+-s[0-9]+$")) | .name' "$T/lab.json")
mapfile -t HOSTS < <(jq -r '.hosts[].name' "$T/lab.json")
[ "${#FABRIC[@]}" -ge 2 ] && [ "${#HOSTS[@]}" -ge 4 ] || { echo "localize: too small a fabric" >&2; exit 2; }

# pick N: PICK, a number below N, from RANDOM in this shell (a command
# substitution's subshell would reseed it: the seed would not hold).
pick() { PICK=$(( RANDOM % $1 )); }
# fault_of KIND: a fault of KIND at a random place not in $T/used, as
# SPEC (lab.sh's) and FJSON (what scoring needs). In this shell, so that
# RANDOM's sequence goes on.
fault_of() {
	local k=$1 l="" a="" b="" end="" pct h="" net ln
	while :; do
		if [[ $k == link_* ]]; then
			pick ${#FABRIC[@]}; l=${FABRIC[$PICK]}; a=${l%-*}; b=${l#*-}
			grep -qx "$l" "$T/used" 2>/dev/null || break
		else
			pick ${#HOSTS[@]}; h=${HOSTS[$PICK]}
			grep -qx "$h" "$T/used" 2>/dev/null || break
		fi
	done
	pick 5; pct=$(( 1 + PICK ))
	pick 2; [ "$PICK" = 0 ] && end=$a || end=$b
	pick 2; [ "$PICK" = 0 ] && { net=cluster; ln=clu; } || { net=public; ln=pub; }
	case $k in
	link_loss_oneway) SPEC="loss:$l:$end:$pct"; FJSON="{\"kind\":\"$k\",\"routers\":[\"$a\",\"$b\"]}"; echo "$l" >> "$T/used" ;;
	link_loss) SPEC="loss:$l:$pct"; FJSON="{\"kind\":\"$k\",\"routers\":[\"$a\",\"$b\"]}"; echo "$l" >> "$T/used" ;;
	link_rate) SPEC="rate:$l:200"; FJSON="{\"kind\":\"$k\",\"routers\":[\"$a\",\"$b\"]}"; echo "$l" >> "$T/used" ;;
	link_mtu) SPEC="mtu:$l:$end:1500"; FJSON="{\"kind\":\"$k\",\"routers\":[\"$a\",\"$b\"]}"; echo "$l" >> "$T/used" ;;
	host_loss) SPEC="loss:$h-$ln:$h:$(( pct + 2 ))"; FJSON="{\"kind\":\"$k\",\"host\":\"$h\",\"net\":\"$net\",\"fits\":[\"lossy_host\"]}"; echo "$h" >> "$T/used" ;;
	host_rate) SPEC="rate:$h-$ln:200"; FJSON="{\"kind\":\"$k\",\"host\":\"$h\",\"net\":\"$net\",\"fits\":[\"slow_host\"]}"; echo "$h" >> "$T/used" ;;
	host_mtu) SPEC="mtu:$h-$ln:$h:1500"; FJSON="{\"kind\":\"$k\",\"host\":\"$h\",\"net\":\"$net\",\"fits\":[\"mtu_blackhole\"]}"; echo "$h" >> "$T/used" ;;
	host_filter) SPEC="block:$h:$net:6800-7300:drop"; FJSON="{\"kind\":\"$k\",\"host\":\"$h\",\"net\":\"$net\",\"fits\":[\"port_blocked\"]}"; echo "$h" >> "$T/used" ;;
	esac
}
KINDS=(link_loss_oneway link_loss link_rate link_mtu host_loss host_rate host_mtu host_filter)

echo "# localize: $P, ${#HOSTS[@]} hosts, ${#FABRIC[@]} fabric links, routers answer from the $ICMP address (ICMP rate limit ${RL} ms), seed $SEED, $TRIALS trials, -t $SECS"
: > "$T/results"
[ -n "$KEEP" ] && { : > "$KEEP/trials.jsonl"; echo "$SEED $ICMP $RL" > "$KEEP/head"; }
t=0 NSINGLE=0
while [ "$t" -lt "$TRIALS" ]; do
	t=$((t + 1))
	RANDOM=$(( SEED * 7919 + t ))
	: > "$T/used"
	specs=(); faults="[]"
	# Every sixth trial healthy, every sixth two faults of different
	# kinds, the others one fault, the kinds in turn from the seed's.
	case $(( t % 6 )) in
	0) ;;
	5) pick ${#KINDS[@]}; k1=${KINDS[$PICK]}; k2=$k1
	   while [ "$k2" = "$k1" ]; do pick ${#KINDS[@]}; k2=${KINDS[$PICK]}; done
	   fault_of "$k1"; specs+=("$SPEC|$FJSON")
	   fault_of "$k2"; specs+=("$SPEC|$FJSON") ;;
	*) k1=${KINDS[$(( (SEED + NSINGLE) % ${#KINDS[@]} ))]}; NSINGLE=$((NSINGLE + 1))
	   fault_of "$k1"; specs+=("$SPEC|$FJSON") ;;
	esac
	: > "$T/active"
	for s in "${specs[@]}"; do
		"$LAB" fault "$P" add "${s%%|*}" >/dev/null 2>&1 || { echo "localize: fault ${s%%|*} failed" >&2; exit 3; }
		echo "${s%%|*}" >> "$T/active"
		faults=$(jq -c --argjson f "${s#*|}" --arg spec "${s%%|*}" '. + [$f + {spec: $spec}]' <<<"$faults")
	done
	ip netns exec "$P-adm" "$CF" -i "$ST/lab.inv" -k "$ST/key" matrix \
		--profile "$TOP/configs/profiles/lab.conf" -t "$SECS" --tests "$TESTS" --db "$T/m.db" \
		--json "$T/m$t.json" > "$T/m$t.txt" 2>&1
	rc=$?
	for f in $(cat "$T/active"); do "$LAB" fault "$P" del "$f" >/dev/null 2>&1; done
	: > "$T/active"
	# What an MTU fault taught the hosts (path MTUs) is gone with it.
	for h in "${HOSTS[@]}"; do ip -n "$P-$h" route flush cache 2>/dev/null; done
	if [ ! -s "$T/m$t.json" ]; then
		echo "localize: trial $t: the matrix wrote no result (exit $rc): $(tail -2 "$T/m$t.txt")" >&2
		exit 3
	fi
	if [ -n "$KEEP" ]; then
		cp "$T/m$t.json" "$T/m$t.txt" "$T/m.db" "$T/routers.json" "$KEEP/"
		jq -c --argjson t "$t" --argjson f "$faults" '{trial: $t, run: .run, faults: $f}' "$T/m$t.json" >> "$KEEP/trials.jsonl"
	fi
	res=$(score "$T/m$t.json" "$faults" | jq -c --argjson t "$t" '. + {trial: $t}')
	echo "$res" >> "$T/results"
	show_trial <<<"$res"
done

summary
exit 0
