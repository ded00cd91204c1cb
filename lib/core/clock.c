// SPDX-License-Identifier: GPL-2.0
/* The clocks a measurement reads: wall, process CPU, softirq CPU. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

double zc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double zc_cpu_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* The first line of /proc/stat in seconds, all CPUs: 0, or -1 unread. */
static int proc_stat_cpu(double v[8])
{
	unsigned long long t[8] = {};
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int i, n;

	if (!f)
		return -1;
	/* cpu user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0],
		   &t[1], &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]);
	fclose(f);
	if (n < 7 || hz <= 0)
		return -1;
	for (i = 0; i < 8; i++)
		v[i] = (double)t[i] / hz;
	return 0;
}

double zc_softirq_cpu(void)
{
	double v[8];

	return proc_stat_cpu(v) ? 0 : v[6];
}

void zc_idle_cpu(double *idle, double *all)
{
	double v[8];
	int i;

	*idle = *all = 0;
	if (proc_stat_cpu(v))
		return;
	for (i = 0; i < 8; i++)
		*all += v[i];
	*idle = v[3] + v[4];
}

/*
 * The watch thread wakes every PAUSE_TICK_S; a wakeup later than
 * PAUSE_LATE_S counts as a pause of the whole process. A thread that is
 * merely runnable behind others on a loaded machine wakes within tens of
 * milliseconds: one second late is no scheduler's noise.
 */
#define PAUSE_TICK_S	0.05
#define PAUSE_LATE_S	1.0

static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;
static double pause_beat, pause_lost;
static bool pause_running;

static double pause_gap(double now)
{
	double gap = now - pause_beat;

	return gap > PAUSE_LATE_S ? gap - PAUSE_TICK_S : 0;
}

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#endif

static void *pause_fn(void *arg)
{
	const struct timespec tick = { 0, (long)(PAUSE_TICK_S * 1e9) };

	(void)arg;
#ifdef SYS_close_range
	/*
	 * This thread uses no file descriptor: it takes a table of its own,
	 * empty, and leaves the process's to the other threads. While two
	 * threads share a table the kernel takes a reference on the file in
	 * every fd syscall (fdget's fast path needs an unshared table): under
	 * icount that cost MSG_ZEROCOPY's send loop 0.47 % (62 instructions
	 * a send, doc/noise.md). Where close_range is missing (before 5.9)
	 * the table stays shared, which is only slower.
	 */
	syscall(SYS_close_range, 0U, ~0U, CLOSE_RANGE_UNSHARE);
#endif
	for (;;) {
		double now;

		nanosleep(&tick, NULL);
		now = zc_now();
		pthread_mutex_lock(&pause_lock);
		pause_lost += pause_gap(now);
		pause_beat = now;
		pthread_mutex_unlock(&pause_lock);
	}
	return NULL;
}

void zc_pause_watch(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;

	pthread_mutex_lock(&pause_lock);
	if (!pause_running) {
		/*
		 * The thread starts with every signal blocked, so SIGINT and
		 * SIGTERM reach the thread that runs the test: a handler run
		 * here would interrupt no wait of the test's and could not
		 * write to an fd of the process (this thread has none).
		 */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pause_beat = zc_now();
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pause_running = !pthread_create(&t, &attr, pause_fn, NULL);
		pthread_attr_destroy(&attr);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&pause_lock);
}

double zc_paused_s(void)
{
	double v = 0;

	pthread_mutex_lock(&pause_lock);
	if (pause_running)
		v = pause_lost + pause_gap(zc_now());
	pthread_mutex_unlock(&pause_lock);
	return v;
}

static pthread_mutex_t starve_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int starve_n;
static char starve_msg[160];

void zc_bound_start(struct zc_bound *b, double idle, uint64_t progress)
{
	double now = zc_now();

	*b = (struct zc_bound){ .idle = idle, .start = now, .end = now + idle,
				.cap = now + idle * ZC_PATIENCE,
				.seen = progress };
}

static void starved(const struct zc_bound *b, double now)
{
	pthread_mutex_lock(&starve_lock);
	starve_n++;
	snprintf(starve_msg, sizeof(starve_msg),
		 "still progressing after %.1f s (the last %.1f s before), where %.1f s without progress is a stall",
		 now - b->start, now - b->moved, b->idle);
	pthread_mutex_unlock(&starve_lock);
}

bool zc_bound_over(struct zc_bound *b, uint64_t progress)
{
	double now = zc_now();

	if (progress != b->seen) {
		b->seen = progress;
		b->moved = now;
		b->end = now + b->idle < b->cap ? now + b->idle : b->cap;
	}
	if (now < b->end)
		return false;
	if (b->end >= b->cap && b->moved && now - b->moved < b->idle)
		starved(b, now);
	return true;
}

double zc_bound_left(const struct zc_bound *b)
{
	double left = b->end - zc_now();

	return left > 0 ? left : 0;
}

unsigned int zc_starved_count(char *last, size_t len)
{
	unsigned int n;

	pthread_mutex_lock(&starve_lock);
	n = starve_n;
	if (last && len)
		snprintf(last, len, "%s", starve_msg);
	pthread_mutex_unlock(&starve_lock);
	return n;
}

bool zc_starved_blind(void)
{
	const char *clock = getenv("ZC_CLOCK");
	char padded[256];

	if (!clock || strncmp(clock, "wall ", 5))
		return false;
	snprintf(padded, sizeof(padded), "%s ", clock);
	return strstr(padded, " accel=tcg ") != NULL;
}
