// SPDX-License-Identifier: GPL-2.0
/*
 * no_uring CMD [ARG]...: run CMD under a seccomp filter that fails
 * io_uring_setup with EPERM, as Docker's default profile does, and
 * allows everything else.
 * no_uring --no-probe CMD [ARG]...: io_uring works, but its opcode probe
 * (io_uring_register IORING_REGISTER_PROBE) fails EINVAL, as on a kernel
 * before 5.6: what the suite reads as the kernel lacking a feature.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "core/util.h"

#if defined(__x86_64__)
#define ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH	AUDIT_ARCH_AARCH64
#else
#error "no_uring: add this architecture's AUDIT_ARCH"
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup	425
#endif
#ifndef __NR_io_uring_register
#define __NR_io_uring_register	427
#endif
#define REGISTER_PROBE		8	/* IORING_REGISTER_PROBE */

/*
 * The syscall number, of this ABI only: another (x32, compat) could reach
 * io_uring another way, and is refused. Every filter starts with it.
 */
static const struct sock_filter native_nr[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
};

static const struct sock_filter no_setup[] = {
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static const struct sock_filter no_probe[] = {
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_register, 0, 3),
	/* the opcode, the low word of args[1] (little-endian) */
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, REGISTER_PROBE, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

int main(int argc, char **argv)
{
	struct sock_filter f[ZC_ARRAY_SIZE(native_nr) + ZC_ARRAY_SIZE(no_probe)];
	const struct sock_filter *tail = no_setup;
	size_t n = ZC_ARRAY_SIZE(no_setup);
	struct sock_fprog prog = { .filter = f };

	if (argc > 1 && !strcmp(argv[1], "--no-probe")) {
		tail = no_probe;
		n = ZC_ARRAY_SIZE(no_probe);
		argv++;
		argc--;
	}
	/* jumps are relative: the tail runs unchanged after the prefix */
	memcpy(f, native_nr, sizeof(native_nr));
	memcpy(f + ZC_ARRAY_SIZE(native_nr), tail, n * sizeof(*tail));
	prog.len = ZC_ARRAY_SIZE(native_nr) + n;
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--no-probe] CMD [ARG]...\n", argv[0]);
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		fprintf(stderr, "%s: seccomp: %s\n", argv[0], strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], strerror(errno));
	return 127;
}
