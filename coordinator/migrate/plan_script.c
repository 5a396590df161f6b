/* plan_script: a plan as a reviewable bash script, see migrate.h. */
#include "migrate/migrate.h"
#include "json.h"

#include <string.h>

/* The gates, as bounded polling loops over the cluster's JSON (python3
 * reads it: no jq needed on a Ceph admin node). */
static const char *prologue =
    "set -euo pipefail\n"
    "CEPH=${CEPH:-ceph}\n"
    "SSH=${SSH:-ssh -o BatchMode=yes -o ConnectTimeout=10}\n"
    "FROM=${1:-1}\n"
    "STEP=0\n"
    "log() { printf '%s step %s: %s\\n' \"$(date +%T)\" \"$STEP\" \"$*\" >&2; }\n"
    "step() { STEP=$1; shift; [ \"$STEP\" -ge \"$FROM\" ] && log \"$*\"; }\n"
    "# wait_for SECONDS CMD...: poll every 2 s; stop the script (not the\n"
    "# cluster) when the gate does not hold in time. Resume with: $0 STEP\n"
    "wait_for() {\n"
    "\tlocal secs=$1; shift; local end=$((SECONDS + secs))\n"
    "\tuntil \"$@\" >/dev/null 2>&1; do\n"
    "\t\tif [ \"$SECONDS\" -ge \"$end\" ]; then\n"
    "\t\t\tlog \"gate not met in ${secs}s: $*; fix it, then: $0 $STEP\"\n"
    "\t\t\texit 1\n"
    "\t\tfi\n"
    "\t\tsleep 2\n"
    "\tdone\n"
    "}\n"
    "flag_set() { $CEPH osd dump -f json | python3 -c 'import json,sys; "
    "sys.exit(0 if sys.argv[1] in json.load(sys.stdin)[\"flags\"].split(\",\") "
    "else 1)' \"$1\"; }\n"
    "ok_to_stop() { $CEPH osd ok-to-stop \"$@\"; }\n"
    "up_from() { $CEPH osd dump -f json | python3 -c 'import json,sys; "
    "print(max([0] + [o[\"up_from\"] for o in json.load(sys.stdin)[\"osds\"] "
    "if o[\"osd\"] in map(int, sys.argv[1:])]))' \"$@\"; }\n"
    "# moved NET EPOCH OSD...: up, restarted after EPOCH, cluster and back\n"
    "# heartbeat addresses in NET.\n"
    "moved() { $CEPH osd dump -f json | python3 -c '\n"
    "import ipaddress, json, sys\n"
    "net = ipaddress.ip_network(sys.argv[1]); epoch = int(sys.argv[2])\n"
    "want = set(map(int, sys.argv[3:]))\n"
    "def inn(av): return all(ipaddress.ip_address(a[\"addr\"].rsplit(\":\", 1)[0].strip(\"[]\")) in net for a in av[\"addrvec\"])\n"
    "ok = [o[\"osd\"] for o in json.load(sys.stdin)[\"osds\"] if o[\"osd\"] in want and o[\"up\"] and\n"
    "      o[\"up_from\"] > epoch and inn(o[\"cluster_addrs\"]) and inn(o[\"heartbeat_back_addrs\"])]\n"
    "sys.exit(0 if len(ok) == len(want) else 1)' \"$@\"; }\n"
    "# pgs_clean EPOCH: every PG active+clean, reported at or after EPOCH.\n"
    "pgs_clean() { $CEPH pg dump pgs -f json 2>/dev/null | python3 -c '\n"
    "import json, sys\n"
    "d = json.load(sys.stdin); s = d.get(\"pg_stats\", d)\n"
    "epoch = int(sys.argv[1])\n"
    "sys.exit(0 if d.get(\"pg_ready\", True) and s and all(p[\"state\"] == \"active+clean\" and\n"
    "    int(str(p[\"reported_epoch\"]).split(chr(39))[0]) >= epoch for p in s) else 1)' \"$1\"; }\n"
    "no_slow_ping() { ! $CEPH health detail 2>/dev/null | grep -q 'OSD_DOWN\\|OSD_SLOW_PING_TIME_BACK'; }\n"
    "settle() { local end=$((SECONDS + $1)); while [ \"$SECONDS\" -lt \"$end\" ]; do\n"
    "\tno_slow_ping || { log 'OSD_DOWN or slow back heartbeats while settling'; exit 1; }\n"
    "\tsleep 5; done; }\n";

