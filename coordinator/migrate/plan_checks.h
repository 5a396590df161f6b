/*
 * plan_net: the planner's look at the hosts themselves, through this
 * program's own commands run as children (so each keeps its event loop
 * and its limits): the OSD hosts' addresses from the agents' facts, and
 * the new network tested host to host before any OSD moves.
 */
#ifndef CF_PLAN_NET_H
#define CF_PLAN_NET_H

#include "cli/cli.h"
#include "migrate/plan.h"

/* plan_host_addrs fills ps->hosts from 'hosts --facts --json'. */
void plan_host_addrs(const struct gopts *g, struct plan_state *ps);

/* plan_net_checks: between the OSD hosts, the new network as the matrix
 * tests any network (reach, DF path MTU, Ceph's OSD ports 6800-7300),
 * and every old cluster address to every new one and back (during the
 * transition moved and unmoved OSDs heartbeat each other). Appends a
 * finding per problem to fs; returns how many block. */
int plan_net_checks(const struct gopts *g, const struct ceph_map *m,
    const struct plan_state *ps, const struct plan_opts *o, cJSON *fs);

#endif
