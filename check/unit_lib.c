// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/: TAP and metric formatting, statistics, option
 * parsing, kernel config parsing, data patterns. Prints its own TAP so
 * that a broken lib/core/ktap.c cannot hide its own failures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/kmsg.h"
#include "core/runner.h"
#include "core/meter.h"
#include "core/opts.h"
#include "core/probe.h"
#include "net/taps.h"
#include "sockmap/slip.h"
#include "sockmap/sockmap_stream.h"
#include "core/util.h"

static int num, failed;

static void check(int ok, const char *name, const char *detail)
{
	num++;
	printf("%sok %d %s\n", ok ? "" : "not ", num, name);
	if (!ok) {
		failed++;
		if (detail)
			printf("# %s\n", detail);
	}
}

/* Capture what ktap prints while fn runs. */
static char *capture(void (*fn)(void))
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ktap_set_output(f);
	ktap_reset();
	fn();
	fclose(f);
	ktap_set_output(NULL);
	return buf;
}

static void emit_results(void)
{
	ktap_header();
	ktap_plan(5);
	ktap_pass("a.pass");
	ktap_fail("b.fail", "reason %d", 42);
	ktap_skip("c.skip", ZC_CLASS_ENV, "needs CAP_NET_ADMIN");
	ktap_xfail("d.xfail", "known # broken\nline");
	ktap_result("e.result", true, "unused");
	ktap_finish();
}

static void test_ktap_lines(void)
{
	const char *want =
		"TAP version 13\n1..5\nok 1 a.pass\n# unit_lib.c:66: b.fail: reason 42\nnot ok 2 b.fail\n"
		"# skip-class c.skip environment\nok 3 c.skip # SKIP needs CAP_NET_ADMIN\n"
		"ok 4 d.xfail # XFAIL known   broken line\nok 5 e.result\n"
		"# Totals: pass:2 fail:1 xfail:1 xpass:0 skip:1 error:0\n";
	char *got = capture(emit_results);

	check(!strcmp(got, want), "ktap.lines", got);
	check(ktap_exit_code(ktap_counts()) == KSFT_FAIL, "ktap.exit_fail", NULL);
}

/* A diagnosis mode (no header ever) must not lose what it printed early. */
static void emit_no_header(void)
{
	ktap_print_msg("held back");
	ktap_no_header();
	ktap_print_msg("direct");
}

static void test_ktap_no_header(void)
{
	char *got = capture(emit_no_header);

	check(!strcmp(got, "# held back\n# direct\n"), "ktap.no_header", got);
}

static void test_ktap_exit_codes(void)
{
	struct ktap_counts c = {};

	check(ktap_exit_code(&c) == KSFT_PASS, "ktap.exit_empty", NULL);
	c.skip = 2;
	check(ktap_exit_code(&c) == KSFT_SKIP, "ktap.exit_all_skip", NULL);
	c.pass = 1;
	check(ktap_exit_code(&c) == KSFT_PASS, "ktap.exit_pass_and_skip", NULL);
	c.pass = 0;
	c.xfail = 1;
	check(ktap_exit_code(&c) == KSFT_XFAIL, "ktap.exit_xfail", NULL);
	c.error = 1;
	check(ktap_exit_code(&c) == KSFT_FAIL, "ktap.exit_error", NULL);
}

static void emit_metric(void)
{
	struct zc_stats s;
	double v[] = { 3, 1, 2 };

	zc_stats_compute(&s, v, 3);
	ktap_metric("t.case.throughput", &s, "MB/s");
	ktap_metric_value("t.case.ratio", 0.5, "ratio");
	ktap_zcmode("t.case", 10, 0);
	ktap_zcmode("t.other", 3, 7);
}

static void test_metric_grammar(void)
{
	const char *want =
		"# metric t.case.throughput 2 MB/s n=3 min=1 max=3 cv=50.00% samples=3,1,2\n"
		"# metric t.case.ratio 0.5 ratio n=1 min=0.5 max=0.5 cv=0.00% samples=0.5\n"
		"# zcmode t.case zerocopy zerocopy=10 copied=0\n"
		"# zcmode t.other mixed zerocopy=3 copied=7\n";
	char *got = capture(emit_metric);

	check(!strcmp(got, want), "ktap.metric_grammar", got);
}

static void emit_config(void)
{
	struct zc_opts o = { .duration = 0.25, .repeat = 2, .warmup = 0.2 };

	ktap_no_header();
	zc_report_config(&o, "udp4.rate.send", "size=%d ring=%s", 4096, "none");
	zc_report_config(&o, "two words", "gen=AF_PACKET(qdisc bypass) mtu=%d", 1500);
	zc_report_config(&o, "bare", NULL);
}

/* Every word after "# config: WHAT" is key=value with a non-empty key. */
static int config_grammar_ok(const char *line)
{
	char copy[1024], *w, *save = NULL;
	int n = 0;

	if (strncmp(line, "# config: ", 10))
		return 0;
	snprintf(copy, sizeof(copy), "%s", line + 10);
	w = strtok_r(copy, " ", &save);	/* WHAT */
	if (!w)
		return 0;
	while ((w = strtok_r(NULL, " ", &save)) != NULL) {
		if (!strchr(w, '=') || w[0] == '=')
			return 0;
		n++;
	}
	return n >= 4;
}

static void test_config_line(void)
{
	const char *k = zc_kernel_release();
	char want[1024], *got = capture(emit_config), *line, *save = NULL;
	int lines = 0, ok = 1;

	snprintf(want, sizeof(want),
		 "# config: udp4.rate.send size=4096 ring=none duration=0.25 repeat=2 warmup=0.2 kernel=%s\n"
		 "# config: two_words gen=AF_PACKET(qdisc_bypass) mtu=1500 duration=0.25 repeat=2 warmup=0.2 kernel=%s\n"
		 "# config: bare duration=0.25 repeat=2 warmup=0.2 kernel=%s\n",
		 k, k, k);
	check(!strcmp(got, want), "config.line", got);
	for (line = strtok_r(got, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), lines++)
		ok &= config_grammar_ok(line) && strstr(line, " kernel=") != NULL;
	check(ok && lines == 3, "config.grammar", NULL);
}

static void test_stats(void)
{
	double even[] = { 4, 1, 3, 2 }, one[] = { 7 }, same[] = { 5, 5, 5 };
	struct zc_stats s;

	zc_stats_compute(&s, even, 4);
	check(s.n == 4 && s.median == 2.5 && s.min == 1 && s.max == 4 &&
	      s.mean == 2.5, "stats.even_median", NULL);
	check(fabs(s.cv - 51.6398) < 0.01, "stats.cv_sample_stddev", NULL);
	check(s.samples[0] == 4 && s.samples[3] == 2, "stats.keeps_order", NULL);
	zc_stats_compute(&s, one, 1);
	check(s.n == 1 && s.median == 7 && s.cv == 0, "stats.single", NULL);
	zc_stats_compute(&s, same, 3);
	check(s.cv == 0 && s.median == 5, "stats.no_spread", NULL);
	zc_stats_compute(&s, one, 0);
	check(s.n == 0, "stats.empty", NULL);
}

