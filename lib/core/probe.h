/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel and process can do. Every probe that fails
 * writes a ready-to-print SKIP reason ("needs CAP_NET_ADMIN",
 * "CONFIG_XDP_SOCKETS not set", ...).
 */
#ifndef ZC_PROBE_H
#define ZC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/capability.h>
#include "core/why.h"

/* 0 if every cap is effective, else -1 with "needs CAP_X" in reason. */
int zc_require_caps(struct zc_why *why, const cap_value_t *caps, int n);
bool zc_have_cap(cap_value_t cap);
/* CAP_BPF, or CAP_SYS_ADMIN on kernels/headers without it. */
int zc_require_bpf_caps(struct zc_why *why);

/*
 * User namespaces. CAP_BPF, CAP_PERFMON, CAP_IPC_LOCK (and CAP_SYS_ADMIN
 * for BPF) count only in the initial user namespace; root in a child one
 * (unshare -Ur, rootless containers) has them in name only.
 * zc_userns_initial: 1 initial, 0 a child, -errno unknown.
 */
int zc_userns_initial(void);
/* Is this /proc/PID/uid_map text the initial namespace's identity map? */
bool zc_uid_map_is_initial(const char *text);
/* The capability in effect where it counts (the initial user namespace). */
bool zc_have_cap_init(cap_value_t cap);
/*
 * Can this process load BPF programs? Tries one (a two-instruction tc
 * program): 0, or -1 with a reason that names the user namespace and
 * the capability when those are why.
 */
int zc_probe_bpf(struct zc_why *why);
/*
 * Does io_uring_setup work here? Tries it: seccomp (Docker's default
 * profile), an LSM, kernel.io_uring_disabled or a kernel without
 * CONFIG_IO_URING each give their own reason. 0, or -1 with the reason.
 */
int zc_probe_uring(struct zc_why *why);

/*
 * Kernel config: 'y', 'm', 'n' (absent or "is not set"), or 0 when no
 * config could be read (/proc/config.gz, /boot/config-$(uname -r)).
 */
char zc_config_get(const char *option);
/* 0 if every option is y/m or config is unknown; else reason "CONFIG_X not set". */
int zc_require_config(struct zc_why *why, const char *const *opts, int n);
/* Parse one config line; fills name/value; returns 0 or -1 (comment/blank). */
int zc_config_parse_line(const char *line, char *name, size_t nlen, char *val);
/* Load from an explicit file (plain or gzip); for tests. Returns count or -errno. */
int zc_config_load(const char *path);

/* uname -r, e.g. "6.12.48+deb13-amd64". */
const char *zc_kernel_release(void);

/* /proc/sys values: path relative to /proc/sys with dots or slashes. */
int zc_sysctl_read(const char *name, long *val);

/* BTF of vmlinux: does struct `st` have member `member`? 1, 0, or -errno. */
int zc_btf_has_member(const char *st, const char *member);
/* Does vmlinux BTF know a type/function of this name? 1, 0, -errno. */
int zc_btf_has_type(const char *name);
/*
 * Has vmlinux a function of this name? BTF's answer, or where the kernel
 * has no BTF, /proc/kallsyms': 1, 0, -errno (neither readable).
 */
int zc_kernel_has_function(const char *name);

#endif
