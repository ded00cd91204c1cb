/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Operations on a device that lives in another network namespace
 * (lib/net/netns.h zc_side): its driver's name, attaching XDP to it. Each
 * runs inside the namespace, where the ifindex means that device.
 */
#ifndef ZC_SIDE_DEV_H
#define ZC_SIDE_DEV_H

#include <stddef.h>

struct zc_side;

/* The side's driver name into buf, "driver unknown" when it cannot tell. */
void zc_side_dev_driver(const struct zc_side *s, char *buf, size_t len);
/* bpf_xdp_attach() of prog_fd (-1 detaches) on the side's device. */
int zc_side_dev_xdp(const struct zc_side *s, int prog_fd, unsigned int flags);

#endif
