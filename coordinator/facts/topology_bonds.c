/*
 * topology_bonds: the bond findings of one host's facts (bond_degraded,
 * bond_hash_policy), for Linux bonds (netlink's view: MII, speeds, the
 * 802.3ad aggregator and partner state) and Open vSwitch bonds (the
 * agent's facts/ovs.c: members enabled or not, LACP negotiated or not).
 */
#include "facts/topology.h"
#include "facts/topology_int.h"
#include "text.h"

#include <string.h>

#define PARTNER_COLLECTING 0x10	/* 802.3ad port state bits */
#define PARTNER_DISTRIBUTING 0x20



/* ovs_bond_why: what is wrong with an Open vSwitch bond, appended to why
 * at off (the new offset); *up counts the members that carry traffic. */
static size_t
ovs_bond_why(const cJSON *b, char *why, size_t sz, size_t off, int *up)
{
	const cJSON *m;

	if (strcmp(jstr(b, "lacp"), "configured") == 0)
		off = text_appendf(why, sz, off, "%sLACP is not negotiated: "
		    "the partner sends no LACPDUs (LACP off on the switch's "
		    "port-channel, or a static LAG)", off ? "; " : "");
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "members")) {
		const char *mn = jstr(m, "name"), *lacp = jstr(m, "lacp");

		if (strcmp(jstr(m, "state"), "enabled") == 0) {
			(*up)++;
			continue;
		}
		if (off >= 300)
			continue;
		if (strcmp(jstr(m, "mii"), "up") != 0)
			off = text_appendf(why, sz, off, "%s%.32s is disabled "
			    "(carrier %s)", off ? "; " : "", mn, jstr(m,
			    "mii"));
		else
			off = text_appendf(why, sz, off, "%s%.32s is disabled"
			    "%s%.40s%s", off ? "; " : "", mn, lacp[0] ?
			    " (LACP: " : "", lacp, lacp[0] ? ")" : "");
	}
	return off;
}

int
topology_bonds(const char *host, const cJSON *facts, cJSON *out)
{
	const cJSON *l, *b, *m, *ad;
	int errors = 0;

	cJSON_ArrayForEach(l, cJSON_GetObjectItem(facts, "links")) {
		char why[384];
		size_t off = 0;
		double speed0 = -1, agg;
		const char *mode, *pol;
		int members = 0, up = 0;
		cJSON *f;

		if ((b = cJSON_GetObjectItem(l, "bond")) == NULL)
			continue;
		mode = jstr(b, "mode");
		pol = jstr(b, "xmit_hash_policy");
		ad = cJSON_GetObjectItem(b, "ad");
		agg = jnum(ad, "aggregator", -1);
		why[0] = '\0';
		if (strcmp(jstr(b, "source"), "ovs") == 0) {
			members = cJSON_GetArraySize(cJSON_GetObjectItem(b,
			    "members"));
			off = ovs_bond_why(b, why, sizeof(why), off, &up);
		} else cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "members")) {
			const char *mn = jstr(m, "name");
			double sp = jnum(m, "speed_mbps", -1);
			double ps = jnum(m, "partner_state", -1);

			members++;
			if (strcmp(jstr(m, "mii"), "up") != 0) {
				off = text_appendf(why, sizeof(why), off,
				    "%s%s is %s", off ? "; " : "", mn,
				    jstr(m, "mii"));
				continue;
			}
			up++;
			if (speed0 < 0 && sp > 0)
				speed0 = sp;
			else if (sp > 0 && sp != speed0 && off < 300)
				off = text_appendf(why, sizeof(why), off,
				    "%s%s runs at %.0f Mb/s, another "
				    "member at %.0f", off ? "; " : "", mn, sp,
				    speed0);
			if (strcmp(mode, "802.3ad") != 0 || off >= 300)
				continue;
			if (agg >= 0 && jnum(m, "aggregator", -1) != agg)
				off = text_appendf(why, sizeof(why), off,
				    "%s%s is in aggregator %.0f, not the "
				    "bond's %.0f", off ? "; " : "", mn,
				    jnum(m, "aggregator", -1), agg);
			else if (ps >= 0 && ((int)ps & (PARTNER_COLLECTING |
			    PARTNER_DISTRIBUTING)) != (PARTNER_COLLECTING |
			    PARTNER_DISTRIBUTING))
				off = text_appendf(why, sizeof(why), off,
				    "%s%s's partner is not collecting and "
				    "distributing (state 0x%02x)", off ? "; " :
				    "", mn, (int)ps);
		}
		if (members == 0 && off < 300)
			off = text_appendf(why, sizeof(why), off,
			    "no members");
		if (off) {
			f = finding_new(out, "bond_degraded", "error", "", "check "
			    "the member's cable, switch port and LACP "
			    "configuration (the switch's port-channel)",
			    "%s %s (%s, %d of %d members up): %s", host,
			    jstr(l, "name"), mode, up, members, why);
			finding_host(f, host);
			cJSON_AddStringToObject(cJSON_GetObjectItem(f,
			    "evidence"), "bond", jstr(l, "name"));
			errors++;
		}
		if ((strcmp(mode, "802.3ad") == 0 || strcmp(mode,
		    "balance-xor") == 0 || strcmp(mode, "balance-slb") == 0) &&
		    (strcmp(pol, "layer2") == 0 ||
		    strcmp(pol, "layer2+3") == 0)) {
			f = finding_new(out, "bond_hash_policy", "warn", "",
			    strcmp(mode, "balance-slb") == 0 ? "set bond_mode="
			    "balance-tcp (with LACP) so that the streams "
			    "between two hosts spread over the members" : "set "
			    "xmit_hash_policy layer3+4 so that the streams "
			    "between two hosts spread over the members",
			    "%s %s hashes with %s: all traffic between two "
			    "hosts takes one member", host, jstr(l, "name"),
			    pol);
			finding_host(f, host);
		}
	}
	return errors;
}
