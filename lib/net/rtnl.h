/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink requests, each acting in the calling thread's namespace. */
#ifndef ZC_RTNL_H
#define ZC_RTNL_H

#include <stdbool.h>
#include <stdint.h>

int zc_link_set_up(int ifindex, bool up);
int zc_link_set_mtu(int ifindex, int mtu);
/* Receive frames for any destination MAC (a NIC's filter off). */
int zc_link_set_promisc(int ifindex, bool on);
/* Move a device into the namespace nsfd. */
int zc_link_move(int ifindex, int nsfd);
/* veth pair: `name` here, `peer` moved into peer_nsfd (-1: stay here). */
int zc_veth_add(const char *name, const char *peer, int peer_nsfd, int mtu);
int zc_addr_add(int ifindex, int family, const void *addr, int prefix);
int zc_neigh_add(int ifindex, int family, const void *addr,
		 const unsigned char *mac);

/* A device's packet counters (IFLA_STATS64). */
struct zc_link_counts {
	uint64_t rx_packets, tx_packets, rx_dropped, tx_dropped;
	uint64_t rx_missed;	/* missed, overrun, FIFO: the device had no room */
};
int zc_link_counts(int ifindex, struct zc_link_counts *c);

#endif
