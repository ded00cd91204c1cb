/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Causes outside the kernel's zero-copy code that make a zero-copy send
 * copy: a case that sees a copy asks here before it blames the kernel.
 * zc-doctor reports the same causes host-wide.
 */
#ifndef ZC_ENV_H
#define ZC_ENV_H

#include <stddef.h>
#include "core/why.h"

struct zc_topo;

/*
 * Is there a cause for a copy of zero-copy sends from t->a to t->b that
 * is not the kernel's doing? A packet tap from outside the test that
 * sees the path on this kernel (zc_taps_foreign), or a sending device
 * without scatter-gather or transmit checksum offload. 1 with the cause
 * in why ("environment: ..."), 0 when none is found.
 */
int zc_env_copy_cause(const struct zc_topo *t, struct zc_why *why);

#endif
