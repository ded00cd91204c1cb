# SPDX-License-Identifier: GPL-2.0
"""zc-compare BASE NEW: is NEW worse than BASE?

BASE and NEW are results directories (run_tests.sh --out DIR) or plain TAP
logs (a test's stdout or the runner's output), or tools/vmtest -o
directories. Exit codes are made for `git bisect run`: 0 no regression,
1 regression, 125 cannot decide, 128 usage error.
"""

import argparse
import os
import sys

from zc import results as zr
from zc.cmprun import (align_single_logs, clock_mismatch, is_icount, load,
	rename_old_names, select)
from zc.cmpjudge import (ALPHA, EXIT_OK, EXIT_UNDECIDED, EXIT_USAGE,
	ICOUNT_MIN_RUNS, ICOUNT_THRESHOLD, ICOUNT_THRESHOLDS, MIN_RUNS,
	NORMALISE, TEST, THRESHOLD, compare)
from zc.cmpreport import html_report, json_report, text_report


def die(msg, code=EXIT_UNDECIDED):
	sys.stderr.write("zc-compare: %s\n" % msg)
	sys.exit(code)


def pct(s):
	v = zr.parse_float(s)
	if v is None or v < 0:
		raise argparse.ArgumentTypeError("not a non-negative number: %s"
						 % s)
	return v


def prob(s):
	v = zr.parse_float(s)
	if v is None or not 0 < v < 1:
		raise argparse.ArgumentTypeError("not a probability in (0, 1): "
						 "%s" % s)
	return v


def runs_arg(s):
	try:
		v = int(s)
	except ValueError:
		v = 0
	if v < 1 or v > 1000:
		raise argparse.ArgumentTypeError("wants a run count in [1, 1000]")
	return v


def parse_args(argv):
	p = zr.ArgParser(prog="zc-compare", description="Compare two "
			 "zc-selftests runs.", epilog="Exit (for git bisect run): 0 "
			 "no regression, 1 regression, 125 cannot decide (too few "
			 "runs, different clocks, an input missing, unreadable or "
			 "not this suite's, nothing comparable, a case skipped "
			 "for the environment or the harness, zc-compare itself "
			 "failed: one line, the traceback kept), 128 usage error "
			 "(stops a bisect).")
	p.add_argument("base", metavar="BASE", help="results dir, results.json, "
		       "TAP log, or a dir of results dirs (runs pooled)")
	p.add_argument("new", metavar="NEW", nargs="?",
		       help="same kinds as BASE")
	p.add_argument("--check-baseline", action="store_true",
		       help="only check that BASE reads as a side of a "
		       "comparison: exit 0, or 128 with one line saying why "
		       "not (run_tests.sh and vmtest --baseline ask this "
		       "before they run anything)")
	p.add_argument("--threshold", type=pct, metavar="PCT",
		       help="smallest real change in percent, every test "
		       "alike (default %g; when both sides ran under qemu's "
		       "instruction counting, vmtest --icount: %s, %g for "
		       "other tests)" % (THRESHOLD, ", ".join(
			       "%s %g" % kv for kv in sorted(
				       ICOUNT_THRESHOLDS.items())) or "-",
			       ICOUNT_THRESHOLD))
	p.add_argument("--alpha", type=prob, default=ALPHA, metavar="P",
		       help="per-metric significance of the test over runs "
		       "(default %g)" % ALPHA)
	p.add_argument("--test", choices=("t", "rank"), default=TEST,
		       help="t: t-test on log run values; rank: exact "
		       "Mann-Whitney over runs (default %s)" % TEST)
	p.add_argument("--normalise", choices=("speed", "none"),
		       default=NORMALISE, help="divide each repeat by the "
		       "machine speed measured before it (default %s)"
		       % NORMALISE)
	p.add_argument("--only", action="append", default=[],
		       metavar="GLOB", help="compare only metrics, cases, "
		       "tests and zcmodes matching (glob or substring; "
		       "repeatable)")
	p.add_argument("--exclude", action="append", default=[],
		       metavar="GLOB", help="leave out what matches (glob or "
		       "substring; repeatable), e.g. '*.softirq'")
	p.add_argument("--judge-softirq", action="store_true",
		       help="judge the system-wide *.softirq figures too "
		       "(default: shown only)")
	p.add_argument("--min-runs", type=runs_arg, metavar="N",
		       help="runs a side needs before its metrics are judged "
		       "(default %d, %d under icount; 1 judges one run by its "
		       "own repeats)" % (MIN_RUNS, ICOUNT_MIN_RUNS))
	p.add_argument("--allow-short", action="store_true",
		       help="exit 0 rather than 125 when metrics have too "
		       "few runs to judge and nothing else regressed (the "
		       "statuses decide)")
	p.add_argument("--strict", action="store_true",
		       help="exit 125 rather than 0 when a metric is noisy "
		       "or has too few samples")
	p.add_argument("--html", metavar="FILE",
		       help="also write a self-contained HTML report")
	p.add_argument("--all", action="store_true",
		       help="show every metric and status row, unchanged and "
		       "noisy ones too (default: what changed and a summary)")
	p.add_argument("--json", action="store_true",
		       help="print the comparison as JSON instead of text")
	a = p.parse_args(argv)
	if a.check_baseline and a.new is not None:
		p.error("--check-baseline takes BASE only")
	if not a.check_baseline and a.new is None:
		p.error("the following arguments are required: NEW")
	return a


