#!/usr/bin/env bash
# bench/localize_table.sh: the accuracy benchmark's tables, as
# docs/matrix.md shows them, from the directories of finished
# 'bench/localize.sh --keep DIR' runs: each run's measurements judged
# again by this build (or $CEPHFAB), and by $BEFORE when set (an older
# build's cephfab: before and after on the same measurements).
#
#   bench/localize_table.sh DIR...
#
# Prints one row per router behaviour and fabric shape (the seeds
# together), a row per behaviour over its shapes, then found/faults and
# exact per fault kind and behaviour.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: bench/localize_table.sh DIR..." >&2; exit 2; }
T=$(mktemp -d /tmp/cf-loctable.XXXXXX)
trap 'rm -rf "$T"' EXIT
i=0
for d in "$@"; do
	i=$((i + 1))
	[ -s "$d/routers.json" ] || { echo "localize_table: $d: not a --keep directory" >&2; exit 2; }
	spines=$(jq '[.[] | select(test("^s[0-9]"))] | unique | length' "$d/routers.json")
	leaves=$(jq '[.[] | select(test("^l[0-9]"))] | unique | length' "$d/routers.json")
	"$TOP/bench/localize.sh" --rescore "$d" --json "$T/$i.new.json" > "$T/$i.new.txt" 2>&1 ||
		{ echo "localize_table: $d: $(tail -1 "$T/$i.new.txt")" >&2; exit 3; }
	jq -c --arg b after --argjson s "$spines" --argjson l "$leaves" \
		'. + {build: $b, spines: $s, leaves: $l}' "$T/$i.new.json" >> "$T/all.jsonl"
	if [ -n "${BEFORE:-}" ]; then
		CEPHFAB=$BEFORE "$TOP/bench/localize.sh" --rescore "$d" --json "$T/$i.old.json" > "$T/$i.old.txt" 2>&1 ||
			{ echo "localize_table: $d (before): $(tail -1 "$T/$i.old.txt")" >&2; exit 3; }
		jq -c --arg b before --argjson s "$spines" --argjson l "$leaves" \
			'. + {build: $b, spines: $s, leaves: $l}' "$T/$i.old.json" >> "$T/all.jsonl"
	fi
done
jq -s -r '
def fig(t): ([t[] | .faults[]]) as $f | ([t[] | .errors] | add // 0) as $e |
	([t[] | .false | length] | add // 0) as $fp | [$f[] | select(.routers)] as $lf |
	{trials: (t | length), faults: ($f | length),
	 recall: (if ($f | length) > 0 then ([$f[] | select(.found)] | length) / ($f | length) else 1 end),
	 precision: (if $e > 0 then ($e - $fp) / $e else 1 end),
	 exact: (if ($lf | length) > 0 then ([$lf[] | select(.exact)] | length) / ($lf | length) else 1 end),
	 hfp: ([t[] | select((.faults | length) == 0) | .errors] | add // 0)};
def r2: . * 100 | round / 100 | tostring | if test("\\.") then (. + "0")[0:4] else . + ".00" end;
def cells(x): "\(x.recall | r2) | \(x.precision | r2) | \(x.exact | r2) | \(x.hfp)";
(any(.[]; .build == "before")) as $before |
"| routers answer from | fabric | seeds | trials | faults | recall | precision | exact link | healthy fp |" +
	(if $before then " before: recall | precision | exact link | healthy fp |" else "" end),
"|---|---|---|---|---|---|---|---|---|" + (if $before then "---|---|---|---|" else "" end),
(group_by([.icmp, .leaves, .spines]) | sort_by(.[0].icmp, .[0].spines)[] |
	[.[] | select(.build == "after")] as $a | [.[] | select(.build == "before")] as $b |
	fig([$a[] | .trials[]]) as $x |
	"| \($a[0].icmp) | \($a[0].leaves) leaves x \($a[0].spines) spines | \([$a[] | .seed] | sort | map(tostring) | join(", ")) | \($x.trials) | \($x.faults) | \(cells($x)) |" +
	(if $before then " \(cells(fig([$b[] | .trials[]]))) |" else "" end)),
(group_by(.icmp)[] | select(([.[] | "\(.leaves)x\(.spines)"] | unique | length) > 1) |
	[.[] | select(.build == "after")] as $a | [.[] | select(.build == "before")] as $b |
	fig([$a[] | .trials[]]) as $x |
	"| **\($a[0].icmp)** | **all** | \([$a[] | .seed] | unique | sort | map(tostring) | join(", ")) | \($x.trials) | \($x.faults) | \(cells($x)) |" +
	(if $before then " \(cells(fig([$b[] | .trials[]]))) |" else "" end)),
"",
([.[] | select(.build == "after")] | [.[].icmp] | unique) as $icmps |
"| fault kind | " + ($icmps | map(. + ": found | exact") | join(" | ")) + " |",
"|---|" + ($icmps | map("---|---|") | join("")),
([.[] | select(.build == "after") | .icmp as $i | .trials[] | .faults[] | . + {icmp: $i}] |
	group_by(.kind)[] | . as $k |
	"| \($k[0].kind) | " + ($icmps | map(. as $i | [$k[] | select(.icmp == $i)] |
		"\([.[] | select(.found)] | length)/\(length) | \(if $k[0].routers then "\([.[] | select(.exact)] | length)/\(length)" else "-" end)") | join(" | ")) + " |")
' "$T/all.jsonl"
