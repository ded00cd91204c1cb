/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device an AF_XDP test binds to, and what it says about zero-copy.
 *
 * Either a device named by the user (--iface, in the caller's namespace:
 * binds only, no traffic), or side a of the test's own topology (a veth
 * pair, or ZC_PAIR devices moved into the test's namespaces), side b
 * sending and counting. Zero-copy is expected exactly where the device
 * advertises NETDEV_XDP_ACT_XSK_ZEROCOPY and no known precondition of
 * its driver is missing (virtio_net: VIRTIO_F_ACCESS_PLATFORM, no
 * big-packets mode).
 */
#ifndef ZC_XSK_DUT_H
#define ZC_XSK_DUT_H

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include "net/netdev_nl.h"
#include "net/netns.h"
#include "core/why.h"

struct zc_xsk_dut {
	struct zc_topo topo;
	bool veth;		/* the test's own topology: traffic may flow */
	int nsfd;
	int ifindex;
	char ifname[IF_NAMESIZE];
	uint32_t queue;
	uint32_t bad_queue;	/* first queue id out of range */
	char driver[32];
	struct zc_netdev_info info;
	int info_err;
	bool zc_capable;	/* advertises NETDEV_XDP_ACT_XSK_ZEROCOPY */
	int zc_refused;		/* -errno a known precondition gives, or 0 */
	struct zc_why refusal;	/* why, for the skip line */
	uint32_t frame_len;	/* frames the data paths move */
	int cpu_tx;		/* the generator's CPU, -1 unpinned */
	/* Real pair: frames a's transmit may have beyond b's count (b's rx ring). */
	uint32_t tx_window;
};

/*
 * Open iface (NULL: the test's own topology) and query it; queue must be
 * in its range. 0; -EOPNOTSUPP with why when the kernel lacks what it
 * takes (a skip); other -errno with why.
 */
int zc_xsk_dut_open(struct zc_xsk_dut *d, const char *iface, uint32_t queue,
		    struct zc_why *why);
void zc_xsk_dut_close(struct zc_xsk_dut *d);

/* Zero-copy expected: advertised, and no known precondition missing. */
static inline bool zc_xsk_dut_zc_ok(const struct zc_xsk_dut *d)
{
	return d->zc_capable && !d->zc_refused;
}

/* Why zero-copy is not expected on d (the refusal, or the missing flag). */
void zc_xsk_dut_zc_lacks(const struct zc_xsk_dut *d, struct zc_why *why);

#endif
