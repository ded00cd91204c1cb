// SPDX-License-Identifier: GPL-2.0
/* Options every test binary accepts. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/ktap.h"
#include "core/opts.h"

enum {
	OPT_DURATION = 1000, OPT_REPEAT, OPT_SIZE, OPT_VERIFY, OPT_LIST,
	OPT_CASE, OPT_QUIET, OPT_HELP, OPT_CPU,
};

static const struct zc_opt_extra common[] = {
	{ "duration", 1, OPT_DURATION, "SEC",
	  "seconds per measured repeat (default 0.4, env ZC_DURATION)" },
	{ "repeat", 1, OPT_REPEAT, "N",
	  "measured repeats per rate (default 3, env ZC_REPEAT)" },
	{ "size", 1, OPT_SIZE, "BYTES", "payload size per send or frame" },
	{ "verify", 0, OPT_VERIFY, NULL,
	  "check every byte received (env ZC_VERIFY=1)" },
	{ "cpu", 1, OPT_CPU, "TX[,RX]",
	  "pin sender/receiver to CPUs (default 0,1; 0,0 on one CPU)" },
	{ "list", 0, OPT_LIST, NULL, "print the case names and exit" },
	{ "case", 1, OPT_CASE, "PATTERN",
	  "run cases matching a glob or substring (-t, repeatable)" },
	{ "quiet", 0, OPT_QUIET, NULL, "fewer diagnostics (-q)" },
	{ "help", 0, OPT_HELP, NULL, "this text (-h)" },
	{ NULL }
};

int zc_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	/* Accept k/K, m/M, g/G binary suffixes for sizes. */
	if (!errno && end != s && *end && !end[1]) {
		long mul = 0;

		switch (tolower((unsigned char)*end)) {
		case 'k':
			mul = 1L << 10;
			break;
		case 'm':
			mul = 1L << 20;
			break;
		case 'g':
			mul = 1L << 30;
			break;
		}
		if (mul && v <= max / mul && v >= min / mul) {
			v *= mul;
			end++;
		}
	}
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int zc_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static void print_opt(FILE *f, const struct zc_opt_extra *e)
{
	char left[64];

	snprintf(left, sizeof(left), "--%s%s%s", e->name,
		 e->arg_name ? " " : "", e->arg_name ? e->arg_name : "");
	fprintf(f, "  %-24s %s\n", left, e->help ? e->help : "");
}

static void zc_usage(const struct zc_test_desc *d, FILE *f)
{
	const struct zc_opt_extra *e;

	fprintf(f, "usage: %s [options]\n%s\n\noptions:\n", d->name,
		d->summary ? d->summary : "");
	for (e = common; e->name; e++)
		print_opt(f, e);
	for (e = d->extra; e && e->name; e++)
		print_opt(f, e);
	fprintf(f, "\nenvironment: ZC_DURATION, ZC_REPEAT follow the bounds of --duration,\n"
		"  --repeat (a bad value is a usage error); ZC_VERIFY=1 is --verify;\n"
		"  ZC_PAIR=IFA,IFB only from run_tests.sh --pair (set by hand: usage error)\n");
	fprintf(f, "\nexit: 0 pass, 1 fail, 2 xfail, 3 xpass, 4 skip (kselftest codes),\n"
		"  %d usage error (one line on stderr)\n", ZC_EXIT_USAGE);
}

static int err_out(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_cpus(struct zc_opts *o, const char *arg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char buf[64], *comma;
	long tx, rx;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", arg);
	comma = strchr(buf, ',');
	if (comma)
		*comma++ = '\0';
	if (zc_parse_long(buf, 0, ncpu - 1, &tx))
		return -1;
	rx = tx;
	if (comma && zc_parse_long(comma, 0, ncpu - 1, &rx))
		return -1;
	o->cpu_tx = tx;
	o->cpu_rx = rx;
	return 0;
}

/* Default tx/rx CPUs: distinct when there are two or more. */
static void zc_default_cpus(int *cpu_tx, int *cpu_rx)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	*cpu_tx = 0;
	*cpu_rx = n >= 2 ? 1 : 0;
}

