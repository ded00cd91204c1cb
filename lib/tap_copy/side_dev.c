// SPDX-License-Identifier: GPL-2.0
/* Device operations inside the device's own namespace (side_dev.h). */
#include <stdio.h>
#include <sys/socket.h>
#include <bpf/libbpf.h>

#include "net/netdev_nl.h"
#include "net/netns.h"
#include "tap_copy/side_dev.h"

struct drv_args {
	int ifindex;
	char *buf;
	size_t len;
};

static int driver_in_ns(void *arg)
{
	struct drv_args *d = arg;

	return zc_netdev_driver(d->ifindex, d->buf, d->len);
}

void zc_side_dev_driver(const struct zc_side *s, char *buf, size_t len)
{
	struct drv_args d = { s->ifindex, buf, len };

	if (zc_netns_run(s->nsfd, driver_in_ns, &d))
		snprintf(buf, len, "driver unknown");
}

struct xdp_args {
	int ifindex, prog_fd;
	unsigned int flags;
};

static int xdp_in_ns(void *arg)
{
	struct xdp_args *a = arg;

	return bpf_xdp_attach(a->ifindex, a->prog_fd, a->flags, NULL);
}

int zc_side_dev_xdp(const struct zc_side *s, int prog_fd, unsigned int flags)
{
	struct xdp_args a = { s->ifindex, prog_fd, flags };

	return zc_netns_run(s->nsfd, xdp_in_ns, &a);
}