static const struct zc_opt_extra extra[] = {
	{ "iface", 1, 300, "IFACE", "device" },
	{ NULL }
};

static const char *seen_iface;

static int parse_extra(int val, const char *arg, void *ctx, struct zc_why *why)
{
	char *err = why->msg;
	size_t len = sizeof(why->msg);

	if (val == 300 && arg[0]) {
		seen_iface = arg;
		return 0;
	}
	snprintf(err, len, "bad --iface");
	return -1;
}

static const struct zc_test_desc desc = {
	.name = "unit", .summary = "unit test", .extra = extra,
	.parse = parse_extra, .size_default = 1000, .size_max = 65507,
};

static int parse(const char *line, struct zc_opts *o, char *err)
{
	char copy[256], *argv[16];
	int argc = 0;
	char *tok, *save = NULL;
	struct zc_why why = { "" };
	int ret;

	snprintf(copy, sizeof(copy), "unit %s", line);
	for (tok = strtok_r(copy, " ", &save); tok && argc < 15;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	ret = zc_opts_parse(o, argc, argv, &desc, NULL, &why);
	snprintf(err, 256, "%.255s", why.msg);
	return ret;
}

static void test_opts(void)
{
	static const char *const bad[] = {
		"--bogus", "--duration", "--duration 0", "--duration -1",
		"--duration abc", "--duration 1e9", "--repeat 0",
		"--repeat 101", "--size 0", "--size 65508", "--size 1x",
		"--cpu 99", "--cpu 0,x", "-t", "--iface", "extra",
		"--duration nan", "--size 99999999999999999999",
	};
	struct zc_opts o;
	char err[256];
	size_t i;

	unsetenv("ZC_DURATION");
	unsetenv("ZC_REPEAT");
	check(!parse("", &o, err) && o.duration == ZC_DURATION_DEFAULT &&
	      o.repeat == ZC_REPEAT_DEFAULT && o.size == 1000,
	      "opts.defaults", err);
	check(!parse("--duration 2 --repeat 5 --size 32k --verify -t a -t b* -q",
		     &o, err) && o.duration == 2 && o.repeat == 5 &&
	      o.size == 32768 && o.verify && o.quiet && o.npatterns == 2,
	      "opts.common", err);
	check(!parse("--iface zc0", &o, err) && seen_iface &&
	      !strcmp(seen_iface, "zc0"), "opts.extra", err);
	check(parse("--help", &o, err) == 1, "opts.help", NULL);
	for (i = 0; i < ZC_ARRAY_SIZE(bad); i++) {
		char name[96];
		int ret = parse(bad[i], &o, err);

		snprintf(name, sizeof(name), "opts.rejects[%s]", bad[i]);
		for (char *p = name; *p; p++)
			if (*p == ' ')
				*p = '_';
		check(ret == -1 && err[0] && !strchr(err, '\n'), name, err);
	}
	setenv("ZC_DURATION", "0.25", 1);
	setenv("ZC_REPEAT", "7", 1);
	check(!parse("", &o, err) && o.duration == 0.25 && o.repeat == 7,
	      "opts.env_defaults", err);
	check(!parse("--repeat 2", &o, err) && o.repeat == 2,
	      "opts.cmdline_beats_env", err);
	unsetenv("ZC_DURATION");
	unsetenv("ZC_REPEAT");
}

static void test_case_select(void)
{
	struct zc_opts o = {};

	check(zc_case_selected(&o, "udp4.x"), "select.all_by_default", NULL);
	o.patterns[o.npatterns++] = "udp4.*";
	check(zc_case_selected(&o, "udp4.pairing") &&
	      !zc_case_selected(&o, "tcp.pairing"), "select.glob", NULL);
	o.patterns[0] = "pair";
	check(zc_case_selected(&o, "tcp.pairing") &&
	      !zc_case_selected(&o, "tcp.errors"), "select.substring", NULL);
}

static void test_config(void)
{
	char name[64], val = 0, path[] = "/tmp/zc-unit-config.XXXXXX";
	FILE *f;
	int fd;

	check(!zc_config_parse_line("CONFIG_VETH=m\n", name, sizeof(name), &val) &&
	      !strcmp(name, "CONFIG_VETH") && val == 'm', "config.module", NULL);
	check(!zc_config_parse_line("# CONFIG_XDP_SOCKETS is not set", name,
				    sizeof(name), &val) &&
	      !strcmp(name, "CONFIG_XDP_SOCKETS") && val == 'n',
	      "config.not_set", NULL);
	check(zc_config_parse_line("# a comment", name, sizeof(name), &val) == -1 &&
	      zc_config_parse_line("", name, sizeof(name), &val) == -1,
	      "config.ignores_comments", NULL);
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"str\"\n", f);
	fclose(f);
	check(zc_config_load(path) == 3 && zc_config_get("A") == 'y' &&
	      zc_config_get("CONFIG_B") == 'n' && zc_config_get("C") == 'y' &&
	      zc_config_get("D") == 'n', "config.load_and_get", NULL);
	{
		const char *need[] = { "CONFIG_A", "B" };
		struct zc_why why;

		check(zc_require_config(&why, need, 2) == -1 &&
		      !strcmp(why.msg, "CONFIG_B not set"), "config.skip_reason",
		      why.msg);
	}
	unlink(path);
}

/* /proc/net/packet lines and uid_map texts as kernels print them. */
static void test_env_parsers(void)
{
	struct zc_tap t;

	check(!zc_taps_parse_line("ffff8a0c4e6f0800 3      3      0003   0     1     0      0      123456\n", &t) &&
	      t.inode == 123456 && t.type == 3 && t.proto == 0x0003 &&
	      !t.ifindex && t.running && t.ignore_outgoing == -1 && t.fd == -1,
	      "taps.parse_unbound_all", NULL);
	check(!zc_taps_parse_line("ffff8a0c4e6f1000 3      2      0800   4     0     0      0      99\n", &t) &&
	      t.type == 2 && t.proto == 0x0800 && t.ifindex == 4 && !t.running,
	      "taps.parse_bound_ip", NULL);
	check(zc_taps_parse_line("sk       RefCnt Type Proto  Iface R Rmem   User   Inode\n", &t) == -1,
	      "taps.parse_header", NULL);
	check(zc_uid_map_is_initial("         0          0 4294967295\n"),
	      "userns.initial_map", NULL);
	check(!zc_uid_map_is_initial("         0          0          1\n") &&
	      !zc_uid_map_is_initial("         0       1000          1\n") &&
	      !zc_uid_map_is_initial("0 0 4294967295\n1 1 1\n") &&
	      !zc_uid_map_is_initial(""),
	      "userns.child_maps", NULL);
}

