// SPDX-License-Identifier: GPL-2.0
/* A packet tap a case opens itself (tapspec.h). */
#include <errno.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#include "core/ktap.h"
#include "net/netns.h"
#include "tap_copy/tapspec.h"

int zc_tap_open_on(int nsfd, int ifindex, bool ignore_outgoing)
{
	int fd = zc_open_tap(nsfd), one = 1;

	if (fd < 0)
		return fd;
	if (ifindex) {
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET,
			.sll_protocol = htons(ETH_P_ALL),
			.sll_ifindex = ifindex,
		};

		if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
			goto fail;
	}
	if (ignore_outgoing &&
	    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)))
		goto fail;
	return fd;
fail:
	one = -errno;
	close(fd);
	return one;
}

static int spec_ifindex(const struct zc_topo *t, const struct zc_tap_spec *s)
{
	if (s->dev == ZC_TAP_LO)
		return 1;
	if (s->dev != ZC_TAP_EGRESS)
		return 0;
	return s->ns == ZC_TAP_RECEIVER ? t->b.ifindex : t->a.ifindex;
}

int zc_tap_spec_open(const struct zc_topo *t, const struct zc_tap_spec *s)
{
	if (s->ns == ZC_TAP_NONE)
		return -ENOENT;
	return zc_tap_open_on(s->ns == ZC_TAP_RECEIVER ? t->b.nsfd : t->a.nsfd,
			      spec_ifindex(t, s), s->ignore_outgoing);
}

bool zc_tap_spec_listed(const struct zc_topo *t, const struct zc_tap_spec *s,
			const struct zc_tap *tap, struct zc_why *why)
{
	char line[320];

	if (!tap)
		return !zc_why_set(why, "tap (ns %d, dev %d) not listed", s->ns,
				   s->dev);
	zc_tap_format(tap, line, sizeof(line));
	ktap_print_msg("%s", line);
	if (tap->pid != getpid() ||
	    tap->ignore_outgoing != s->ignore_outgoing ||
	    tap->copies_tx == s->ignore_outgoing ||
	    tap->ifindex != spec_ifindex(t, s) || tap->proto != ETH_P_ALL ||
	    !tap->running)
		return !zc_why_set(why, "wrong listing: %s", line);
	return true;
}