static void
quote(FILE *f, const char *s)
{
	/* Single quotes: the commands come from this program, but a host
	 * name is still never trusted to be shell-safe. */
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void
ids(FILE *f, const cJSON *g)
{
	const cJSON *id;

	cJSON_ArrayForEach(id, cJSON_GetObjectItem(g, "osds"))
		fprintf(f, " %d", id->valueint);
}

/* osd_host: where step s's command "systemctl restart ceph-osd@N" runs:
 * N's host in the step's restart map, else the step's own host; NULL
 * when neither names one that can go on a command line. */
static const char *
osd_host(const cJSON *s, const char *cmd, const char *host)
{
	const char *at = strrchr(cmd, '@'), *h = host;
	const cJSON *x;

	x = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s,
	    "do"), "hosts"), at ? at + 1 : "");
	if (cJSON_IsString(x))
		h = x->valuestring;
	else if (strchr(host, ','))
		return NULL;	/* a batch's label, not a host */
	return h[0] && h[0] != '-' ? h : NULL;
}

int
plan_script(const cJSON *plan, FILE *f)
{
	const cJSON *s, *c, *g;
	char err[CF_ERRLEN];
	const char *from = "?", *to = "?", *deploy = "systemd";

	json_get_str(plan, "from", 0, 128, &from, err);
	json_get_str(plan, "to", 0, 128, &to, err);
	json_get_str(plan, "deploy", 0, 16, &deploy, err);
	fprintf(f, "#!/usr/bin/env bash\n# cluster_network %s -> %s, "
	    "written by 'cephfab plan'. Read it before running it.\n# Usage: "
	    "%s [STEP]  (resumes at STEP; gates are re-checked)\n%s", from,
	    to, "$0", prologue);
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(plan, "steps")) {
		const char *name = "", *host = "", *kind = "";
		double n = 0, t = 60;

		json_get_double(s, "n", 0, 1e6, &n, err);
		json_get_str(s, "name", 0, 128, &name, err);
		json_opt_str(s, "host", 0, 256, "", &host, err);
		g = cJSON_GetObjectItem(s, "gate");
		json_opt_str(g, "kind", 0, 32, "", &kind, err);
		json_get_double(g, "timeout_s", 0, 1e6, &t, err);
		fprintf(f, "\nif step %.0f ", n);
		quote(f, name);
		fputs("; then\n", f);
		if (strcmp(kind, "osds_moved") == 0) {
			fputs("\tE=$(up_from", f);
			ids(f, g);
			fputs(")\n", f);
		}
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(s, "commands")) {
			const char *on;

			/* systemd restarts run on the OSD's own host (a
			 * batch's step names several). */
			if (strncmp(c->valuestring, "systemctl ", 10) == 0 &&
			    strcmp(deploy, "systemd") == 0) {
				on = osd_host(s, c->valuestring, host);
				fputs(on ? "\t$SSH -- " : "\tlog 'no usable "
				    "host name for: '", f);
				quote(f, on ? on : c->valuestring);
				if (on) {
					fputs(" sudo ", f);
					quote(f, c->valuestring);
				} else {
					fputs("; exit 1", f);
				}
				fputc('\n', f);
			} else {
				fprintf(f, "\t$CEPH %s\n", c->valuestring + 5);
			}
		}
		if (strcmp(kind, "flag") == 0)
			fprintf(f, "\twait_for %.0f flag_set noout\n", t);
		else if (strcmp(kind, "ok_to_stop") == 0) {
			fprintf(f, "\twait_for %.0f ok_to_stop", t);
			ids(f, g);
			fputc('\n', f);
		} else if (strcmp(kind, "osds_moved") == 0) {
			fprintf(f, "\twait_for %.0f moved %s \"$E\"", t, to);
			ids(f, g);
			/* PGs must be reported after the new up_from. */
			fputs("\n\tup_from", f);
			ids(f, g);
			fputs(" > .cephfab-plan-epoch\n", f);
		} else if (strcmp(kind, "pgs_clean") == 0) {
			fprintf(f, "\twait_for %.0f pgs_clean \"$(cat "
			    ".cephfab-plan-epoch 2>/dev/null || echo 0)\"\n",
			    t);
		} else if (strcmp(kind, "settle") == 0) {
			double secs = 40;

			json_get_double(g, "seconds", 0, 1e6, &secs, err);
			fprintf(f, "\tsettle %.0f\n", secs);
		}
		fputs("fi\n", f);
	}
	fputs("\nlog 'done'\n", f);
	return ferror(f) ? -1 : 0;
}
