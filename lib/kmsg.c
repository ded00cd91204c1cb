// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel log watch: a parser of /dev/kmsg records into splats (first
 * line, the task it names, the top of its call trace), attribution by
 * task, and the per-window reader the case runner calls after each case.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kmsg.h"
#include "ktap.h"
#include "util.h"

/* A splat longer than this many records is closed anyway. */
#define SPLAT_MAX_LINES	200

/* ---------------------------------------------------------------- parser */

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool starts_any(const char *s, const char *const *prefixes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (starts(s, prefixes[i]))
			return true;
	return false;
}

#define STARTS_ANY(s, list) starts_any(s, list, sizeof(list) / sizeof(list[0]))

static bool is_splat_start(const char *t)
{
	static const char *const heads[] = {
		"WARNING: ", "BUG: ", "kernel BUG at ", "Oops: ", "Oops#",
		"general protection fault", "UBSAN: ", "Kernel panic",
		"watchdog: BUG: ", "rcu: INFO: ",
	};

	if (STARTS_ANY(t, heads))
		return true;
	return starts(t, "INFO: task ") && strstr(t, " blocked for more than");
}

static bool is_splat_end(const struct zc_kmsg_parser *p, const char *t)
{
	if (starts(t, "---[ end trace") || starts(t, "---[ end Kernel panic"))
		return true;
	/* KASAN, UBSAN and KFENCE close with a rule of '='. */
	if (p->lines > 1 && starts(t, "=========="))
		return true;
	return p->cur.ntrace > 0 && starts(t, " </TASK>");
}

/* Frames every report has on top of the one that matters. */
static bool boring_frame(const char *fn)
{
	static const char *const pfx[] = {
		"dump_stack", "show_stack", "__warn", "warn_", "report_bug",
		"handle_bug", "exc_", "asm_exc_", "print_report", "kasan_",
		"__kasan", "__asan", "ubsan_", "__ubsan", "kfence_",
		"print_circular_bug", "lockdep_rcu_suspicious", "panic",
		"die", "oops_",
	};

	return STARTS_ANY(fn, pfx);
}

static void copy_token(char *dst, size_t len, const char *src,
		       const char *stops)
{
	size_t n = strcspn(src, stops);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* " func+0x2b/0x1d0", " [<ffffffff81473fb9>] func+0x1d9/0x1e0", " ? x" */
static void trace_line(struct zc_splat *s, const char *t)
{
	const char *end;

	while (*t == ' ' || *t == '\t')
		t++;
	if (*t == '?' || *t == '<')
		return;
	if (starts(t, "[<")) {
		end = strstr(t, "] ");
		if (!end)
			return;
		t = end + 2;
	}
	if (!strstr(t, "+0x") || s->ntrace >= ZC_SPLAT_TRACE)
		return;
	copy_token(s->trace[s->ntrace], sizeof(s->trace[0]), t, "+ ");
	if (s->trace[s->ntrace][0] && !boring_frame(s->trace[s->ntrace]))
		s->ntrace++;
}

/* "CPU: 1 UID: 0 PID: 41 Comm: kworker/1:1 ..." (also without UID) */
static void cpu_line(struct zc_splat *s, const char *t)
{
	const char *pid = strstr(t, "PID: ");
	const char *comm = strstr(t, " Comm: ");

	if (pid)
		s->pid = atoi(pid + 5);
	if (comm)
		copy_token(s->comm, sizeof(s->comm), comm + 7, " ");
}

/* "INFO: task NAME:PID blocked ..." and KASAN's "... by task NAME/PID" */
static void task_named(struct zc_splat *s, const char *t)
{
	const char *p, *sep;
	char sepc;

	if (starts(t, "INFO: task ")) {
		p = t + 11;
		sepc = ':';
	} else if ((p = strstr(t, " by task "))) {
		p += 9;
		sepc = '/';
	} else {
		return;
	}
	sep = strrchr(p, sepc);
	if (!sep || s->pid)
		return;
	s->pid = atoi(sep + 1);
	copy_token(s->comm, sizeof(s->comm), p,
		   sepc == ':' ? ": " : "/ ");
	if ((size_t)(sep - p) < sizeof(s->comm))
		s->comm[sep - p] = '\0';
}

static void splat_begin(struct zc_kmsg_parser *p, const char *t,
			unsigned long long seq)
{
	memset(&p->cur, 0, sizeof(p->cur));
	copy_token(p->cur.first, sizeof(p->cur.first), t, "\n");
	p->cur.seq = seq;
	p->open = true;
	p->in_trace = false;
	p->lines = 0;
	/* "WARNING: CPU: 1 PID: 41 at ..." names the task already. */
	if (starts(t, "WARNING: CPU: "))
		cpu_line(&p->cur, t);
	task_named(&p->cur, t);
}

void zc_kmsg_flush(struct zc_kmsg_parser *p)
{
	if (!p->open)
		return;
	p->open = false;
	if (p->emit)
		p->emit(&p->cur, p->arg);
}

void zc_kmsg_parser_init(struct zc_kmsg_parser *p, zc_splat_fn emit, void *arg)
{
	memset(p, 0, sizeof(*p));
	p->emit = emit;
	p->arg = arg;
}

static void splat_line(struct zc_kmsg_parser *p, const char *t)
{
	struct zc_splat *s = &p->cur;

	p->lines++;
	if (starts(t, "CPU: ") && strstr(t, "PID: "))
		cpu_line(s, t);
	else if (starts(t, "Workqueue: "))
		copy_token(s->workqueue, sizeof(s->workqueue), t + 11, "\n");
	else if (starts(t, "Call Trace:") || starts(t, " Call Trace:"))
		p->in_trace = true;
	else if (p->in_trace)
		trace_line(s, t);
	else
		task_named(s, t);
	if (is_splat_end(p, t)) {
		s->ended = true;
		zc_kmsg_flush(p);
	} else if (p->lines >= SPLAT_MAX_LINES) {
		zc_kmsg_flush(p);
	}
}

void zc_kmsg_feed(struct zc_kmsg_parser *p, const char *rec)
{
	const char *text = strchr(rec, ';');
	unsigned long long seq = 0;
	unsigned int pri;
	char line[1024];

	/* Dictionary lines (" SUBSYSTEM=...") and malformed records. */
	if (*rec == ' ' || !text || sscanf(rec, "%u,%llu", &pri, &seq) < 1)
		return;
	/* A facility other than kernel: written by some process. */
	if (pri >> 3)
		return;
	copy_token(line, sizeof(line), text + 1, "\n");
	/* An Oops right after a "BUG: unable to handle" is the same report. */
	if (p->open && p->lines < 8 && starts(line, "Oops")) {
		splat_line(p, line);
		return;
	}
	if (is_splat_start(line)) {
		zc_kmsg_flush(p);
		splat_begin(p, line, seq);
		return;
	}
	if (p->open)
		splat_line(p, line);
}

void zc_splat_summary(const struct zc_splat *s, char *buf, size_t len)
{
	size_t n;
	int i;

	n = snprintf(buf, len, "%s", s->first);
	for (i = 0; i < s->ntrace && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " <- " : " (trace: ",
			      s->trace[i]);
	if (s->comm[0] && n < len)
		n += snprintf(buf + n, len - n, "%s%s pid %d",
			      s->ntrace ? "; " : " (", s->comm, s->pid);
	if (s->workqueue[0] && n < len)
		n += snprintf(buf + n, len - n, "%sworkqueue %s",
			      s->ntrace || s->comm[0] ? "; " : " (",
			      s->workqueue);
	if ((s->ntrace || s->comm[0] || s->workqueue[0]) && n < len)
		snprintf(buf + n, len - n, ")");
}

/* ----------------------------------------------------------- attribution */

static bool kernel_comm(const char *c)
{
	static const char *const k[] = {
		"kworker/", "ksoftirqd/", "swapper", "kthreadd", "rcu_",
		"migration/", "irq/", "khungtaskd", "kcompactd", "kswapd",
		"cpuhp/", "idle_inject/",
	};

	return STARTS_ANY(c, k);
}

/* 1: one of our threads; 0: a live task of another process; -1: gone */
static int pid_whose(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", pid);
	if (!access(path, F_OK))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) ? -1 : 0;
}

