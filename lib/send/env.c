// SPDX-License-Identifier: GPL-2.0
/* Causes of a copy that are not the kernel's doing, see env.h. */
#include <stdio.h>
#include <sys/socket.h>

#include "send/env.h"
#include "net/netdev_nl.h"
#include "net/netns.h"
#include "net/taps.h"

struct offload_args {
	int ifindex, sg, csum;
	char drv[32];
};

static int read_offloads(void *arg)
{
	struct offload_args *o = arg;

	zc_netdev_driver(o->ifindex, o->drv, sizeof(o->drv));
	return zc_netdev_offloads(o->ifindex, &o->sg, &o->csum);
}

/* Without SG or checksum offload the stack copies before the driver. */
static int offload_cause(const struct zc_side *s, char *why, size_t len)
{
	struct offload_args o = { .ifindex = s->ifindex, .drv = "?" };

	if (zc_netns_run(s->nsfd, read_offloads, &o) || (o.sg && o.csum))
		return 0;
	snprintf(why, len,
		 "environment: the sending device %s (%s) has %s%s%s off: zero-copy sends through it are copied before they leave (ethtool -K %s sg on tx on, or a backend that offers them)",
		 s->ifname, o.drv, !o.sg ? "scatter-gather" : "",
		 !o.sg && !o.csum ? " and " : "", !o.csum ? "tx checksum" : "",
		 s->ifname);
	return 1;
}

int zc_env_copy_cause(const struct zc_topo *t, struct zc_why *w)
{
	char *why = w->msg;
	size_t len = sizeof(w->msg);
	int own[2] = { t->a.nsfd, t->b.nsfd };

	/* what this says is never the kernel's doing */
	w->cls = ZC_CLASS_ENV;
	if (zc_taps_foreign(own, 2, w) > 0)
		return 1;
	return offload_cause(&t->a, why, len);
}