def check_baseline(path):
	"""A baseline that cannot be read is no verdict either way: 128, so
	a bisect stops before it calls every build good or bad."""
	try:
		run = load(path)
	except zr.InputError as e:
		die("baseline %s" % e if str(e).startswith(path) else
		    "baseline %s: %s" % (path, e), EXIT_USAGE)
	except OSError as e:
		die("baseline %s: %s" % (path, e.strerror or e), EXIT_USAGE)
	why = run.get("incomplete") or run.get("unusable")
	if why:
		die("baseline %s is not a whole run: %s" % (path, why), EXIT_USAGE)
	return EXIT_OK


def refuse_incomplete(base, new):
	"""An interrupted or cut-short run says nothing about the kernel:
	one line, cannot decide."""
	for side, run in (("BASE", base), ("NEW", new)):
		if run.get("incomplete"):
			die("cannot decide: %s run is incomplete (%s): %s" % (
				side, run.get("source"), run["incomplete"]))
		if run.get("unusable"):
			die("cannot decide: %s (%s) holds input no measurement "
			    "gives: %s" % (side, run.get("source"), run["unusable"]))


def check_html_target(path):
	"""--html writes a regular file or a new one, nothing else: checked
	before the comparison, so a refusal costs nothing."""
	try:
		st = os.lstat(path)
	except FileNotFoundError:
		return
	except OSError as e:
		die("--html %s: %s" % (path, e.strerror or e))
	if not zr.stat.S_ISREG(st.st_mode):
		die("--html %s: not a regular file (a %s): refusing to write it"
		    % (path, zr.file_kind(st.st_mode)))


def main(argv):
	args = parse_args(argv)
	if args.check_baseline:
		return check_baseline(args.base)
	if args.html:
		check_html_target(args.html)
	try:
		base = load(args.base)
		new = load(args.new)
	except zr.InputError as e:
		die(str(e))
	except OSError as e:
		die("%s" % (e.strerror or e))
	refuse_incomplete(base, new)
	mismatch = clock_mismatch(base, new)
	if mismatch:
		die(mismatch)
	icount = is_icount(base) and is_icount(new)
	if args.threshold is None:
		args.threshold = ICOUNT_THRESHOLD if icount else THRESHOLD
		args.test_thresholds = dict(ICOUNT_THRESHOLDS) if icount else {}
	if args.min_runs is None:
		args.min_runs = ICOUNT_MIN_RUNS if icount else MIN_RUNS
	align_single_logs(base, new)
	names = rename_old_names(base) + rename_old_names(new)
	if names:
		print("# names: %d read in today's names (tools/zc-compare "
		      "RENAMES)" % names)
	select(base, args.only, args.exclude)
	select(new, args.only, args.exclude)
	try:
		rep = compare(base, new, args)
	except zr.InputError as e:
		die(str(e))
	if args.html:
		try:
			zr.write_file(args.html, html_report(rep))
		except zr.InputError as e:
			die("--html %s" % e)
		except OSError as e:
			die("%s: %s" % (args.html, e.strerror or e))
	if args.json:
		sys.stdout.write(json_report(rep))
	else:
		text_report(rep, sys.stdout, args.all)
	return rep["exit"]


def cli():
	"""What tools/zc-compare runs."""
	try:
		sys.exit(main(sys.argv[1:]))
	except KeyboardInterrupt:
		sys.exit(EXIT_UNDECIDED)
	except BrokenPipeError:
		sys.exit(EXIT_UNDECIDED)
	except (RecursionError, OverflowError, ValueError, ZeroDivisionError,
		TypeError, KeyError, AttributeError, MemoryError) as e:
		# Input the checks above let through: still one line, no
		# traceback, and no verdict (check/fuzz_tools.py hunts these).
		tb = e.__traceback__
		while tb.tb_next:
			tb = tb.tb_next
		die("cannot decide: input it cannot use (%s at line %d)" % (
			type(e).__name__, tb.tb_lineno))
