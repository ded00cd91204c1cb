// SPDX-License-Identifier: GPL-2.0
/* Reasons carried up to the TAP line. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/why.h"

static void why_fill(struct zc_why *w, const char *file, int line,
		     const char *fmt, va_list ap)
{
	w->file = file;
	w->line = line;
	w->cls = ZC_CLASS_NONE;
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
}

int zc_why_set_at(struct zc_why *w, const char *file, int line,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	why_fill(w, file, line, fmt, ap);
	va_end(ap);
	return -1;
}

int zc_why_errno_at(struct zc_why *w, const char *file, int line,
		    const char *fmt, ...)
{
	int err = errno;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	why_fill(w, file, line, fmt, ap);
	va_end(ap);
	n = strlen(w->msg);
	snprintf(w->msg + n, sizeof(w->msg) - n, ": %s", strerror(err));
	errno = err;
	return -1;
}

int zc_why_prefix(struct zc_why *w, const char *fmt, ...)
{
	char old[sizeof(w->msg)];
	size_t n;
	va_list ap;

	memcpy(old, w->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
	va_end(ap);
	n = strlen(w->msg);
	if (old[0] && n + 2 < sizeof(w->msg))
		snprintf(w->msg + n, sizeof(w->msg) - n, ": %.*s",
			 (int)(sizeof(w->msg) - n - 3), old);
	return -1;
}

const char *zc_why_class_name(enum zc_class cls)
{
	switch (cls) {
	case ZC_CLASS_ENV:
		return "environment";
	case ZC_CLASS_HARNESS:
		return "harness";
	default:
		return "kernel";
	}
}