/* Is PATH this user's (or root's) alone: nobody else can write it? */
static bool ours_alone(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && !(st.st_mode & 022) &&
	       (st.st_uid == geteuid() || !st.st_uid);
}

/*
 * ZC_PAIR moves real ports into the test's namespaces, and a namespace
 * that dies gives them back down and bare. Only run_tests.sh --pair
 * checks a port first (no default route, no address outside the test
 * ranges, no loopback) and puts it back after every test and after a
 * killed run: the binaries take ZC_PAIR only from a live runner's state
 * (ZC_PAIR_STATE, whose "pair" file names the same ports), so the rule
 * lives once, in the runner.
 */
static int check_pair(const char *pair, char *err, size_t len)
{
	const char *dir = getenv("ZC_PAIR_STATE");
	char path[4096], text[64] = "";
	long pid = 0;
	FILE *f;

	if (!dir || !*dir)
		return err_out(err, len, "ZC_PAIR=%s: real ports are taken only through run_tests.sh --pair, which refuses a port this machine is reached through and puts the ports back",
			       pair);
	snprintf(path, sizeof(path), "%s/pair", dir);
	f = ours_alone(dir) && ours_alone(path) ? fopen(path, "re") : NULL;
	if (f) {
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
		text[strcspn(text, "\n")] = '\0';
	}
	snprintf(path, sizeof(path), "%s/.owner", dir);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (strcmp(text, pair) || pid <= 0 || (kill(pid, 0) && errno != EPERM))
		return err_out(err, len, "ZC_PAIR=%s: ZC_PAIR_STATE=%s is no live run_tests.sh --pair's record of these ports",
			       pair, dir);
	return 0;
}

/* The one rule for a duration and a repeat count, option or environment. */
static int check_duration(const char *what, const char *arg, double *out,
			  char *err, size_t len)
{
	if (zc_parse_double(arg, 0.01, ZC_DURATION_MAX, out))
		return err_out(err, len, "%s wants seconds in [0.01, %g], got '%s'",
			       what, ZC_DURATION_MAX, arg);
	return 0;
}

static int check_repeat(const char *what, const char *arg, int *out,
			char *err, size_t len)
{
	long lv;

	if (zc_parse_long(arg, 1, ZC_REPEAT_MAX, &lv))
		return err_out(err, len, "%s wants an integer in [1, %d], got '%s'",
			       what, ZC_REPEAT_MAX, arg);
	*out = lv;
	return 0;
}

/* Defaults, then the environment: -1 with err when a value is bad. */
static int set_defaults(struct zc_opts *o, const struct zc_test_desc *d,
			char *err, size_t len)
{
	const char *env;

	memset(o, 0, sizeof(*o));
	o->desc = d;
	o->duration = ZC_DURATION_DEFAULT;
	o->repeat = ZC_REPEAT_DEFAULT;
	o->warmup = ZC_WARMUP_DEFAULT;
	o->size = d->size_default;
	zc_default_cpus(&o->cpu_tx, &o->cpu_rx);
	/*
	 * The runner's --duration/--repeat reach every binary through the
	 * environment: a bad value there is the same usage error as on the
	 * command line, never a silent default.
	 */
	env = getenv("ZC_DURATION");
	if (env && check_duration("ZC_DURATION", env, &o->duration, err, len))
		return -1;
	env = getenv("ZC_REPEAT");
	if (env && check_repeat("ZC_REPEAT", env, &o->repeat, err, len))
		return -1;
	env = getenv("ZC_VERIFY");
	o->verify = env && !strcmp(env, "1");
	env = getenv("ZC_PAIR");
	if (env && *env && check_pair(env, err, len))
		return -1;
	/* One case pattern for every binary (tools/vmtest --case): a
	 * bisect step runs only the cases it judges. */
	env = getenv("ZC_CASE");
	if (env && *env)
		o->patterns[o->npatterns++] = env;
	return 0;
}

static struct option *build_longopts(const struct zc_test_desc *d)
{
	const struct zc_opt_extra *e;
	struct option *lo;
	size_t n = 0, i = 0;

