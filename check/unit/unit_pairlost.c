// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of zc_xsk_pair_lost() (lib/xsk/xsk_pair.c): on a real
 * device pair, frames the receiving driver never took up, or a sender
 * that refused them all, are the pair's loss, a skip; frames the driver
 * took up and XDP never saw stay the path's. zc_xsk_pair_held(): frames
 * the socket sent that its device never counted transmitted are the
 * device's; counted and never completed, the path's.
 */
#include "xsk/xsk_pair.h"
#include "unit_tap.h"

int main(void)
{
	struct zc_xsk_pair_delta all = {
		.sent = 2455, .tx = 2455, .rx = 2455,
	};
	struct zc_xsk_pair_delta extra = {
		.sent = 2455, .tx = 2460, .rx = 2460,
	};
	struct zc_xsk_pair_delta short_rx = {
		.sent = 2455, .tx = 2455, .rx = 2327, .rx_missed = 3,
	};
	struct zc_xsk_pair_delta stopped = { .refused = 87872 };
	struct zc_xsk_pair_delta backpressure = {
		.sent = 400, .refused = 9000, .tx = 400, .rx = 400,
	};
	struct zc_why why = { "" };
	bool lost;

	lost = zc_xsk_pair_lost(&all, "eth2", "eth3", &why);
	unit_check(!lost && !why.msg[0], "every frame taken up: the path's verdict", why.msg);
	lost = zc_xsk_pair_lost(&extra, "eth2", "eth3", &why);
	unit_check(!lost, "more taken up than sent (other frames): the path's verdict", why.msg);
	lost = zc_xsk_pair_lost(&short_rx, "eth2", "eth3", &why);
	unit_check(lost, "fewer taken up than sent: the pair lost them", NULL);
	unit_check(unit_has(why.msg, "generator sent 2455") &&
		   unit_has(why.msg, "eth2 transmitted 2455") &&
		   unit_has(why.msg, "eth3's driver took up 2327") &&
		   unit_has(why.msg, "missed 3"),
		   "the reason names both devices and their counts", why.msg);
	lost = zc_xsk_pair_lost(&stopped, "eth2", "eth3", &why);
	unit_check(lost && unit_has(why.msg, "eth2 refused all 87872 frames"),
		   "a sender that refused every frame: the pair sent nothing", why.msg);
	lost = zc_xsk_pair_lost(&backpressure, "eth2", "eth3", &why);
	unit_check(!lost, "some frames refused, every sent one taken up: the path's verdict",
		   why.msg);

	/* 6.18.15 in CI: 4699 sent, 4413 completed and counted by eth2 */
	lost = zc_xsk_pair_held(4413, 4699, 4413, "eth2", &why);
	unit_check(lost && unit_has(why.msg, "eth2 counted 4413 of the socket's 4699") &&
		   unit_has(why.msg, "286 never came back"),
		   "frames the device never counted: it holds them", why.msg);
	lost = zc_xsk_pair_held(4701, 4699, 4413, "eth2", &why);
	unit_check(!lost && !why.msg[0],
		   "counted by the device, never completed: the path's verdict", why.msg);
	lost = zc_xsk_pair_held(4413, 4413, 4413, "eth2", &why);
	unit_check(!lost, "every frame completed: nothing held", why.msg);
	return unit_done();
}
