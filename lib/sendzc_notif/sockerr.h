/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sockets set up so that a send on them fails with a known errno: what
 * error-path tests of the senders (lib/send/zcsend.h) send on.
 */
#ifndef ZC_SOCKERR_H
#define ZC_SOCKERR_H

/*
 * TCP socket in nsfd whose connect to addr:port (IPv4, nobody listening)
 * was refused: the RST leaves ECONNREFUSED in sk_err for the next send.
 * Blocking, so io_uring does not answer -EAGAIN instead. fd or -errno.
 */
int zc_sockerr_refused(int nsfd, const void *addr, int port, double timeout);
/* Don't fragment on a UDP socket: a datagram over the MTU gets EMSGSIZE. */
int zc_sockerr_dontfrag(int fd, int family);
/* An AF_UNIX datagram socket: SEND_ZC on it gets EOPNOTSUPP. fd or -errno. */
int zc_sockerr_unix(void);

#endif