enum zc_splat_owner zc_splat_owner(const struct zc_splat *s,
				   const char *self_comm,
				   int (*whose)(int pid))
{
	int w;

	if (!whose)
		whose = pid_whose;
	if (s->workqueue[0] || s->pid <= 0 || kernel_comm(s->comm))
		return ZC_SPLAT_KERNEL;
	w = whose(s->pid);
	if (w > 0)
		return ZC_SPLAT_OURS;
	/*
	 * A thread of ours joined since is gone from /proc, and carries our
	 * comm (we never rename). A live task with our comm is another run.
	 */
	if (w < 0 && self_comm && self_comm[0] &&
	    !strncmp(s->comm, self_comm, 15))
		return ZC_SPLAT_OURS;
	return ZC_SPLAT_OTHER;
}

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
	zc_kmsg_parser_init(&w.p, keep, NULL);
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
	zc_kmsg_feed(&w.p, line);
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
 * Deferred teardown: closing a socket in a sockmap drops its psock from
 * an RCU callback that queues sk_psock_destroy; freeing a map runs in a
 * work item that waits a grace period itself. membarrier(GLOBAL) waits
 * one RCU grace period (synchronize_rcu), so three of them with a short
 * pause for the queued work cover that chain; where it is refused
 * (nohz_full, old kernels) a pause of the same order stands in.
 */
static void settle(void)
{
	int i;

	for (i = 0; i < 3; i++) {
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
	zc_kmsg_flush(&w.p);
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

/* ------------------------------------------------------------ known bugs */

/*
 * Kernel bugs the suite raises, as data. A splat matching an entry (first
 * line, and a function in its trace top or its workqueue) on a kernel
 * whose probe says it carries the bug is an XFAIL naming the bug, not a
 * FAIL. Probes look at behaviour or BTF, never at a version number:
 * vendors backport fixes.
 */
static const struct zc_known_bug known_bugs[] = {
	{
		.name = "sockmap-psock-destroy-mem-accounting",
		/* "at FILE:LINE FUNC" (up to 6.x), "FILE:LINE at FUNC" (7.x) */
		.first = "WARNING: *net/ipv4/af_inet.c:* inet_sock_destruct*",
		.where = "sk_psock_destroy",
		.probe = NULL,
		.fix = NULL,
	},
};

static bool splat_mentions(const struct zc_splat *s, const char *fn)
{
	int i;

	if (strstr(s->workqueue, fn))
		return true;
	for (i = 0; i < s->ntrace; i++)
		if (!strcmp(s->trace[i], fn))
			return true;
	return false;
}

const struct zc_known_bug *zc_known_bug_match(const struct zc_splat *s)
{
	size_t i;

	for (i = 0; i < sizeof(known_bugs) / sizeof(known_bugs[0]); i++) {
		const struct zc_known_bug *b = &known_bugs[i];

		if (fnmatch(b->first, s->first, 0))
			continue;
		if (b->where && !splat_mentions(s, b->where))
			continue;
		return b;
	}
	return NULL;
}
