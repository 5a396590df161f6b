/* sweep: source-port sweep over the paths, see probes.h. */
#include "probes/probes.h"
#include "core/core.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static volatile sig_atomic_t sweep_stop;

static void
sweep_sig(int sig)
{
	(void)sig;
	sweep_stop = 1;
}

/* one_stream runs the child for one source port; its JSON (caller
 * frees) or NULL. */
static cJSON *
one_stream(const struct sweep_opts *o, unsigned sport)
{
	char port[16], secs[32], tmo[32], *argv[32], *out = NULL;
	size_t len = 0, cap = 0;
	int fd, k, st;
	pid_t pid;
	cJSON *j;

	snprintf(port, sizeof(port), "%u", sport);
	snprintf(secs, sizeof(secs), "%.1f", o->seconds);
	snprintf(tmo, sizeof(tmo), "%.1f", o->timeout);
	k = self_argv_begin(argv, o->inventory, o->key, tmo);
	argv[k++] = "pair";
	argv[k++] = (char *)o->a;
	argv[k++] = (char *)o->b;
	if (o->net) {
		argv[k++] = "--net";
		argv[k++] = (char *)o->net;
	}
	argv[k++] = "-P";
	argv[k++] = "1";
	argv[k++] = "-t";
	argv[k++] = secs;
	argv[k++] = "--sport-base";
	argv[k++] = port;
	argv[k++] = "--json";
	argv[k] = NULL;
	if ((pid = self_spawn(argv, &fd)) == -1)
		return NULL;
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *nb = cap >= (8u << 20) ? NULL : realloc(out,
			    cap ? cap * 2 : 65536);

			if (nb == NULL)
				break;
			out = nb;
			cap = cap ? cap * 2 : 65536;
		}
		n = read(fd, out + len, cap - len - 1);
		if (n < 0 && errno == EINTR) {
			if (sweep_stop)
				kill(pid, SIGINT);
			continue;
		}
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	j = out ? cJSON_ParseWithLength(out, len) : NULL;
	free(out);
	return j;
}

int
sweep_run(const struct sweep_opts *o)
{
	cJSON *doc = cJSON_CreateObject(), *arr, *cov, *un;
	struct sigaction sa;
	char err[CF_ERRLEN];
	const char *names[32];
	int counts[32], npaths = 0, i, measured = 0, failed = 0, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sweep_sig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cJSON_AddStringToObject(doc, "a", o->a);
	cJSON_AddStringToObject(doc, "b", o->b);
	cJSON_AddNumberToObject(doc, "sport_base", o->sport_base);
	arr = cJSON_AddArrayToObject(doc, "streams");
	for (i = 0; i < o->count && !sweep_stop; i++) {
		unsigned sport = o->sport_base + (unsigned)i;
		cJSON *r = one_stream(o, sport), *x = cJSON_CreateObject();
		const cJSON *end, *tx, *l, *sum;
		const char *best = NULL, *e;
		double bsh = -1, paths = 0, bps = 0;
		int k;

		out_progress("sweep: %d/%d source ports", i + 1, o->count);
		cJSON_AddNumberToObject(x, "sport", sport);
		cJSON_AddItemToArray(arr, x);
		if (r == NULL || (json_opt_str(r, "error", 0, 512, NULL, &e,
		    err) == 0 && e)) {
			cJSON_AddStringToObject(x, "error", r && e ? e :
			    "the test did not run");
			cJSON_Delete(r);
			failed++;
			continue;
		}
		if (json_get_obj(r, "end", &end, err) == 0 &&
		    json_get_obj(end, "sum", &sum, err) == 0)
			json_get_double(sum, "bits_per_second", 0, 1e15, &bps,
			    err);
		/* The path is the one A's counters say carried it. */
		if (json_get_obj(end, "spread", &tx, err) == 0 &&
		    json_get_obj(tx, "a", &tx, err) == 0 &&
		    json_get_obj(tx, "tx", &tx, err) == 0) {
			json_get_double(tx, "paths", 0, 64, &paths, err);
			cJSON_ArrayForEach(l, cJSON_GetObjectItem(tx, "links")) {
				const char *nm;
				double sh;

				if (json_get_str(l, "name", 1, 15, &nm, err) ==
				    -1 || json_get_double(l, "share", 0, 1, &sh,
				    err) == -1)
					continue;
				for (k = 0; k < npaths && strcmp(names[k], nm);
				    k++)
					;
				if (k == npaths && npaths < 32) {
					names[npaths] = strdup(nm);
					counts[npaths++] = 0;
				}
				if (sh > bsh) {
					bsh = sh;
					best = names[k < 32 ? k : 0];
				}
			}
		}
		cJSON_AddNumberToObject(x, "gbps", bps / 1e9);
		if (best) {
			for (k = 0; k < npaths && names[k] != best; k++)
				;
			counts[k]++;
			cJSON_AddStringToObject(x, "path", best);
			cJSON_AddNumberToObject(x, "share", bsh);
			measured++;
		}
		if (!o->json)
			printf("sport %5u  %-10s %5.0f%%  %.2f Gbit/s\n", sport,
			    best ? best : "?", bsh * 100, bps / 1e9);
		cJSON_Delete(r);
	}
	out_progress_done();
	cov = cJSON_AddObjectToObject(doc, "coverage");
	un = cJSON_AddArrayToObject(doc, "unused");
	for (i = 0; i < npaths; i++) {
		cJSON_AddNumberToObject(cov, names[i], counts[i]);
		if (counts[i] == 0)
			cJSON_AddItemToArray(un, cJSON_CreateString(names[i]));
	}
	if (!o->json) {
		printf("coverage:");
		for (i = 0; i < npaths; i++)
			printf(" %s %d", names[i], counts[i]);
		printf("%s\n", npaths ? "" : " no path counters");
		if (cJSON_GetArraySize(un))
			printf("never used: %s\n", cJSON_GetArrayItem(un,
			    0)->valuestring);
	} else {
		out_json(doc);
	}
	for (i = 0; i < npaths; i++)
		free((char *)names[i]);
	rc = measured == 0 ? EXIT_RUNTIME : failed ||
	    cJSON_GetArraySize(un) ? EXIT_PROBLEMS : EXIT_PASS;
	cJSON_Delete(doc);
	return rc;
}
