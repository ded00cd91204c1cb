// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "core/inject.h"
#include "core/ktap.h"
#include "slow.skel.h"

/* The skeleton stays loaded until exit: its fds end the attachment. */
static struct slow *slow_skel;
static int slow_err;
static bool slow_tried;

static int slow_parse(const char *env, unsigned int *loops)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(env, &end, 10);
	/* bpf_loop refuses more than 1 << 23 iterations. */
	if (errno || end == env || *end || v > (1UL << 23))
		return -EINVAL;
	*loops = v;
	return 0;
}

static int slow_load(unsigned int loops)
{
	struct slow *s;
	int ret;

	s = slow__open();
	if (!s)
		return -errno ? -errno : -ENOMEM;
	s->rodata->target_tgid = getpid();
	s->rodata->loops = loops;
	ret = slow__load(s);
	if (!ret)
		ret = slow__attach(s);
	if (ret) {
		slow__destroy(s);
		return ret;
	}
	slow_skel = s;
	return 0;
}

int zc_inject_slow(void)
{
	const char *env = getenv("ZC_INJECT_SLOW");
	unsigned int loops;

	if (!env || !*env || slow_tried)
		return slow_err;
	slow_tried = true;
	slow_err = slow_parse(env, &loops);
	if (!slow_err)
		slow_err = slow_load(loops);
	ktap_print_msg("ZC_INJECT_SLOW=%s: %s", env, slow_err ?
		       strerror(-slow_err) :
		       "bpf_loop per transmitted packet on net_dev_start_xmit (ok)");
	return slow_err;
}

unsigned long long zc_inject_slow_pkts(void)
{
	return slow_skel ? slow_skel->bss->pkts : 0;
}
