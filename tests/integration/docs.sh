#!/usr/bin/env bash
# What 'make install' ships beside the binaries and that it tells the
# truth: the man pages render without a groff warning and name every
# command, every option of every command's --help and every key of
# agent.conf; bash completion completes commands, options (read from the
# help pages), the inventory's host names and the stored run ids.
. "$(dirname "$0")/lib.sh"
command -v groff >/dev/null || skip "no groff"
make -s -C "$TOP" install DESTDIR="$T/root" PREFIX=/usr > "$T/install.log" 2>&1 ||
	fail "make install: $(tail -5 "$T/install.log")"
M=$T/root/usr/share/man/man8
C=$T/root/usr/share/bash-completion/completions
for f in "$M/cephfab.8" "$M/cephfab-agent.8" "$C/cephfab" "$C/cephfab-agent"; do
	[ -s "$f" ] || fail "not installed: $f"
done

# Rendered without a warning (-ww: all of groff's warnings).
for p in cephfab cephfab-agent; do
	w=$(groff -man -Tutf8 -ww -z "$M/$p.8" 2>&1)
	assert_eq "$w" "" "groff warnings in $p.8"
done
# The page as a reader sees it, hyphens plain.
man_text() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1"; }
man_text "$M/cephfab.8" > "$T/cephfab.txt"
man_text "$M/cephfab-agent.8" > "$T/agent.txt"

# Every command of 'cephfab --help' has its section, and every long
# option of its own page is named in the man page.
cmds=$("$CEPHFAB" --help | awk '/^commands:/ { on = 1; next } /^options:/ { on = 0 } on { print $1 }')
[ "$(echo "$cmds" | wc -l)" -ge 15 ] || fail "commands read from --help: $cmds"
missing=""
for c in $cmds; do
	grep -q "^\.SS $c\( \|$\)" "$T/cephfab.txt" || missing="$missing section:$c"
	for o in $("$CEPHFAB" "$c" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$o\b" "$T/cephfab.txt" || missing="$missing $c:$o"
	done
done
for o in $("$CEPHFAB" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$o\b" "$T/cephfab.txt" || missing="$missing global:$o"
done
grep -q CEPHFAB_INVENTORY "$T/cephfab.txt" || missing="$missing CEPHFAB_INVENTORY"
assert_eq "$missing" "" "cephfab.8 misses"
# The agent's options and every agent.conf key of configs/README.md.
for o in $("$AGENT" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$o\b" "$T/agent.txt" || missing="$missing agent:$o"
done
keys=$(sed -n '/^## Agent configuration/,/^## /p' "$TOP/configs/README.md" |
	grep -o '^| `[a-z_]*`\(, `[a-z_]*`\)*' | grep -o '[a-z_][a-z_]*')
[ "$(echo "$keys" | wc -w)" -ge 20 ] || fail "keys read from configs/README.md: $keys"
for k in $keys; do
	grep -q "\b$k\b" "$T/agent.txt" || missing="$missing key:$k"
done
assert_eq "$missing" "" "cephfab-agent.8 misses"

# docs/commands.md's "Every option" is what each command's --help prints.
python3 - "$TOP/docs/commands.md" "$CEPHFAB" $cmds <<'PY' || fail "docs/commands.md's help pages differ from the program's"
import re, subprocess, sys
readme, prog, cmds = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
pages = dict(re.findall(r"#{3,4} `cephfab ([a-z-]+)`\n\n```\n(.*?)```\n", readme, re.S))
bad = []
for c in cmds:
    out = subprocess.run([prog, c, "--help"], capture_output=True, text=True).stdout
    if pages.get(c) != out:
        bad.append(c)
if bad or set(pages) != set(cmds):
    sys.exit("differ: %s; docs/commands.md has %s" % (bad, sorted(pages)))
PY

# The README and the pages under docs/: every relative link leads to a
# file that is there (the README's detail moved to docs/; a link left
# behind would lead nowhere), and the README stays a five-minute read.
python3 - "$TOP" <<'PY' || fail "docs links"
import glob, os, re, sys
top = sys.argv[1]
bad = []
for f in [top + "/README.md"] + glob.glob(top + "/docs/*.md"):
    for link in re.findall(r"\]\(([^)\s]+)\)", open(f).read()):
        if re.match(r"[a-z]+:", link) or link.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(f), link.split("#")[0]))
        if not os.path.exists(path):
            bad.append("%s: %s" % (os.path.relpath(f, top), link))
if bad:
    sys.exit("links to nothing: " + "; ".join(bad))
n = len(open(top + "/README.md").read().splitlines())
if n > 250:
    sys.exit("README.md is %d lines: its detail belongs under docs/" % n)
PY

# Bash completion, as bash calls it: COMP_WORDS and COMP_CWORD set, the
# function named by 'complete -p', COMPREPLY read back.
loop_cluster 2 osd-%d
"$CEPHFAB" -i "$T/inv" matrix --net public --tests lat --db "$T/m.db" > /dev/null 2>&1 ||
	fail "matrix for a stored run"
mkdir -p "$T/bin" && ln -s "$CEPHFAB" "$T/bin/cephfab" && ln -s "$AGENT" "$T/bin/cephfab-agent"
complete_line() {
	# complete_line WORD...: what TAB offers for the last word.
	(cd "$T" && PATH="$T/bin:$PATH" CEPHFAB_INVENTORY= bash --norc -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		f=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/")
		"$f" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$C/cephfab" "$@")
}
assert_eq "$(complete_line cephfab ma)" "matrix " "command word"
assert_eq "$(complete_line cephfab -i inv mo)" "monitor " "command after -i"
assert_eq "$(complete_line cephfab matrix --con)" "--concurrency " "matrix option"
assert_eq "$(complete_line cephfab pair osd-1 --zero)" "--zerocopy " "pair option"
assert_eq "$(complete_line cephfab -i "$T/inv" pair '')" "osd-1 osd-2 " "host names"
assert_eq "$(complete_line cephfab --inventory "$T/inv" latency osd-1 o)" "osd-1 osd-2 " "host names, long option"
assert_eq "$(complete_line cephfab matrix --net '')" "cluster public public,cluster " "networks"
assert_eq "$(complete_line cephfab report --db "$T/m.db" '')" "1 " "run ids"
assert_eq "$(complete_line cephfab monitor s)" "start status stop " "monitor verbs"
assert_eq "$(complete_line cephfab-agent --ana)" "--analyze " "agent option"
