// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/core/clock's progress-bounded waits (zc_bound) and
 * the runner's rule over them: a wait that saw no progress for its idle
 * bound is a stall (the case's verdict stands); one that ran out of
 * patience while progress still came is a starved machine, and a case
 * that failed then is a skip that says so. Short bounds, no root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ktap.h"
#include "core/runner.h"
#include "unit_tap.h"

#define IDLE	0.1

/*
 * Wait on b, making progress every `step` s until `until` s have passed;
 * -1 when it has not ended after 5 s. Checks hold on the starved notes
 * and on lower bounds of time only: a loaded machine may run late.
 */
static double wait_on(struct zc_bound *b, double step, double until)
{
	double t0 = zc_now(), next = t0 + step;
	uint64_t p = 0;

	while (!zc_bound_over(b, p)) {
		if (zc_now() - t0 > 5)
			return -1;	/* a bound that never ends */
		if (zc_now() >= next && zc_now() - t0 < until) {
			p++;
			next += step;
		}
		usleep(1000);
	}
	return zc_now() - t0;
}

static void test_bound(void)
{
	struct zc_bound b;
	unsigned int n0 = zc_starved_count(NULL, 0);
	char note[160], d[200];
	double t;

	zc_bound_start(&b, IDLE, 0);
	t = wait_on(&b, 1, 0);
	snprintf(d, sizeof(d), "ended after %.3f s", t);
	unit_check(t >= IDLE && zc_starved_count(NULL, 0) == n0,
		   "bound.no_progress_ends_after_idle_unnoted", d);

	zc_bound_start(&b, IDLE, 0);
	t = wait_on(&b, IDLE / 5, 10);
	snprintf(d, sizeof(d), "ended after %.3f s", t);
	unit_check(t >= IDLE * ZC_PATIENCE &&
		   zc_starved_count(note, sizeof(note)) == n0 + 1 &&
		   unit_has(note, "still progressing after "),
		   "bound.progress_ends_at_patience_noted_starved", d);

	zc_bound_start(&b, IDLE, 0);
	t = wait_on(&b, IDLE / 5, IDLE * 2);
	snprintf(d, sizeof(d), "ended after %.3f s", t);
	unit_check(t > IDLE * 2 &&
		   zc_starved_count(NULL, 0) == n0 + 1,
		   "bound.progress_that_stops_is_a_stall", d);

	zc_bound_start(&b, IDLE, 0);
	unit_check(zc_bound_left(&b) > 0 && zc_bound_left(&b) <= IDLE,
		   "bound.left_counts_down", NULL);
}

/* A case whose wait starves, then fails (say on the bytes it lacks). */
static void case_starved_fail(const struct zc_case *c, void *ctx)
{
	struct zc_bound b;

	zc_bound_start(&b, IDLE, 0);
	wait_on(&b, IDLE / 5, 10);
	ktap_fail(c->name, "receiver got 10 of 20 bytes");
}

static void case_starved_pass(const struct zc_case *c, void *ctx)
{
	struct zc_bound b;

	zc_bound_start(&b, IDLE, 0);
	wait_on(&b, IDLE / 5, 10);
	ktap_pass(c->name);
}

static void case_stall_fail(const struct zc_case *c, void *ctx)
{
	struct zc_bound b;

	zc_bound_start(&b, IDLE, 0);
	wait_on(&b, 1, 0);
	ktap_fail(c->name, "sent 3 of 8 requests");
}

static const struct zc_case cases[] = {
	{ "b.starved_fail", case_starved_fail, NULL },
	{ "b.starved_pass", case_starved_pass, NULL },
	{ "b.stall_fail", case_stall_fail, NULL },
};

static void test_runner(void)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	int rc;

	ktap_set_output(f);
	ktap_reset();
	rc = zc_run_cases(cases, 3, NULL, NULL);
	fclose(f);
	ktap_set_output(NULL);
	unit_check(out && unit_has(out, "ok 1 b.starved_fail # SKIP starved: a wait of the case was still progressing after") &&
		   unit_has(out, "this machine is too slow or loaded for b.starved_fail, not the kernel's"),
		   "runner.starved_failure_is_a_skip", out);
	unit_check(out && unit_has(out, "\nok 2 b.starved_pass\n"),
		   "runner.starved_pass_stays_a_pass", out);
	unit_check(out && unit_has(out, "\nnot ok 3 b.stall_fail\n") &&
		   rc == KSFT_FAIL, "runner.stall_failure_stays_a_failure", out);
	free(out);
}

int main(void)
{
	printf("TAP version 13\n");
	test_bound();
	test_runner();
	return unit_done();
}
