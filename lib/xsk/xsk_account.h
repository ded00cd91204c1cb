/* SPDX-License-Identifier: GPL-2.0 */
/* Every frame of a data path followed to its end (xsk_account.c). */
#ifndef ZC_XSK_ACCOUNT_H
#define ZC_XSK_ACCOUNT_H

#include <stdbool.h>

#include "xsk/xsk_run.h"

/* Every frame followed to its end (printed); false with r->why. */
bool zc_xsk_run_account(struct zc_xsk_run *r, enum zc_xsk_path path);

#endif
