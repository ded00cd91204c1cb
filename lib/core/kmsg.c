// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel log watch: the per-window reader of /dev/kmsg the case runner
 * calls after each case, and the registry of concurrent runs. The
 * records go through the parser in splat.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/kmsg.h"
#include "core/ktap.h"
#include "core/util.h"

/* ---------------------------------------------------- who else is running */

/*
 * Each run of a test binary holds an exclusive flock on a file named by
 * its pid in RUNS_DIR while it watches. Another run is active when some
 * other file there is locked; the directory's mtime changes when one
 * starts or ends, which catches a run that came and went within a window.
 */
#define RUNS_DIR	"/tmp/zc-selftests.runs"

/* ZC_KMSG_RUNS_DIR: another registry (make check's own, private one). */
static const char *runs_dir(void)
{
	const char *d = getenv("ZC_KMSG_RUNS_DIR");

	return d && d[0] ? d : RUNS_DIR;
}

static struct {
	int fd;			/* /dev/kmsg or the test's fd; -1 off */
	bool started;
	int run_fd;
	int run_cleanup;	/* zc_cleanup_push() handle */
	char run_path[320];
	bool others;		/* at the start of the current window */
	struct timespec dir_mtime;
	unsigned long long last_seq;
	char comm[32];
	int settle_gp;		/* grace periods a settle waits; 0: one */
	struct zc_kmsg_parser p;
	struct zc_splat *out;
	int max, n;
	char carry[8192];
	size_t ncarry;
} w = { .fd = -1, .run_fd = -1, .run_cleanup = -1 };

static bool runs_others(struct timespec *mtime)
{
	char self[32], path[600];
	bool others = false;
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd;

	snprintf(self, sizeof(self), "%d", (int)getpid());
	dir = opendir(runs_dir());
	if (!dir)
		return false;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, self))
			continue;
		snprintf(path, sizeof(path), "%s/%s", runs_dir(), d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK)
			others = true;
		else
			unlink(path);	/* its run died without cleaning up */
		close(fd);
	}
	closedir(dir);
	if (!stat(runs_dir(), &st))
		*mtime = st.st_mtim;
	return others;
}

static void runs_unregister(void)
{
	if (w.run_fd < 0)
		return;
	unlink(w.run_path);
	close(w.run_fd);
	w.run_fd = -1;
}

/* A run stopped by a signal removes its file too (SIGKILL: the next run). */
static void runs_cleanup(void *arg)
{
	runs_unregister();
}

static void runs_register(void)
{
	mode_t old = umask(0);

	if (mkdir(runs_dir(), 01777) && errno != EEXIST) {
		umask(old);
		return;
	}
	umask(old);
	snprintf(w.run_path, sizeof(w.run_path), "%s/%d", runs_dir(),
		 (int)getpid());
	w.run_fd = open(w.run_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (w.run_fd >= 0 && flock(w.run_fd, LOCK_EX | LOCK_NB)) {
		close(w.run_fd);
		w.run_fd = -1;
	}
	if (w.run_fd >= 0)
		w.run_cleanup = zc_cleanup_push(runs_cleanup, NULL);
}

/* ------------------------------------------------------------- the watch */

static void keep(const struct zc_splat *s, void *arg)
{
	if (w.n < w.max)
		w.out[w.n] = *s;
	w.n++;
}

static void self_comm(void)
{
	FILE *f = fopen("/proc/self/comm", "r");

	if (f) {
		if (fgets(w.comm, sizeof(w.comm), f))
			w.comm[strcspn(w.comm, "\n")] = '\0';
		fclose(f);
	}
}

int zc_kmsg_use_fd(int fd)
{
	if (w.fd >= 0)
		close(w.fd);
	w.fd = fd;
	return 0;
}

bool zc_kmsg_start(void)
{
	if (w.started)
		return w.fd >= 0;
	w.started = true;
	if (w.fd < 0) {
		w.fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (w.fd < 0 || lseek(w.fd, 0, SEEK_END) < 0) {
			ktap_print_msg("kmsg: not readable (/dev/kmsg: %s): kernel warnings are not watched",
				       strerror(errno));
			if (w.fd >= 0)
				close(w.fd);
			w.fd = -1;
			return false;
		}
	}
	self_comm();
	zc_splat_parser_init(&w.p, keep, NULL);
	runs_register();
	w.others = runs_others(&w.dir_mtime);
	return true;
}

unsigned long long zc_kmsg_last_seq(void)
{
	return w.last_seq;
}

static void feed_line(char *line)
{
	unsigned long long seq;

	if (sscanf(line, "%*u,%llu", &seq) == 1 && seq > w.last_seq)
		w.last_seq = seq;
	zc_splat_feed(&w.p, line);
}

/* Whatever is there now; /dev/kmsg gives one record a read, a pipe more. */
static void drain(void)
{
	char *nl, *line;
	ssize_t n;

	for (;;) {
		n = read(w.fd, w.carry + w.ncarry, sizeof(w.carry) - 1 - w.ncarry);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten before we read them */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		w.ncarry += n;
		w.carry[w.ncarry] = '\0';
		line = w.carry;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			feed_line(line);
			line = nl + 1;
		}
		w.ncarry = strlen(line);
		memmove(w.carry, line, w.ncarry + 1);
		if (w.ncarry >= sizeof(w.carry) - 1)
			w.ncarry = 0;	/* a record longer than any the kernel writes */
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Deferred teardown: a socket's memory goes back in an RCU callback, so
 * one grace period with a short pause for the callbacks lets what a case
 * closed finish. Sockmap's chain is longer: closing a socket in a
 * sockmap drops its psock from an RCU callback that queues
 * sk_psock_destroy; freeing a map runs in a work item that waits a grace
 * period itself: three (zc_test_desc.settle_gp). membarrier(GLOBAL)
 * waits one RCU grace period (synchronize_rcu, ~16 ms at HZ=250 here);
 * where it is refused (nohz_full, old kernels) a pause of the same order
 * stands in.
 */
void zc_kmsg_settle_gp(int n)
{
	w.settle_gp = n;
}

static void settle(void)
{
	int i, n = w.settle_gp > 0 ? w.settle_gp : 1;

	for (i = 0; i < n; i++) {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
			sleep_ms(30);
		sleep_ms(5);
	}
}

int zc_kmsg_collect(struct zc_splat *out, int max, bool *shared)
{
	struct timespec mtime = w.dir_mtime;
	int i;

	*shared = false;
	if (w.fd < 0)
		return 0;
	w.out = out;
	w.max = max;
	w.n = 0;
	settle();
	drain();
	/* A report is printed record by record: wait for its end, bounded. */
	for (i = 0; i < 20 && w.p.open; i++) {
		sleep_ms(10);
		drain();
	}
	zc_splat_flush(&w.p);
	*shared = w.others | runs_others(&mtime);
	*shared |= mtime.tv_sec != w.dir_mtime.tv_sec ||
		   mtime.tv_nsec != w.dir_mtime.tv_nsec;
	w.others = runs_others(&w.dir_mtime);
	return w.n;
}

enum zc_splat_owner zc_kmsg_owner(const struct zc_splat *s)
{
	return zc_splat_owner(s, w.comm, NULL);
}

void zc_kmsg_stop(void)
{
	if (w.run_cleanup >= 0)
		zc_cleanup_cancel(w.run_cleanup);
	w.run_cleanup = -1;
	runs_unregister();
	if (w.fd >= 0)
		close(w.fd);
	w.fd = -1;
	w.started = false;
}
