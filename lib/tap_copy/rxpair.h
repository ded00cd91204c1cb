/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sender socket and a plain receiver for it, in the test namespaces:
 * the receiver is a bound datagram socket or the connection a listener
 * accepted, non-blocking, drained and counted by the test.
 */
#ifndef ZC_RXPAIR_H
#define ZC_RXPAIR_H

/*
 * A receiver in rx_nsfd bound to addr:port, and a socket in tx_nsfd
 * connected to it. Returns the sender's fd and the receiver's in *rx_fd,
 * or -errno with *step naming what failed ("receiver" or "connect").
 */
int zc_rxpair_open(int tx_nsfd, int rx_nsfd, int family, int type,
		   const void *addr, int port, double timeout, int *rx_fd,
		   const char **step);

/* Reads what is queued on a non-blocking receiver, adds it up. */
void zc_rxpair_drain(int rx_fd, long *msgs, long long *bytes);

#endif