static void test_pattern(void)
{
	unsigned char a[1000], b[300];

	zc_pattern_fill(a, sizeof(a), 42, 0);
	zc_pattern_fill(b, sizeof(b), 42, 333);
	check(!memcmp(a + 333, b, sizeof(b)), "pattern.offset_consistent", NULL);
	check(zc_pattern_check(a, sizeof(a), 42, 0) == -1, "pattern.check_ok", NULL);
	a[777] ^= 1;
	check(zc_pattern_check(a, sizeof(a), 42, 0) == 777,
	      "pattern.check_finds_flip", NULL);
	check(zc_pattern_check(b, sizeof(b), 43, 333) != -1,
	      "pattern.seed_matters", NULL);
}

/* A received stream built from runs of the pattern: {stream offset, length}. */
static size_t slip_stream(const struct zc_sm_pattern *p, unsigned char *buf,
			  const uint64_t (*runs)[2], int n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		memcpy(buf + len, p->ring + runs[i][0] % ZC_SM_PERIOD, runs[i][1]);
		len += runs[i][1];
	}
	return len;
}

/* Describe the first difference of buf from the pattern, as the stream does. */
static void slip_of(const struct zc_sm_pattern *p, const unsigned char *buf,
		    size_t len, struct zc_sm_slip *s, char *msg, size_t mlen)
{
	size_t i = 0;
	int before;

	while (i < len && buf[i] == p->ring[i % ZC_SM_PERIOD])
		i++;
	before = i < 16 ? i : 16;
	zc_sm_describe_slip(p->ring, ZC_SM_PERIOD, p->chunk, i, buf + i - before, len - i + before, before,
			    s, msg, mlen);
}

/*
 * A wrong byte in a sockmap stream is traced back to the pattern: how far
 * the stream slipped and whether the bytes went missing, came twice, came
 * late (reordered), or are not the pattern at all.
 */
static void test_sm_slip(void)
{
	static unsigned char buf[1 << 20];
	struct zc_why why = { "" };
	struct zc_sm_pattern p = { .devnull = -1 };
	struct zc_sm_slip s;
	char msg[512];
	size_t len, d;

	if (zc_sm_pattern_init(&p, 65536, -1, &why)) {
		check(0, "sm_slip.pattern", why.msg);
		return;
	}
	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 1050 },
		{ 1050 + 1448, 20000 } }, 2);
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(s.slip_at == 1050 && s.seg[0].src == 1050 + 1448 &&
	      s.seg[0].len == 20000 && strstr(msg, "missing") &&
	      strstr(msg, "20000 B of 2498 (+1448)"),
	      "sm_slip.missing_names_the_gap", msg);

	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 100 },
		{ 100 + 1448, 1448 }, { 100, 1448 }, { 100 + 2896, 5000 } }, 4);
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(s.nseg == 3 && s.seg[1].src == 100 && s.back_at == 100 + 1448 &&
	      strstr(msg, "reordered") &&
	      strstr(msg, "1448 B of 1548 (+1448), 1448 B of 100 (-1448), 5000 B of 2996 (+0)"),
	      "sm_slip.reorder_is_not_a_loss", msg);

	/* A page reused too early: later bytes stand in for 4096 of them. */
	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 8192 },
		{ 8192 + 65536, 4096 }, { 8192 + 4096, 9000 } }, 3);
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(s.nseg == 2 && s.seg[0].len == 4096 && strstr(msg, "overwritten in place: bytes from later") &&
	      strstr(msg, "4096 B of 73728 (+65536), 9000 B of 12288 (+0)"),
	      "sm_slip.overwrite_in_place_is_not_a_reorder", msg);

	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 5000 },
		{ 3000, 5000 } }, 2);
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(s.seg[0].src == 3000 && strstr(msg, "repeated") &&
	      strstr(msg, "(-2000)"), "sm_slip.repeat_names_the_overlap", msg);
	check(zc_sm_slip_repeats(&s, 1000) == 2 && !zc_sm_slip_repeats(&s, 65483),
	      "sm_slip.repeat_of_whole_segments_counted", NULL);

	/* verdict_pass's sighting: one MSS of lo (65483 B) received twice. */
	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 200000 },
		{ 200000 - 65483, 300000 } }, 2);
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(zc_sm_slip_repeats(&s, 65483) == 1 && !zc_sm_slip_repeats(&s, 65536),
	      "sm_slip.duplicate_tcp_segment_is_one_mss", msg);

	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 9000 } }, 1);
	memset(buf + 4000, 0, 64);
	buf[4000] = p.ring[4000] ^ 0xff;
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(s.seg[0].src == -1 && s.seg[0].len <= 64 && s.seg[1].src == (int64_t)s.seg[1].at &&
	      strstr(msg, "corrupted in place"), "sm_slip.corruption_in_place", msg);

	/* A gap whose first byte happens to equal the expected one: slip at 1050. */
	for (d = 1; d < 100000 && p.ring[1050] != p.ring[1050 + d]; d++)
		;
	len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 1050 },
		{ 1050 + d, 8000 } }, 2);
	slip_of(&p, buf, len, &s, msg, sizeof(msg));
	check(s.slip_at == 1050 && s.seg[0].src == (int64_t)(1051 + d) &&
	      strstr(msg, "from offset 1050 "), "sm_slip.coincident_byte_before_the_slip", msg);

	/* The whole failure line, from a stream over a socket pair. */
	{
		struct zc_sm_topo t = { .rx = -1, .c1 = -1, .p1 = -1, .c2 = -1,
					.p2 = -1, .lfd = -1, .nsfd = -1,
					.pipe = { -1, -1 } };
		struct zc_sm_rx r;
		int sv[2];
		long n = 1;

		len = slip_stream(&p, buf, (const uint64_t[][2]) { { 0, 70000 },
			{ 70000 + 4096, 4096 }, { 70000, 4096 }, { 78192, 30000 } }, 4);
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) ||
		    write(sv[0], buf, len) != (ssize_t)len) {
			check(0, "sm_slip.failure_line", strerror(errno));
		} else {
			/* the test's consumer: read, compare, keep what differs */
			t.rx = sv[1];
			zc_sm_rx_init(&r, &p, &t, ZC_SM_READ, true);
			while (n > 0) {
				n = read(t.rx, p.rxbuf, p.chunk);
				if (n > 0 && memcmp(p.rxbuf, p.ring + r.got % ZC_SM_PERIOD, n)) {
					n = zc_sm_rx_wrong(&r, p.rxbuf, n);
					zc_sm_rx_follow(&r, 0.5);
				} else if (n > 0) {
					r.got += n;
				}
			}
			zc_sm_rx_error(&r, n, len, &why);
			check(n == -EBADMSG && strstr(why.msg, "wrong byte at stream offset 70000 ") &&
			      strstr(why.msg, "reordered") &&
			      strstr(why.msg, "4096 B of 74096 (+4096), 4096 B of 70000 (-4096), 30000 B of 78192 (+0)") &&
			      !r.seen, "sm_slip.failure_line_maps_the_bytes", why.msg);
			close(sv[0]);
			close(sv[1]);
		}
	}
	zc_sm_pattern_free(&p);

	/* A write of 1 MiB is longer than the period: the ring still repeats. */
	if (zc_sm_pattern_init(&p, 1 << 20, -1, &why)) {
		check(0, "sm_pattern.ring_repeats_past_a_long_chunk", why.msg);
		return;
	}
	for (d = 0; d < p.chunk && p.ring[ZC_SM_PERIOD + d] == p.ring[d]; d++)
		;
	check(d == p.chunk, "sm_pattern.ring_repeats_past_a_long_chunk", NULL);
	zc_sm_pattern_free(&p);
}

