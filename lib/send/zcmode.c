// SPDX-License-Identifier: GPL-2.0
/* The zero-copy senders' modes (see zcmode.h). */
#include "send/zcmode.h"

static const char *const mode_names[ZC_MODE_COUNT] = {
	[ZC_MODE_SEND] = "send",
	[ZC_MODE_URING_SEND] = "uring_send",
	[ZC_MODE_MSG_ZEROCOPY] = "msg_zerocopy",
	[ZC_MODE_SEND_ZC] = "send_zc",
	[ZC_MODE_SENDMSG_ZC] = "sendmsg_zc",
	[ZC_MODE_SEND_ZC_FIXED] = "send_zc_fixed",
};

const char *zc_send_mode_name(enum zc_send_mode m)
{
	return (unsigned int)m < ZC_MODE_COUNT ? mode_names[m] : "unknown";
}

bool zc_send_mode_uring(enum zc_send_mode m)
{
	return m == ZC_MODE_URING_SEND || m == ZC_MODE_SEND_ZC ||
	       m == ZC_MODE_SENDMSG_ZC || m == ZC_MODE_SEND_ZC_FIXED;
}

bool zc_send_mode_zerocopy(enum zc_send_mode m)
{
	return m == ZC_MODE_MSG_ZEROCOPY || m == ZC_MODE_SEND_ZC ||
	       m == ZC_MODE_SENDMSG_ZC || m == ZC_MODE_SEND_ZC_FIXED;
}
