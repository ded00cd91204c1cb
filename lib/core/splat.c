// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel log records into splats (first line, the task it names, the top
 * of its call trace), attribution by task, and the known kernel bugs a
 * splat may match. Pure parsing: the reader of /dev/kmsg is kmsg.c.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/splat.h"
#include "core/util.h"
#include "splats.h"		/* generated from the splats file */
#include "known_bugs.h"		/* generated from the known_bugs file */

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

#define STARTS_ANY(s, list) starts_any(s, list, ZC_ARRAY_SIZE(list))

/* The first line of a kernel report: the splats file's patterns. */
static bool is_splat_start(const char *t)
{
	static regex_t re;
	static int state;	/* 0 not compiled, 1 compiled, -1 failed */

	if (!state)
		state = regcomp(&re, ZC_SPLAT_HEADS_RE, REG_EXTENDED | REG_NOSUB) ? -1 : 1;
	return state > 0 && !regexec(&re, t, 0, NULL, 0);
}

bool zc_splat_starve(const struct zc_splat *s)
{
	static regex_t re;
	static int state;	/* 0 not compiled, 1 compiled, -1 failed */

	if (!state)
		state = regcomp(&re, ZC_SPLAT_STARVE_RE, REG_EXTENDED | REG_NOSUB) ? -1 : 1;
	return state > 0 && !regexec(&re, s->first, 0, NULL, 0);
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
	const char *p = strstr(t, " by task "), *sep;
	char sepc;

	if (starts(t, "INFO: task ")) {
		p = t + 11;
		sepc = ':';
	} else if (p) {
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

void zc_splat_flush(struct zc_kmsg_parser *p)
{
	if (!p->open)
		return;
	p->open = false;
	if (p->emit)
		p->emit(&p->cur, p->arg);
}

void zc_splat_parser_init(struct zc_kmsg_parser *p, zc_splat_fn emit, void *arg)
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
		zc_splat_flush(p);
	} else if (p->lines >= SPLAT_MAX_LINES) {
		zc_splat_flush(p);
	}
}

void zc_splat_feed(struct zc_kmsg_parser *p, const char *rec)
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
		zc_splat_flush(p);
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

/* ------------------------------------------------------------ known bugs */

/*
 * Kernel bugs the suite raises, as data. A splat matching an entry (first
 * line, and a function in its trace top or its workqueue) on a kernel
 * whose probe says it carries the bug is an XFAIL naming the bug, not a
 * FAIL. Probes look at behaviour or BTF, never at a version number:
 * vendors backport fixes.
 */
static const struct zc_known_bug known_bugs[] = { ZC_KNOWN_BUG_SPLATS };

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

	for (i = 0; i < ZC_ARRAY_SIZE(known_bugs); i++) {
		const struct zc_known_bug *b = &known_bugs[i];

		if (fnmatch(b->first, s->first, 0))
			continue;
		if (b->where && !splat_mentions(s, b->where))
			continue;
		return b;
	}
	return NULL;
}
