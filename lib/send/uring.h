/* SPDX-License-Identifier: GPL-2.0 */
/* The io_uring zero-copy send opcodes this kernel has. */
#ifndef ZC_URING_H
#define ZC_URING_H

#include <stdbool.h>

#include "core/why.h"

/*
 * Does io_uring work here (zc_probe_uring) with IORING_OP_SEND_ZC
 * (6.0+)? 0, or -1 with why. *sendmsg_zc tells whether
 * IORING_OP_SENDMSG_ZC is there too (6.1+).
 */
int zc_probe_send_zc(bool *sendmsg_zc, struct zc_why *why);

#endif