	for (e = common; e->name; e++)
		n++;
	for (e = d->extra; e && e->name; e++)
		n++;
	lo = calloc(n + 1, sizeof(*lo));
	if (!lo)
		return NULL;
	for (e = common; e->name; e++, i++)
		lo[i] = (struct option){ e->name, e->has_arg, NULL, e->val };
	for (e = d->extra; e && e->name; e++, i++)
		lo[i] = (struct option){ e->name, e->has_arg, NULL, e->val };
	return lo;
}

static int handle_common(struct zc_opts *o, int c, const char *arg,
			 char *err, size_t len)
{
	long lv;

	switch (c) {
	case OPT_DURATION:
		return check_duration("--duration", arg, &o->duration, err, len);
	case OPT_REPEAT:
		return check_repeat("--repeat", arg, &o->repeat, err, len);
	case OPT_SIZE:
		if (zc_parse_long(arg, 1, o->desc->size_max ? o->desc->size_max : 65507, &lv))
			return err_out(err, len, "--size wants bytes in [1, %ld], got '%s'",
				       o->desc->size_max ? o->desc->size_max : 65507L, arg);
		o->size = lv;
		return 0;
	case OPT_CPU:
		if (parse_cpus(o, arg))
			return err_out(err, len, "--cpu wants TX[,RX] online CPU numbers, got '%s'",
				       arg);
		return 0;
	case OPT_CASE:
		if (o->npatterns >= ZC_MAX_PATTERNS)
			return err_out(err, len, "too many -t patterns (max %d)",
				       ZC_MAX_PATTERNS);
		if (!*arg)
			return err_out(err, len, "-t wants a non-empty pattern");
		o->patterns[o->npatterns++] = arg;
		return 0;
	case OPT_VERIFY:
		o->verify = true;
		return 0;
	case OPT_LIST:
		o->list = true;
		return 0;
	case OPT_QUIET:
		o->quiet = true;
		return 0;
	}
	return 1;
}

static int map_short(int c)
{
	switch (c) {
	case 't': return OPT_CASE;
	case 'q': return OPT_QUIET;
	case 'h': return OPT_HELP;
	case 'd': return OPT_DURATION;
	case 'r': return OPT_REPEAT;
	}
	return c;
}

int zc_opts_parse(struct zc_opts *o, int argc, char **argv,
		  const struct zc_test_desc *d, void *ctx, struct zc_why *why)
{
	struct option *lo = build_longopts(d);
	char *err = why->msg;
	size_t len = sizeof(why->msg);
	int c, ret = 0;

	if (len)
		err[0] = '\0';
	if (set_defaults(o, d, err, len)) {
		free(lo);
		return -1;
	}
	if (!lo)
		return err_out(err, len, "out of memory");
	optind = 1;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, ":t:qhd:r:", lo, NULL)) != -1) {
		c = map_short(c);
		if (c == OPT_HELP) {
			ret = 1;
		} else if (c == '?') {
			ret = err_out(err, len, "unknown option '%s'",
				      argv[optind - 1]);
		} else if (c == ':') {
			ret = err_out(err, len, "option '%s' needs an argument",
				      argv[optind - 1]);
		} else {
			ret = handle_common(o, c, optarg, err, len);
			if (ret == 1)
				ret = d->parse ? d->parse(c, optarg, ctx, why) :
					err_out(err, len, "unhandled option");
		}
	}
	if (ret < 0 && len && !err[0])
		err_out(err, len, "bad value for '%s'", argv[optind - 1]);
	if (!ret && optind < argc)
		ret = err_out(err, len, "unexpected argument '%s'", argv[optind]);
	free(lo);
	return ret;
}

void zc_opts_parse_or_exit(struct zc_opts *o, int argc, char **argv,
			   const struct zc_test_desc *d, void *ctx)
{
	struct zc_why why = { "" };
	int ret = zc_opts_parse(o, argc, argv, d, ctx, &why);
	const char *err = why.msg;

	if (ret == 1) {
		zc_usage(d, stdout);
		exit(KSFT_PASS);
	}
	if (ret < 0) {
		fprintf(stderr, "%s: %s (try --help)\n", d->name,
			err[0] ? err : "bad option");
		exit(ZC_EXIT_USAGE);
	}
}