static void test_parse_numbers(void)
{
	long l;
	double d;

	check(!zc_parse_long("4k", 1, 1 << 20, &l) && l == 4096, "parse.long_suffix", NULL);
	check(zc_parse_long("", 0, 10, &l) && zc_parse_long("11", 0, 10, &l) &&
	      zc_parse_long("1 ", 0, 10, &l), "parse.long_rejects", NULL);
	check(!zc_parse_double("0.5", 0, 1, &d) && d == 0.5, "parse.double", NULL);
	check(zc_parse_double("inf", 0, 1e9, &d) && zc_parse_double("1,5", 0, 9, &d),
	      "parse.double_rejects", NULL);
}

/* ---- kernel log watch: recorded and shaped fixtures, never /dev/kmsg ---- */

static struct zc_splat got[8];
static int ngot;

static void keep_splat(const struct zc_splat *s, void *arg)
{
	if (ngot < 8)
		got[ngot] = *s;
	ngot++;
}

static int parse_fixture(const char *name)
{
	struct zc_kmsg_parser p;
	char path[512], line[2048];
	FILE *f;

	snprintf(path, sizeof(path), "%s/kmsg/%s", ZC_FIXTURES, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ngot = 0;
	memset(got, 0, sizeof(got));
	zc_splat_parser_init(&p, keep_splat, NULL);
	while (fgets(line, sizeof(line), f))
		zc_splat_feed(&p, line);
	zc_splat_flush(&p);
	fclose(f);
	return ngot;
}

/* whose(): every pid gone */
static int never_ours(int pid)
{
	return -1;
}

static int pid_4242_ours(int pid)
{
	return pid == 4242 ? 1 : -1;
}

static int pid_4242_alive_other(int pid)
{
	return 0;
}

static bool trace_is(const struct zc_splat *s, const char *a, const char *b,
		     const char *c)
{
	return s->ntrace == 3 && !strcmp(s->trace[0], a) &&
	       !strcmp(s->trace[1], b) && !strcmp(s->trace[2], c);
}

/* Stall reports, from the splats file's stall and hung classes, starve a case only under wall-clock TCG. */
static void test_kmsg_starve(void)
{
	static const char *const starve[] = {
		"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
		"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [swapper/0:0]",
		"INFO: task kworker/0:1:12 blocked for more than 120 seconds.",
	};
	struct zc_splat s = { .first = "BUG: KASAN: slab-use-after-free in x+0x1/0x2" };
	size_t i;

	check(!zc_splat_starve(&s), "kmsg.starve.kasan_is_not", s.first);
	for (i = 0; i < ZC_ARRAY_SIZE(starve); i++) {
		snprintf(s.first, sizeof(s.first), "%s", starve[i]);
		check(zc_splat_starve(&s), "kmsg.starve.stall_or_hung", s.first);
	}
	setenv("ZC_CLOCK", "wall qemu=7.2.22 accel=tcg cpu=max smp=2", 1);
	check(zc_starved_blind(), "kmsg.starve.blind_wall_tcg", getenv("ZC_CLOCK"));
	setenv("ZC_CLOCK", "icount shift=0 qemu=7.2.22 accel=tcg cpu=max smp=1", 1);
	check(!zc_starved_blind(), "kmsg.starve.sees_under_icount", getenv("ZC_CLOCK"));
	setenv("ZC_CLOCK", "wall qemu=7.2.22 accel=kvm cpu=host smp=2", 1);
	check(!zc_starved_blind(), "kmsg.starve.sees_under_kvm", getenv("ZC_CLOCK"));
	unsetenv("ZC_CLOCK");
	check(!zc_starved_blind(), "kmsg.starve.sees_on_a_host", "ZC_CLOCK unset");
}

/* A failed ZC_EXPECT_* names both expressions, both values and its line. */
static void test_why_expect(void)
{
	struct zc_why why = { "" };
	int seen = 4095, calls = 0;
	const int want = 4096;
	bool ok;
	int line;

	ok = ZC_EXPECT_EQ(&why, seen, want); line = __LINE__;
	check(!ok && !strcmp(why.msg, "seen (4095) == want (4096)") &&
	      why.line == line && why.file && strstr(why.file, "unit_lib.c"),
	      "why.expect_eq_says_both", why.msg);
	zc_why_clear(&why);
	ok = ZC_EXPECT_GE(&why, ++calls, 1);
	check(ok && calls == 1 && !why.msg[0], "why.expect_evaluates_once", why.msg);
	check(!ZC_EXPECT_NE(&why, seen, 4095) &&
	      !strcmp(why.msg, "seen (4095) != 4095 (4095)"), "why.expect_ne", why.msg);
}

static void test_kmsg_parse(void)
{
	static const struct {
		const char *file, *first, *check;
	} guests[] = {
		{ "guest-6.1.0-57-psock-warn.kmsg",
		  "WARNING: CPU: 1 PID: 35 at net/ipv4/af_inet.c:154 inet_sock_destruct+0x184/0x1b0",
		  "kmsg.parse.warn_6_1_known" },
		{ "guest-6.12.117-psock-warn.kmsg",
		  "WARNING: CPU: 1 PID: 46 at net/ipv4/af_inet.c:156 inet_sock_destruct+0x1c6/0x1e0",
		  "kmsg.parse.warn_6_12_known" },
		{ "guest-7.3.4-psock-warn.kmsg",
		  "WARNING: net/ipv4/af_inet.c:162 at inet_sock_destruct+0x178/0x1a0, CPU#1: kworker/1:2/58",
		  "kmsg.parse.warn_7_3_format_known" },
	};
	const struct zc_known_bug *b;
	char sum[512];
	size_t i;
	int n;

	check(parse_fixture("host-6.18.44-psock-warn.kmsg") == 1 &&
	      !strcmp(got[0].first, "WARNING: CPU: 1 PID: 41 at net/ipv4/af_inet.c:157 inet_sock_destruct+0x174/0x1a0") &&
	      got[0].pid == 41 && !strcmp(got[0].comm, "kworker/1:1") &&
	      !strcmp(got[0].workqueue, "events sk_psock_destroy") &&
	      trace_is(&got[0], "__sk_destruct", "sk_psock_destroy", "process_one_work") &&
	      got[0].ended && got[0].seq == 350,
	      "kmsg.parse.warn_6_18", got[0].first);
	check(zc_splat_owner(&got[0], "sockmap_splice", never_ours) == ZC_SPLAT_KERNEL,
	      "kmsg.owner.workqueue_is_kernel", got[0].comm);
	b = zc_known_bug_match(&got[0]);
	check(b && !strcmp(b->name, "sockmap-psock-destroy-mem-accounting"),
	      "kmsg.known_bug.psock_warn", b ? b->name : "no match");
	check(!zc_splat_starve(&got[0]), "kmsg.starve.a_warning_is_not", got[0].first);
	zc_splat_summary(&got[0], sum, sizeof(sum));
	check(!strcmp(sum, "WARNING: CPU: 1 PID: 41 at net/ipv4/af_inet.c:157 inet_sock_destruct+0x174/0x1a0 (trace: __sk_destruct <- sk_psock_destroy <- process_one_work; kworker/1:1 pid 41; workqueue events sk_psock_destroy)"),
	      "kmsg.summary", sum);

	/* The same bug as Debian's 6.1, 6.12 and 7.3 kernels log it in qemu. */
	for (i = 0; i < ZC_ARRAY_SIZE(guests); i++) {
		n = parse_fixture(guests[i].file);
		b = n == 1 ? zc_known_bug_match(&got[0]) : NULL;
		check(n == 1 && !strcmp(got[0].first, guests[i].first) &&
		      b && !strcmp(b->name, "sockmap-psock-destroy-mem-accounting") &&
		      trace_is(&got[0], "__sk_destruct", "sk_psock_destroy", "process_one_work") &&
		      !strcmp(got[0].workqueue, "events sk_psock_destroy") &&
		      zc_splat_owner(&got[0], "sockmap_splice", never_ours) == ZC_SPLAT_KERNEL,
		      guests[i].check, got[0].first);
	}

	check(parse_fixture("kasan-uaf.kmsg") == 1 &&
	      !strcmp(got[0].first, "BUG: KASAN: slab-use-after-free in tcp_bpf_recvmsg+0x6a1/0x7c0") &&
	      got[0].pid == 4242 &&
	      trace_is(&got[0], "tcp_bpf_recvmsg", "inet_recvmsg", "sock_recvmsg"),
	      "kmsg.parse.kasan", got[0].first);
	check(zc_splat_owner(&got[0], "other", pid_4242_ours) == ZC_SPLAT_OURS &&
	      zc_splat_owner(&got[0], "sockmap_splice", never_ours) == ZC_SPLAT_OURS &&
	      zc_splat_owner(&got[0], "tap_copy", never_ours) == ZC_SPLAT_OTHER &&
	      zc_splat_owner(&got[0], "sockmap_splice", pid_4242_alive_other) == ZC_SPLAT_OTHER &&
	      !zc_known_bug_match(&got[0]),
	      "kmsg.owner.thread_or_gone_task_with_our_comm_not_a_live_other", got[0].comm);

	check(parse_fixture("lockdep-circular.kmsg") == 1 &&
	      !strcmp(got[0].first, "WARNING: possible circular locking dependency detected") &&
	      got[0].pid == 777 && !strcmp(got[0].comm, "tap_copy") &&
	      trace_is(&got[0], "check_noncircular", "__lock_acquire", "lock_acquire"),
	      "kmsg.parse.lockdep", got[0].first);

	check(parse_fixture("hung-task.kmsg") == 1 &&
	      !strncmp(got[0].first, "INFO: task xsk_bind:3131 blocked", 32) &&
	      got[0].pid == 3131 && !strcmp(got[0].comm, "xsk_bind") &&
	      trace_is(&got[0], "__schedule", "schedule", "xsk_unbind_dev"),
	      "kmsg.parse.hung_task", got[0].comm);

	check(parse_fixture("bug-null-oops.kmsg") == 1 &&
	      !strncmp(got[0].first, "BUG: kernel NULL pointer dereference", 36) &&
	      got[0].pid == 16 &&
	      trace_is(&got[0], "tcp_read_skb", "sk_psock_verdict_data_ready", "tcp_data_queue") &&
	      zc_splat_owner(&got[0], "sockmap_splice", never_ours) == ZC_SPLAT_KERNEL,
	      "kmsg.parse.null_oops_one_report", got[0].first);

	check(parse_fixture("user-and-noise.kmsg") == 0,
	      "kmsg.parse.user_facility_and_noise_ignored", got[0].first);
}

/*
 * The case runner end to end: each case writes recorded records into a
 * pipe the watch reads instead of /dev/kmsg, as if the kernel had logged
 * them while the case ran.
 */
static int kmsg_pipe[2];

static void pipe_fixture(const char *name, const char *pid_from, int pid_to)
{
	char path[512], line[2048], *at, out[2100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/kmsg/%s", ZC_FIXTURES, name);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		at = pid_from ? strstr(line, pid_from) : NULL;
		if (at) {
			*at = '\0';
			snprintf(out, sizeof(out), "%s%d%s", line, pid_to,
				 at + strlen(pid_from));
		} else {
			snprintf(out, sizeof(out), "%s", line);
		}
		if (write(kmsg_pipe[1], out, strlen(out)) < 0)
			break;
	}
	fclose(f);
}

static void case_known(const struct zc_case *c, void *ctx)
{
	pipe_fixture("host-6.18.44-psock-warn.kmsg", NULL, 0);
	ktap_pass(c->name);
}

static void case_ours(const struct zc_case *c, void *ctx)
{
	/* The KASAN report, naming this very process. */
	pipe_fixture("kasan-uaf.kmsg", "4242", getpid());
	ktap_pass(c->name);
}

static void case_clean(const struct zc_case *c, void *ctx)
{
	pipe_fixture("user-and-noise.kmsg", NULL, 0);
	ktap_pass(c->name);
}

static void case_other(const struct zc_case *c, void *ctx)
{
	pipe_fixture("lockdep-circular.kmsg", NULL, 0);
	ktap_skip(c->name, ZC_CLASS_KERNEL, "not here");
}

static const struct zc_case kmsg_cases[] = {
	{ "k.known", case_known, NULL },
	{ "k.ours", case_ours, NULL },
	{ "k.clean", case_clean, NULL },
	{ "k.other", case_other, NULL },
};

static const struct zc_case *cap_cases;
static size_t cap_n;
static int cap_rc;

static void run_cap(void)
{
	cap_rc = zc_run_cases(cap_cases, cap_n, NULL, NULL);
}

/* Capture what a case table prints, and its exit code. */
static char *capture_cases(const struct zc_case *cases, size_t n, int *rc)
{
	char *out;

	cap_cases = cases;
	cap_n = n;
	out = capture(run_cap);
	*rc = cap_rc;
	return out;
}

static char *run_watched(int *rc)
{
	char *out;

	if (pipe2(kmsg_pipe, O_NONBLOCK | O_CLOEXEC))
		return NULL;
	zc_kmsg_use_fd(kmsg_pipe[0]);
	out = capture_cases(kmsg_cases, ZC_ARRAY_SIZE(kmsg_cases), rc);
	close(kmsg_pipe[1]);
	return out;
}

static void test_kmsg_runner(void)
{
	char dir[] = "/tmp/zc-unit-runs.XXXXXX", other[600];
	pid_t holder;
	int rc, fd;
	char *out;

	if (!mkdtemp(dir)) {
		check(0, "kmsg.runner", "mkdtemp failed");
		return;
	}
	setenv("ZC_KMSG_RUNS_DIR", dir, 1);
	out = run_watched(&rc);
	check(out && strstr(out, "ok 1 k.known # XFAIL known kernel bug sockmap-psock-destroy-mem-accounting: WARNING: CPU: 1 PID: 41 at net/ipv4/af_inet.c:157") &&
	      strstr(out, "\n# kmsg: k.known: WARNING: CPU: 1 PID: 41"),
	      "kmsg.runner.kernel_splat_known_bug_xfails_its_case", out);
	check(out && strstr(out, "\nnot ok 2 k.ours\n") &&
	      strstr(out, "# kmsg: k.ours: BUG: KASAN: slab-use-after-free in tcp_bpf_recvmsg"),
	      "kmsg.runner.own_task_splat_fails_its_case", out);
	check(out && strstr(out, "\nok 3 k.clean\n"),
	      "kmsg.runner.clean_window_passes", out);
	check(out && strstr(out, "\nok 4 k.other # SKIP not here\n") &&
	      strstr(out, "# kmsg: another process's report, not counted: WARNING: possible circular"),
	      "kmsg.runner.other_process_not_counted", out);
	check(rc == KSFT_FAIL && out && strstr(out, "pass:1 fail:1 xfail:1 xpass:0 skip:1 error:0"),
	      "kmsg.runner.totals", out);

	/* Another run holds its lock: a kworker's splat cannot be placed. */
	snprintf(other, sizeof(other), "%s/1", dir);
	fd = open(other, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	holder = fork();
	if (holder == 0) {
		flock(fd, LOCK_EX);
		sleep(30);
		_exit(0);
	}
	usleep(200000);
	out = run_watched(&rc);
	check(out && strstr(out, "\nok 1 k.known\n") &&
	      strstr(out, "cannot be tied to one case (another zc-selftests run was active), known bug, not counted"),
	      "kmsg.runner.shared_kernel_splat_not_on_a_case", out);
	check(out && strstr(out, "\nnot ok 2 k.ours\n"),
	      "kmsg.runner.shared_own_task_splat_still_its_case", out);
	if (holder > 0) {
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
	}
	close(fd);
	unlink(other);
	rmdir(dir);
	unsetenv("ZC_KMSG_RUNS_DIR");
}


static void body_pass(const struct zc_case *c, void *ctx)
{
	ktap_pass(c->name);
}

/* The line of body_fail's check: its failure line must name it. */
static int fail_check_line;

static void body_fail(const struct zc_case *c, void *ctx)
{
	struct zc_why why = { "" };

	fail_check_line = __LINE__ + 1;
	ZC_CHECK_EQ(&why, "notifications", 3, 4);
	ktap_fail_why(c->name, &why);
}

static void body_silent(const struct zc_case *c, void *ctx)
{
}

static void body_twice(const struct zc_case *c, void *ctx)
{
	ktap_pass(c->name);
	ktap_pass(c->name);
}

/* Not the deviation an expected failure names: half the sends copied. */
static void body_unexpected(const struct zc_case *c, void *ctx)
{
	ktap_fail_unexpected(c->name, "mixed verdicts: copied 4, zero-copy 4");
}

static enum zc_pre pre_skip(const struct zc_case *c, void *ctx, struct zc_why *why)
{
	zc_why_set(why, "a foreign packet tap on the sender");
	return ZC_SKIP;
}

static enum zc_pre pre_xfail(const struct zc_case *c, void *ctx, struct zc_why *why)
{
	zc_why_set(why, "device has no zero-copy");
	return ZC_XFAIL;
}

static const struct zc_case row_cases[] = {
	{ "r.xfail_fails", body_fail, .xfail = "known: bug X" },
	{ "r.xfail_passes", body_pass, .xfail = "known: bug X" },
	{ "r.pre_skip", body_fail, .pre = pre_skip },
	{ "r.pre_xfail", body_fail, .pre = pre_xfail },
	{ "r.silent", body_silent },
	{ "r.twice", body_twice },
};

/* A precondition's expected failure covers the deviation, nothing else. */
static const struct zc_case pre_xfail_cases[] = {
	{ "x.deviation", body_fail, .pre = pre_xfail },
	{ "x.clean", body_pass, .pre = pre_xfail },
	{ "x.unexpected", body_unexpected, .pre = pre_xfail },
	{ "x.unexpected_row", body_unexpected, .xfail = "known: bug X" },
	{ "x.unexpected_plain", body_unexpected },
};

/* What the table prints: one check per line that must be there. */
static const struct {
	const char *line, *check;
} pre_xfail_lines[] = {
	{ "\nok 1 x.deviation # XFAIL device has no zero-copy\n",
	  "rows.pre_xfail_expected_deviation_is_xfail" },
	{ "\nok 2 x.clean # XPASS device has no zero-copy\n",
	  "rows.pre_xfail_clean_pass_is_xpass" },
	{ "\nnot ok 3 x.unexpected\n",
	  "rows.pre_xfail_unexpected_failure_stays_fail" },
	{ ": x.unexpected: mixed verdicts: copied 4, zero-copy 4\n",
	  "rows.pre_xfail_unexpected_failure_says_what" },
	{ "# x.unexpected: not the expected failure (device has no zero-copy)\n",
	  "rows.pre_xfail_unexpected_failure_names_the_expected" },
	{ "\nnot ok 4 x.unexpected_row\n",
	  "rows.xfail_row_unexpected_failure_stays_fail" },
	{ "\nnot ok 5 x.unexpected_plain\n",
	  "rows.unexpected_failure_without_xfail_fails" },
	{ "pass:0 fail:3 xfail:1 xpass:1 skip:0 error:0",
	  "rows.pre_xfail_totals" },
};

static void test_pre_xfail(void)
{
	int rc;
	size_t i;
	char *out = capture_cases(pre_xfail_cases,
				  ZC_ARRAY_SIZE(pre_xfail_cases), &rc);

	for (i = 0; i < ZC_ARRAY_SIZE(pre_xfail_lines); i++)
		check(out && strstr(out, pre_xfail_lines[i].line),
		      pre_xfail_lines[i].check, out);
	check(rc == KSFT_FAIL, "rows.pre_xfail_exit_code", out);
}

static void case_fact(const struct zc_case *c, void *ctx);

static const struct zc_case fact_cases[] = {
	{ "f.bug", case_fact, NULL },
	{ "f.env", case_fact, NULL },
	{ "f.harness", case_fact, NULL },
	{ "f.env_then_pass", case_fact, NULL },
	{ "f.clean", case_fact, NULL },
	{ "f.cannot_kernel", case_fact, NULL },
	{ "f.cannot_env", case_fact, NULL },
	{ "f.cannot_harness", case_fact, NULL },
};

/*
 * Facts a body saw: case_status() alone turns them into a status.
 * cls: the reason's own class, which only CANNOT_RUN's SKIP keeps (ENV
 * with a harness reason checks that the fact, not the reason, decides).
 */
static void case_fact(const struct zc_case *c, void *ctx)
{
	static const struct {
		enum ktap_fact fact;
		enum zc_class cls;
	} facts[] = {
		{ KTAP_FACT_KNOWN_BUG }, { KTAP_FACT_ENV, ZC_CLASS_HARNESS },
		{ KTAP_FACT_HARNESS }, { KTAP_FACT_ENV }, { KTAP_FACT_NONE },
		{ KTAP_FACT_CANNOT_RUN, ZC_CLASS_KERNEL },
		{ KTAP_FACT_CANNOT_RUN, ZC_CLASS_ENV },
		{ KTAP_FACT_CANNOT_RUN, ZC_CLASS_HARNESS },
	};
	size_t i = c - fact_cases;
	struct zc_why why;

	if (facts[i].fact == KTAP_FACT_NONE) {
		ktap_pass(c->name);
		return;
	}
	zc_why_skip(&why, facts[i].cls, "seen by %s", c->name);
	ktap_seen(c->name, facts[i].fact, &why);
	if (i == 3)
		ktap_pass(c->name);
}

static void test_facts(void)
{
	static const char *const lines[][2] = {
		{ "\nok 1 f.bug # XFAIL seen by f.bug\n", "facts.known_bug_is_xfail" },
		{ "\n# skip-class f.env environment\nok 2 f.env # SKIP seen by f.env\n",
		  "facts.environment_is_a_skip_of_its_class" },
		{ "\n# skip-class f.harness harness\nok 3 f.harness # SKIP seen by f.harness\n",
		  "facts.harness_is_a_skip_of_its_class" },
		{ "a second verdict (not a failure) of one case, not counted\n# skip-class f.env_then_pass environment\nok 4 f.env_then_pass # SKIP",
		  "facts.a_verdict_after_a_fact_is_an_error" },
		{ "\nok 5 f.clean\n", "facts.no_fact_keeps_the_pass" },
		{ "\n# skip-class f.cannot_kernel kernel\nok 6 f.cannot_kernel # SKIP seen by f.cannot_kernel\n",
		  "facts.cannot_run_is_a_skip_of_the_reasons_class.kernel" },
		{ "\n# skip-class f.cannot_env environment\nok 7 f.cannot_env # SKIP seen by f.cannot_env\n",
		  "facts.cannot_run_is_a_skip_of_the_reasons_class.environment" },
		{ "\n# skip-class f.cannot_harness harness\nok 8 f.cannot_harness # SKIP seen by f.cannot_harness\n",
		  "facts.cannot_run_is_a_skip_of_the_reasons_class.harness" },
		{ "pass:1 fail:0 xfail:1 xpass:0 skip:6 error:1", "facts.totals" },
	};
	size_t i;
	char *out;
	int rc;

	out = capture_cases(fact_cases, ZC_ARRAY_SIZE(fact_cases), &rc);
	for (i = 0; i < ZC_ARRAY_SIZE(lines); i++)
		check(out && strstr(out, lines[i][0]), lines[i][1], out);
}

static void test_case_rows(void)
{
	char want[160];
	struct zc_why why;
	char *out;
	int rc;

	zc_why_set(&why, "veth %s: %s", "a0", "no such device");
	zc_why_prefix(&why, "topology %d", 2);
	check(!strcmp(why.msg, "topology 2: veth a0: no such device"),
	      "why.prefix_keeps_the_cause", why.msg);
	unsetenv("ZC_KMSG_FILE");
	out = capture_cases(row_cases, ZC_ARRAY_SIZE(row_cases), &rc);
	snprintf(want, sizeof(want),
		 "\n# unit_lib.c:%d: r.xfail_fails: notifications: expected 4, seen 3\n",
		 fail_check_line);
	check(out && strstr(out, "\nok 1 r.xfail_fails # XFAIL known: bug X\n"),
	      "rows.xfail_row_turns_fail_into_xfail", out);
	check(out && strstr(out, want),
	      "rows.failure_names_the_check_file_line_and_both_values", out);
	check(out && strstr(out, "\nok 2 r.xfail_passes # XPASS known: bug X\n"),
	      "rows.xfail_row_that_passes_is_xpass", out);
	check(out && strstr(out, "\nok 3 r.pre_skip # SKIP a foreign packet tap on the sender\n"),
	      "rows.precondition_skips_with_reason", out);
	check(out && strstr(out, "\nok 4 r.pre_xfail # XFAIL device has no zero-copy\n"),
	      "rows.precondition_expects_failure", out);
	check(out && strstr(out, "\n# r.silent: case reported no result\nnot ok 5 r.silent\n"),
	      "rows.case_without_result_fails", out);
	check(out && strstr(out, "\n# r.twice: a second verdict (not a failure) of one case, not counted\n"
			    "ok 6 r.twice\n"),
	      "rows.second_result_is_an_error_not_a_line", out);
	check(rc == KSFT_FAIL && out &&
	      strstr(out, "1..6\n") &&
	      strstr(out, "pass:1 fail:1 xfail:2 xpass:1 skip:1 error:1"),
	      "rows.totals", out);
}

/* Skip classes: where each skip comes from, the class its raiser gave. */
static enum zc_pre pre_env(const struct zc_case *c, void *ctx, struct zc_why *why)
{
	zc_why_skip(why, ZC_CLASS_ENV, "needs CAP_NET_ADMIN");
	return ZC_SKIP;
}

static void body_skip_kernel(const struct zc_case *c, void *ctx)
{
	ktap_skip(c->name, ZC_CLASS_KERNEL, "kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)");
}

static void body_skip_why(const struct zc_case *c, void *ctx)
{
	struct zc_why why = { "" };

	zc_why_skip(&why, ZC_CLASS_HARNESS, "--mode skb");
	zc_why_prefix(&why, "asked");
	ktap_skip_why(c->name, &why);
}

/* A wait that kept progressing past its patience, then a failure. */
static void body_starved_fail(const struct zc_case *c, void *ctx)
{
	struct zc_bound b;
	uint64_t progress = 0;

	zc_bound_start(&b, 0.002, progress);
	while (!zc_bound_over(&b, ++progress))
		usleep(200);
	ktap_fail(c->name, "3 of 4 notifications");
}

static const struct zc_case class_cases[] = {
	{ "s.pre_env", body_fail, .pre = pre_env },
	{ "s.pre_unstated", body_fail, .pre = pre_skip },
	{ "s.body_kernel", body_skip_kernel },
	{ "s.body_why", body_skip_why },
	{ "s.starved", body_starved_fail },
	{ "s.pass", body_pass },
};

static const struct {
	const char *line, *check;
} class_lines[] = {
	{ "\n# skip-class s.pre_env environment\nok 1 s.pre_env # SKIP needs CAP_NET_ADMIN\n",
	  "class.precondition_states_environment" },
	{ "\n# skip-class s.pre_unstated kernel\nok 2 s.pre_unstated # SKIP a foreign packet tap on the sender\n",
	  "class.unstated_is_kernel" },
	{ "\n# skip-class s.body_kernel kernel\nok 3 s.body_kernel # SKIP kernel lacks IORING_SEND_ZC_REPORT_USAGE (6.2+)\n",
	  "class.body_states_kernel" },
	{ "\n# skip-class s.body_why harness\nok 4 s.body_why # SKIP asked: --mode skb\n",
	  "class.reason_keeps_its_class_through_a_prefix" },
	{ "\n# skip-class s.starved harness\nok 5 s.starved # SKIP starved: ",
	  "class.starved_failure_is_harness" },
	{ "\nok 6 s.pass\n", "class.pass_has_no_class_line" },
};

static void test_skip_class(void)
{
	struct zc_why why = { "" };
	char *out;
	size_t i;
	int rc;

	zc_why_skip(&why, ZC_CLASS_ENV, "x");
	zc_why_set(&why, "y");
	check(why.cls == ZC_CLASS_NONE, "class.set_starts_unstated", NULL);
	check(!strcmp(zc_why_class_name(ZC_CLASS_NONE), "kernel") &&
	      !strcmp(zc_why_class_name(ZC_CLASS_ENV), "environment") &&
	      !strcmp(zc_why_class_name(ZC_CLASS_HARNESS), "harness"),
	      "class.names", NULL);
	unsetenv("ZC_KMSG_FILE");
	out = capture_cases(class_cases, ZC_ARRAY_SIZE(class_cases), &rc);
	for (i = 0; i < ZC_ARRAY_SIZE(class_lines); i++)
		check(out && strstr(out, class_lines[i].line),
		      class_lines[i].check, out);
	check(out && !strstr(out, "skip-class s.pass"), "class.only_before_skips", out);
	check(rc == KSFT_PASS, "class.exit_code", out);
}

static int count_step(void *arg, uint64_t *bytes, uint64_t *pkts)
{
	(*pkts)++;
	return 0;
}

/*
 * The meter's worst case of windows, which a rate's frame generator
 * must outlast, and the checks' switch that reaches it on any machine,
 * for single rates and for each arm of a paired one.
 */
static void test_meter_span(void)
{
	struct zc_meter_cfg cfg = { .duration = 0.4, .warmup = 0.1, .repeat = 3 };
	struct zc_meter_cfg quick = { .duration = 0.005, .repeat = 3 };
	const struct zc_arm arms[2] = { { .step = count_step },
					{ .step = count_step } };
	struct zc_rate rate, pair[2];
	struct zc_stats ratio;
	char d[64];

	snprintf(d, sizeof(d), "%g", zc_meter_span_max(&cfg));
	check(fabs(zc_meter_span_max(&cfg) - (0.1 + 2 * 2 * 3 * 0.4)) < 1e-9,
	      "meter.span_counts_remeasures", d);
	cfg.repeat = 0;
	cfg.warmup = -1;
	snprintf(d, sizeof(d), "%g", zc_meter_span_max(&cfg));
	check(fabs(zc_meter_span_max(&cfg) - 2 * 2 * 0.4) < 1e-9,
	      "meter.span_clamps_repeat_and_warmup", d);
	setenv("ZC_METER_REMEASURE", "1", 1);
	check(!zc_measure(&quick, count_step, NULL, &rate) &&
	      rate.mpps.n == 3 && rate.mpps.discarded == 3 && rate.mpps.screened,
	      "meter.remeasure_switch_measures_all_again", NULL);
	check(!zc_measure_pair(&quick, arms, pair, &ratio, true) &&
	      pair[0].mpps.n == 3 && pair[0].mpps.discarded == 3 &&
	      pair[1].mpps.discarded == 3 && pair[1].mpps.screened &&
	      ratio.screened && ratio.discarded == 6,
	      "meter.remeasure_switch_measures_both_arms_again", NULL);
	unsetenv("ZC_METER_REMEASURE");
}

int main(void)
{
	printf("TAP version 13\n");
	test_ktap_lines();
	test_ktap_no_header();
	test_ktap_exit_codes();
	test_metric_grammar();
	test_config_line();
	test_stats();
	test_opts();
	test_case_select();
	test_config();
	test_env_parsers();
	test_pattern();
	test_sm_slip();
	test_parse_numbers();
	test_kmsg_parse();
	test_kmsg_starve();
	test_why_expect();
	test_kmsg_runner();
	test_case_rows();
	test_facts();
	test_pre_xfail();
	test_skip_class();
	test_meter_span();
	printf("1..%d\n", num);
	return failed ? 1 : 0;
}
