// SPDX-License-Identifier: GPL-2.0
/* The io_uring zero-copy send opcodes this kernel has. */
#include <string.h>
#include <liburing.h>

#include "core/probe.h"
#include "send/uring.h"

int zc_probe_send_zc(bool *sendmsg_zc, struct zc_why *why)
{
	struct io_uring_probe *p;
	struct io_uring ring;
	int ret;

	*sendmsg_zc = false;
	if (zc_probe_uring(why))
		return -1;
	ret = io_uring_queue_init(2, &ring, 0);
	/* io_uring itself works here: what is missing is the kernel's */
	if (ret)
		return zc_why_skip(why, ZC_CLASS_KERNEL, "io_uring_setup: %s",
				   strerror(-ret));
	p = io_uring_get_probe_ring(&ring);
	io_uring_queue_exit(&ring);
	if (!p)
		return zc_why_skip(why, ZC_CLASS_KERNEL,
				   "io_uring opcode probe failed (kernel before 5.6)");
	ret = io_uring_opcode_supported(p, IORING_OP_SEND_ZC) ? 0 :
	      zc_why_skip(why, ZC_CLASS_KERNEL, "kernel lacks IORING_OP_SEND_ZC (6.0+)");
	*sendmsg_zc = io_uring_opcode_supported(p, IORING_OP_SENDMSG_ZC);
	io_uring_free_probe(p);
	return ret;
}
