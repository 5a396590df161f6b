#!/usr/bin/env bash
# The alerting rules of dist/prometheus/ are valid (promtool check rules)
# and fire as tests/prometheus/cephfab-rules.test.yml says: loss on one
# direction of one pair, not on its clean network nor on an unreachable
# peer; RTT p99; a path MTU below the port's; an unreachable peer; an agent
# that cannot be scraped; an agent that does not probe.
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || skip "no promtool (Debian package prometheus)"
promtool check rules "$TOP/dist/prometheus/cephfab-rules.yml" > "$T/check" 2>&1 ||
	fail "promtool check rules: $(cat "$T/check")"
(cd "$TOP/tests/prometheus" && promtool test rules cephfab-rules.test.yml) > "$T/test" 2>&1 ||
	fail "promtool test rules: $(cat "$T/test")"
echo "prom_rules: ok"
