/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for validating the comparison tool: switches read from
 * the environment by zc_topo_setup(), each a real kernel-side effect that
 * ends with the process.
 */
#ifndef ZC_INJECT_H
#define ZC_INJECT_H

/*
 * ZC_INJECT_SLOW=N: from the first call on, every packet this process
 * transmits burns N bpf_loop iterations in the net_dev_start_xmit
 * tracepoint. Loaded once per process, held by fd until exit. Returns 0
 * (also when the switch is unset), or -errno when it could not attach.
 */
int zc_inject_slow(void);

/* Packets slowed so far (0 when not active). */
unsigned long long zc_inject_slow_pkts(void);

#endif
