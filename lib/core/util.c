// SPDX-License-Identifier: GPL-2.0
/* Cleanup on every exit path, data patterns, bounded I/O helpers. */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/util.h"

#define MAX_CLEANUPS	32

struct cleanup {
	void (*fn)(void *arg);
	void *arg;
};

static struct cleanup cleanups[MAX_CLEANUPS];
static volatile sig_atomic_t ncleanups;
static bool handlers_installed;

static void zc_cleanup_run(void)
{
	/* Pop before calling so a cleanup interrupted by a signal is not rerun. */
	while (ncleanups > 0) {
		struct cleanup c = cleanups[--ncleanups];

		if (c.fn)
			c.fn(c.arg);
	}
}

static void on_signal(int sig)
{
	zc_cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = on_signal }, old;
	size_t i;

	sigfillset(&sa.sa_mask);
	for (i = 0; i < ZC_ARRAY_SIZE(sigs); i++) {
		/*
		 * A signal the parent set to ignored (nohup, a shell's
		 * background job without job control) stays ignored: the
		 * parent asked for this process to outlive it.
		 */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(zc_cleanup_run);
	handlers_installed = true;
}

int zc_cleanup_push(void (*fn)(void *arg), void *arg)
{
	sigset_t all, old;
	int h;

	if (!handlers_installed)
		install_handlers();
	if (ncleanups >= MAX_CLEANUPS)
		return -1;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	h = ncleanups;
	cleanups[h] = (struct cleanup){ fn, arg };
	ncleanups = h + 1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return h;
}

void zc_cleanup_cancel(int h)
{
	sigset_t all, old;

	if (h < 0 || h >= ncleanups)
		return;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	cleanups[h].fn = NULL;
	/* Drop cancelled entries from the top so slots are reused. */
	while (ncleanups > 0 && !cleanups[ncleanups - 1].fn)
		ncleanups--;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * run_tests.sh starts each binary in a session of its own (setsid), so a
 * timeout can stop its whole group; but then nothing that kills the
 * runner (SIGKILL, an ssh drop's SIGHUP, a CI cancel's group kill)
 * reaches the binary. The runner names itself in ZC_PARENT_PID: die
 * with it, through the usual SIGTERM cleanup. The variable is dropped
 * so that what this binary starts does not take it for its own parent.
 */
__attribute__((constructor)) static void die_with_runner(void)
{
	const char *v = getenv("ZC_PARENT_PID");
	char *end;
	long pid;

	if (!v)
		return;
	pid = strtol(v, &end, 10);
	unsetenv("ZC_PARENT_PID");
	if (*end || pid <= 1)
		return;
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		return;
	/* The runner died before the prctl: nobody would send it now. */
	if (getppid() != pid)
		raise(SIGTERM);
}

/* xorshift64* keyed by seed and 8-byte block index: position-dependent. */
static uint64_t pattern_word(uint64_t seed, uint64_t idx)
{
	uint64_t x = seed ^ (idx * 0x9e3779b97f4a7c15ULL) ^ 0xd1b54a32d192ed03ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * The word as it lies in memory: little-endian on every host, as
 * pattern_byte numbers its bytes. A host-order word put byte k of the
 * block in different places on a big-endian host (s390x) when a buffer
 * began mid-block (a TCP read, a datagram past its sequence number)
 * than when it began on a block, and the check failed there.
 */
static uint64_t pattern_le(uint64_t seed, uint64_t idx)
{
	return htole64(pattern_word(seed, idx));
}

static unsigned char pattern_byte(uint64_t seed, uint64_t off)
{
	return pattern_word(seed, off >> 3) >> ((off & 7) * 8);
}

void zc_pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t off)
{
	unsigned char *p = buf;
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		p[i] = pattern_byte(seed, off + i);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = pattern_le(seed, (off + i) >> 3);

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

long zc_pattern_check(const void *buf, size_t len, uint64_t seed, uint64_t off)
{
	const unsigned char *p = buf;
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		if (p[i] != pattern_byte(seed, off + i))
			return i;
	for (; i + 8 <= len; i += 8) {
		uint64_t w = pattern_le(seed, (off + i) >> 3);

		if (memcmp(p + i, &w, 8))
			break;
	}
	for (; i < len; i++)
		if (p[i] != pattern_byte(seed, off + i))
			return i;
	return -1;
}

int zc_poll_one(int fd, short events, double timeout)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ms = timeout <= 0 ? 0 : (int)(timeout * 1000) + 1;
	int ret;

	do {
		ret = poll(&pfd, 1, ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret ? pfd.revents : 0;
}

long zc_write_all(int fd, const void *buf, size_t len, double timeout)
{
	double deadline = zc_now() + timeout;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (zc_now() >= deadline)
			return -ETIMEDOUT;
		zc_poll_one(fd, POLLOUT, deadline - zc_now());
	}
	return done;
}

/* The open files a test may need at most (sockets, maps, rings, pipes). */
#define NOFILE_WANT	4096

long zc_raise_limits(void)
{
	struct rlimit rl;

	/*
	 * A small hard limit (ulimit -n 32) is the caller's shell, not the
	 * kernel: raise it as memlock is raised, where CAP_SYS_RESOURCE
	 * allows; else up to the hard limit.
	 */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < NOFILE_WANT) {
		struct rlimit want = { NOFILE_WANT, NOFILE_WANT };

		if (rl.rlim_max > NOFILE_WANT)
			want.rlim_max = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* Only succeeds with CAP_SYS_RESOURCE; memlock stays as it is otherwise. */
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	return rl.rlim_cur == RLIM_INFINITY ? NOFILE_WANT : (long)rl.rlim_cur;
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

int zc_pidfd_getfd(int pid, int fd)
{
	int pidfd, dup, err;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	dup = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	err = errno;
	close(pidfd);
	return dup < 0 ? -err : dup;
}
