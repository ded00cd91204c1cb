# SPDX-License-Identifier: GPL-2.0
"""vmtest: run zc-selftests on other kernels in qemu and print a matrix.

  tools/vmtest --debian all              Debian's 6.1, 6.12, 6.18, newest 7.x, and this kernel
  tools/vmtest --kernel bzImage --modules /path/to/modules -t tap_copy
  tools/vmtest --debian 6.12 --nic vmxnet3 --no-host
  tools/vmtest --debian newest -t xsk_bind --xdp-nic virtio_net_plain

Each guest kernel boots under qemu (TCG by default) from an initramfs
built around `make install`: busybox-static, the modules the suite needs,
the installed suite and the host binaries run_tests.sh uses. Inside,
run_tests.sh runs the suite over veth, then runs the device-pair tests
again with ZC_PAIR set to two emulated NICs cabled to each other through
a qemu hub (no host networking at all): an e1000e pair for the send paths
(tap_copy, sendzc_notif) and a virtio-net pair with
VIRTIO_F_ACCESS_PLATFORM for AF_XDP (xsk_bind). The results come back as
a tar over a second serial port. The running kernel is run directly as
the first column. Debian packages come through vmtest's own apt lists
under the cache directory; the host's sources are never used.

Exit status: 0 when no kernel crashed, hung or failed a case (and, with
--check, every skip has a reason); 1 otherwise; 2 set-up error; 128 a
usage error (one line, as every command of the suite);
4 when no kernel could run at all for a reason of this machine (no qemu,
no network, no disk, too slow): each such kernel is a "vmtest: SKIP"
line, never a failure, and with others running the exit stays 0. A
guest stuck at boot twice (stall reports, or no suite within
--boot-timeout) is a "vmtest: BOOT-FAIL" line with its console lines,
counted the same way: a boot failure under this emulator, not a verdict.
125 with --kernel-tree when the tree cannot be configured (an option of
config did not survive olddefconfig) or built, or a --patch does not
apply (the last lines of the build log are printed), and whenever
vmtest itself fails (an exception it did not expect: one line, the
traceback kept in the -o folder or a temp file named there).
"""

import argparse
import difflib
import errno
import fnmatch
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import zc as zpkg
from zc import TOP, results as zr, vmbase as base
from zc.vmbase import (ARCHES, DEBIAN, DEBIAN_ALL, DEFAULT_DURATION,
	DEFAULT_REPEAT, DEFAULT_SMP, EXIT_USAGE, EnvSkip, HOST_ARCH, MIN_GUEST_S,
	NICS, NIC_TESTS, XDP_TESTS, arch_of, check_arch_args, die, disk_free, log,
	need_programs, read_text, run)
from zc.vmdebian import Apt, Kernel, fetch_debian, guest_root
from zc.vmtree import build_suite, build_tree, check_tree_args
from zc.vmconsole import BOOT_S, BOOT_STALLS, suite_started
from zc.vmguest import boot, icount_settings, make_pairs
from zc.vmmatrix import (build_matrix, col_pairs, print_matrix, print_reasons,
	verdict)


def run_host(args, suite, workdir):
	"""The running kernel, directly: the matrix's first column."""
	os.makedirs(workdir, exist_ok=True)
	dest = os.path.join(workdir, "results", "suite")
	shutil.rmtree(dest, ignore_errors=True)
	cmd = [os.path.join(TOP, "run_tests.sh"), "-b", args.build, "--out", dest]
	if args.duration:
		cmd += ["--duration", args.duration]
	if args.repeat:
		cmd += ["-r", args.repeat]
	for t in args.test:
		cmd += ["-t", t]
		# the runner's form of --case (ZC_CASE in a guest)
		if args.case:
			cmd += ["--case", "%s/%s" % (t, args.case)]
	env = dict(os.environ)
	env.pop("ZC_PAIR", None)	# never on the host
	env.pop("ZC_CLOCK", None)	# the host runs on the wall clock
	if args.timeout_per_test:
		env["kselftest_override_timeout"] = str(args.timeout_per_test)
	label = os.uname().release
	log("running the suite on this kernel (%s)" % label)
	start = time.time()
	r = run(cmd, env=env, stdin=subprocess.DEVNULL,
		stdout=None if base.verbose else subprocess.DEVNULL)
	out = {"label": "host " + label, "release": label, "problems": [],
	       "seconds": time.time() - start, "workdir": workdir,
	       "results": os.path.join(workdir, "results")}
	if not os.path.isfile(os.path.join(dest, "run.tap")):
		out["problems"].append("run_tests.sh left no run.tap (exit %d)" %
				       r.returncode)
		out["results"] = None
	return out


ICOUNT_HELP = """\
--icount: qemu TCG with -icount shift=SHIFT,sleep=off (default shift 0):
guest time advances 2^SHIFT ns per guest instruction and TCG runs
single-threaded, so a rate is guest bytes per guest instruction, the same
boot after boot whatever else the host runs. It sees how much work the
kernel's path does per byte (instructions: an extra copy, a longer code
path, a lock taken more often). It does not see cycles: cache misses,
memory bandwidth, lock contention between real CPUs, IRQ placement, NIC
hardware; a host run stays the check for those. About 7x slower than
real time. smp, -d and -r default per test (ICOUNT_SETTINGS). Every result
records its clock (run.tap's "# provenance clock" line, results.json's
comparability.clock); zc-compare refuses to judge an icount run against
a wall-clock one.

Exit: 0 no kernel crashed, hung or failed a case; 1 one did; 2 set-up
failed; 4 no kernel could run here for a reason of this machine (no
qemu, a host busybox that cannot run, no network, no disk, too slow:
each a "vmtest: SKIP" line); 125 --kernel-tree could not be configured
or built, or vmtest itself failed (an exception it did not expect: one
line, the traceback in the -o folder or a temp file); 128 usage error,
checked before anything is fetched, built or created (an unknown -t,
a --case that selects no case of the built binaries' --list: the
nearest named). With --baseline (a bisect step): 0 good, 1 bad (a
regression, or the kernel crashed or hung in the suite), 125 cannot
decide (no kernel could run, qemu did not start, the guest never
reached the suite, a binary there exited 128, too few repeats,
different clocks, set-up failed, vmtest failed), 128 usage error or
an unreadable baseline.
"""


def parse_args(argv):
	# Usage errors: one line, exit 128 (outside git bisect's 0-127 and
	# 125, so a bisect stops instead of calling the kernel bad).
	p = zr.ArgParser(
		prog="vmtest", epilog=ICOUNT_HELP,
		formatter_class=argparse.RawDescriptionHelpFormatter,
		description="Run zc-selftests on other kernels in qemu and "
		"print a matrix: one row per case, one column per kernel.")
	p.add_argument("--kernel", action="append", default=[],
		       metavar="VMLINUZ", help="boot this bzImage (repeatable)")
	p.add_argument("--kernel-tree", metavar="TREE",
		       help="configure and build this kernel source tree out "
		       "of the tree (tinyconfig + kvm_guest.config + "
		       "tools/kconfig/vmtest.config + config + --config), "
		       "then boot it; in a bisect: --kernel-tree .")
	p.add_argument("--config", action="append", default=[],
		       metavar="FRAGMENT", help="with --kernel-tree: merge "
		       "this config fragment last (repeatable)")
	p.add_argument("--patch", action="append", default=[], metavar="FILE",
		       help="with --kernel-tree: apply this patch (-p1) to a "
		       "copy of the tree before building (repeatable; the "
		       "tree itself is never written)")
	p.add_argument("--debug", action="store_true",
		       help="with --kernel-tree: a debug kernel (KASAN, "
		       "KFENCE, lockdep, ...: tools/kconfig/debug.config)")
	p.add_argument("--modules", metavar="DIR",
		       help="modules for --kernel (default: found beside it "
		       "or /lib/modules/RELEASE)")
	p.add_argument("--debian", action="append", default=[],
		       metavar="5.10|6.1|6.12|6.18|newest|all|PACKAGE",
		       help="fetch Debian's kernel with apt-get download "
		       "(5.10: bullseye's LTS; newest: the highest 7.x in "
		       "trixie-backports; all: 6.1, 6.12, 6.18 and newest)")
	p.add_argument("-t", "--test", action="append", default=[],
		       help="run only this test (repeatable)")
	p.add_argument("--case", metavar="PATTERN",
		       help="run only the cases matching this glob or "
		       "substring in each test (ZC_CASE), e.g. "
		       "udp4.rate.send_zc_depth8 for a short bisect step")
	p.add_argument("--nic", choices=list(NICS), default="e1000e",
		       help="emulated NIC pair for the send paths "
		       "(default e1000e; none: no pair)")
	p.add_argument("--xdp-nic", choices=list(NICS), default="virtio_net",
		       help="emulated NIC pair for AF_XDP (default virtio_net "
		       "with iommu_platform=on; virtio_net_plain: without it, "
		       "zero-copy advertised but refused; none: no pair)")
	p.add_argument("--xdp-tests", default=",".join(XDP_TESTS),
		       help="tests that run again over the AF_XDP pair "
		       "(default %(default)s)")
	p.add_argument("--nic-tests", default=",".join(NIC_TESTS),
		       help="tests that run again over the NIC pair "
		       "(default %(default)s)")
	p.add_argument("--arch", choices=list(ARCHES), default=HOST_ARCH,
		       help="the guests' architecture (default x86_64): "
		       "Debian's kernels for it, qemu-system-aarch64 -M virt "
		       "or qemu-system-s390x under TCG, the suite "
		       "cross-built (doc/vmtest.md, \"Other "
		       "architectures\")")
	p.add_argument("--no-host", action="store_true",
		       help="no column for the running kernel")
	p.add_argument("-d", "--duration",
		       help="seconds per measured repeat (default %s; "
		       "--icount: per test)" % DEFAULT_DURATION)
	p.add_argument("-r", "--repeat",
		       help="measured repeats per rate (default %s; "
		       "--icount: per test)" % DEFAULT_REPEAT)
	p.add_argument("--timeout", type=int, default=1200,
		       help="seconds one guest may run (default %(default)s)")
	p.add_argument("--budget", type=int, default=0, metavar="SEC",
		       help="seconds for the whole run, downloads included: "
		       "a guest still running at the end, or with less than "
		       "%d s left to start, is skipped as too slow here, "
		       "not failed (default: none)" % MIN_GUEST_S)
	p.add_argument("--boot-timeout", type=int, default=BOOT_S,
		       metavar="SEC", help="a guest not in the suite this "
		       "long after boot (or after %d stall reports) is "
		       "stuck: booted once more, then a boot failure, not a "
		       "test verdict (default %%(default)s)" % BOOT_STALLS)
	p.add_argument("--timeout-per-test", type=int, default=0,
		       metavar="SEC", help="override settings' timeout=")
	p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg")
	p.add_argument("--retry-panic", action="store_true",
		       help="boot a guest that panicked mid-suite once more "
		       "(its report printed first); for checks of the suite "
		       "on packaged kernels, not for judging a kernel")
	p.add_argument("--tcg-threads", choices=("single", "multi"),
		       default="single",
		       help="wall-clock TCG: all vCPUs on one host thread "
		       "(default), or a thread each, for races that need "
		       "vCPUs running at once (a stale translation of "
		       "patched code may then oops a sound guest)")
	p.add_argument("--icount", nargs="?", type=int, const=0,
		       metavar="SHIFT", help="count instructions instead of "
		       "time (TCG, -icount shift=SHIFT,sleep=off, default "
		       "shift 0): see below")
	p.add_argument("--smp", type=int, help="vCPUs (default %d; "
		       "--icount: per test)" % DEFAULT_SMP)
	p.add_argument("--mem", type=int, default=1024, metavar="MiB")
	p.add_argument("--append", default="", help="extra kernel arguments")
	p.add_argument("--cache", default=os.environ.get(
		"ZC_VMTEST_CACHE",
		os.path.join(os.path.expanduser("~"), ".cache", "zc-vmtest")),
		help="downloaded kernels (default %(default)s)")
	p.add_argument("--build", help="make O= directory "
		       "(default CACHE/build-HASH, one a source tree)")
	p.add_argument("--rev", metavar="GIT-REV",
		       help="build this commit (git archive) instead of the "
		       "work tree")
	p.add_argument("-o", "--out", help="keep consoles, initramfs and "
		       "results here (default: a new /tmp/zc-vmtest.* dir)")
	p.add_argument("--exec", dest="exec_cmd", metavar="CMD",
		       help="debugging: run this bash command in each guest "
		       "(in the installed suite, $PAIR and $XDP_PAIR name "
		       "the NIC pairs) "
		       "instead of the suite; its output is in the console")
	p.add_argument("--add", action="append", metavar="FILE",
		       help="copy FILE into the guest as /zc/add/NAME, for "
		       "--exec (repeatable; a static binary needs no "
		       "libraries there)")
	p.add_argument("--report", metavar="DIR", action="append",
		       help="print the matrix of an earlier -o DIR again "
		       "(repeatable: the columns of each, side by side)")
	p.add_argument("--check", action="store_true",
		       help="also fail on a skip without a reason")
	p.add_argument("--baseline", metavar="DIR",
		       help="bisect step: boot the one kernel given, run, and "
		       "compare with DIR (an earlier -o DIR, a results "
		       "directory or a pool) through tools/zc-compare; exit "
		       "0 good, 1 bad, 125 cannot decide, 128 usage error "
		       "or unreadable DIR (checked before anything boots); "
		       "implies --no-host")
	p.add_argument("--strict", action="store_true",
		       help="with --baseline: zc-compare --strict (a noisy "
		       "metric is 125)")
	p.add_argument("--only", action="append", default=[], metavar="GLOB",
		       help="with --baseline: zc-compare --only (repeatable)")
	p.add_argument("--allow-short", action="store_true",
		       help="with --baseline: zc-compare --allow-short")
	p.add_argument("-v", "--verbose", action="store_true",
		       help="show the guest consoles and commands")
	a = p.parse_args(argv)
	if a.tcg_threads == "multi" and (a.accel != "tcg" or
					 a.icount is not None):
		p.error("--tcg-threads multi is for wall-clock TCG: not with "
			"--accel kvm or --icount")
	if a.icount is not None:
		if a.accel != "tcg":
			p.error("--icount needs --accel tcg")
		if not 0 <= a.icount <= 10:
			p.error("--icount wants a shift in [0, 10]")
		smp, dur, rep = icount_settings(a.test)
	else:
		smp, dur, rep = DEFAULT_SMP, DEFAULT_DURATION, DEFAULT_REPEAT
	a.smp = smp if a.smp is None else a.smp
	a.duration = dur if a.duration is None else a.duration
	a.repeat = rep if a.repeat is None else a.repeat
	series = []
	for d in a.debian:
		for s in d.split(","):
			if s == "all":
				series += list(DEBIAN_ALL)
			elif s in DEBIAN or re.match(r"^linux-image-[\w.+~-]+$", s):
				series.append(s)
			else:
				p.error("--debian: unknown series '%s' (%s, all or a "
					"linux-image-* package name)" %
					(s, ", ".join(DEBIAN)))
	a.debian = list(dict.fromkeys(series))
	if a.baseline is not None:
		if len(a.debian) + len(a.kernel) + bool(a.kernel_tree) != 1:
			p.error("--baseline compares one kernel: give one "
				"--kernel, --kernel-tree or --debian series")
		if a.report or a.exec_cmd:
			p.error("--baseline runs the suite: not with --report "
				"or --exec")
		a.no_host = True
	elif a.strict or a.only or a.allow_short:
		p.error("--strict, --only and --allow-short need --baseline")
	for g in a.only:
		if not g:
			p.error("--only wants a glob")
	if not a.debian and not a.kernel and not a.kernel_tree and \
	   a.no_host and not a.report:
		p.error("nothing to run: give --debian, --kernel or --kernel-tree")
	if not re.match(r"^[0-9]*\.?[0-9]+$", a.duration):
		p.error("-d wants seconds")
	if not re.match(r"^[1-9][0-9]*$", a.repeat):
		p.error("-r wants a count")
	if a.timeout < 30 or a.smp < 1 or a.mem < 256 or a.budget < 0:
		p.error("--timeout >= 30, --smp >= 1, --mem >= 256, --budget >= 0")
	if a.boot_timeout < 1:
		p.error("--boot-timeout >= 1")
	for f in a.add or []:
		if not os.path.isfile(f):
			p.error("--add: no file %s" % f)
	a.deadline = 0
	a.bootfails = []
	for t in a.test:
		if not re.match(r"^[A-Za-z0-9_]+$", t):
			p.error("bad test name '%s'" % t)
	# The tests are tests/*.c (the Makefile's TEST_NAMES): a name that
	# is none of them is known before a kernel or the suite is built.
	srcs = os.path.join(TOP, "tests")
	known = sorted(f[:-2] for f in os.listdir(srcs) if f.endswith(".c")) \
		if os.path.isdir(srcs) and not a.rev else []
	for t in a.test:
		if known and t not in known:
			p.error("no test named '%s' (nearest: %s; tests: %s)" % (
				t, nearest(t, known), " ".join(known)))
	for k in a.kernel:
		if not os.path.isfile(k):
			p.error("--kernel %s: no such file" % k)
	if a.modules and not os.path.isdir(a.modules):
		p.error("--modules %s: no such directory" % a.modules)
	if a.out and os.path.exists(a.out) and not os.path.isdir(a.out):
		p.error("-o %s: not a directory" % a.out)
	if a.case is not None and not re.match(r"^[A-Za-z0-9_.*?\[\]-]+$",
						a.case):
		p.error("--case wants a glob of case names, got '%s'" % a.case)
	a.nic_tests = [t for t in a.nic_tests.split(",") if t]
	a.xdp_tests = [t for t in a.xdp_tests.split(",") if t]
	for t in a.nic_tests + a.xdp_tests:
		if not re.match(r"^[A-Za-z0-9_]+$", t):
			p.error("bad test name '%s'" % t)
	check_arch_args(p, a, argv)
	a.pairs = make_pairs(a)
	a.cache = os.path.abspath(a.cache)
	check_tree_args(p, a)
	# One build directory a source tree: runs from two trees at once
	# (a bisect step beside a work tree) never mix their binaries.
	tree = hashlib.sha1(os.path.realpath(TOP).encode()).hexdigest()[:12]
	a.build = os.path.abspath(a.build or
				  os.path.join(a.cache, "build-" + tree))
	if a.case is not None:
		check_case(p, a, known)
	return a


def nearest(word, names):
	"""The name closest to a mistyped word, for a one-line refusal."""
	near = difflib.get_close_matches(word, names, 1, 0.0)
	return near[0] if near else "none"


def case_matches(pat, name):
	"""zc_case_selected's rule (lib/core/runner.c): a glob, or a plain
	substring when the pattern has no glob character."""
	if fnmatch.fnmatchcase(name, pat):
		return True
	return not re.search(r"[*?[]", pat) and pat in name


def newest_source(test):
	"""mtime of the newest file test's binary is built from: lib/, bpf/
	and its own tests/TEST.c (make relinks only the binaries whose
	sources changed, so another test's edit does not make it stale)."""
	paths = [os.path.join(TOP, "tests", test + ".c")]
	for sub in ("lib", "bpf"):
		for d, _, files in os.walk(os.path.join(TOP, sub)):
			paths += [os.path.join(d, f) for f in files]
	newest = 0
	for f in paths:
		try:
			newest = max(newest, os.path.getmtime(f))
		except OSError:
			pass
	return newest


def case_lists(dirs, tests, fresh=None):
	"""{test: [case...]} from the --list of the binaries in the first of
	dirs that holds every test built no older than fresh(test), else
	None (nothing built yet, or built from older sources)."""
	for d in dirs:
		lists = {}
		for t in tests:
			b = os.path.join(d, t)
			try:
				if fresh and os.path.getmtime(b) < fresh(t):
					break
				r = subprocess.run([b, "--list"], capture_output=True,
						   text=True, timeout=30,
						   stdin=subprocess.DEVNULL)
			except (OSError, subprocess.SubprocessError):
				break
			if r.returncode:
				break
			lists[t] = r.stdout.split()
		else:
			return lists
	return None


def case_problem(a, lists):
	"""Why --case cannot run as given (one line), or None; with no -t,
	a.test becomes the tests that have a matching case, so no binary in
	a guest gets a pattern that selects nothing (its exit 128 would be
	a failed test there)."""
	hit = [t for t in sorted(lists)
	       if any(case_matches(a.case, c) for c in lists[t])]
	names = [c for t in sorted(lists) for c in lists[t]]
	if not hit:
		return "--case '%s' selects no case of %s (nearest: %s; see " \
			"TEST --list)" % (a.case, ", ".join(sorted(lists)),
					  nearest(a.case.strip("*?"), names))
	miss = [t for t in sorted(lists) if t not in hit]
	if a.test and miss:
		return "--case '%s' selects no case of -t %s (nearest there: " \
			"%s)" % (a.case, miss[0],
				 nearest(a.case.strip("*?"), lists[miss[0]]))
	if miss:
		log("--case %s: running only %s (the tests with a matching "
		    "case)" % (a.case, " ".join(hit)))
	a.test = hit
	return None


def check_case(p, a, known):
	"""--case against the suite's case list before anything is fetched,
	built or created: the binaries vmtest builds into, else the
	installed tree's or the work tree's build/, when they are up to
	date with the sources. Without them the check waits for the suite's
	build (check_case_built)."""
	tests = a.test or known
	if a.rev or not tests:
		return
	# an installed tree holds its binaries beside run_tests.sh
	dirs = [a.build, os.path.join(TOP, "build")]
	if os.path.isfile(os.path.join(TOP, "kselftest-list.txt")):
		dirs.insert(1, TOP)
	lists = case_lists(dirs, tests, newest_source)
	if lists is None:
		return
	a.case_checked = True
	why = case_problem(a, lists)
	if why:
		p.error(why)


def check_case_built(args, suite, out, made):
	"""--case against the binaries just built, before any guest boots,
	when check_case had none to ask: 128, and the folder this run made
	removed."""
	if args.case is None or getattr(args, "case_checked", False):
		return
	known = read_text(os.path.join(suite, "kselftest-list.txt"))
	tests = args.test or [l.split(":", 1)[-1] for l in known.split()]
	lists = case_lists([suite], tests)
	why = case_problem(args, lists) if lists else None
	if why:
		if made:
			shutil.rmtree(out, ignore_errors=True)
		die(why + " (try --help)", EXIT_USAGE)


def main(argv):
	args = parse_args(argv)
	base.verbose = args.verbose
	if args.baseline is not None:
		base.die_code = 125
		check_baseline(args.baseline)
	started = time.time()
	if args.budget:
		args.deadline = started + args.budget
	if args.report:
		return report_again(zr, args)
	out = args.out or tempfile.mkdtemp(prefix="zc-vmtest.", dir="/tmp")
	os.makedirs(out, exist_ok=True)
	out = os.path.abspath(out)
	zpkg.trace_dir = out
	kernels, skipped = find_kernels(args)
	if not kernels and args.no_host:
		save_run(out, [], skipped, args.bootfails)
		rc = report(zr, args, [], out, time.time() - started, skipped,
			    args.bootfails)
		# a bisect step whose kernel this machine could not run
		if args.baseline is not None:
			return bisect_verdict(args, [], skipped, out)
		return rc
	stage = tempfile.mkdtemp(prefix="zc-vmtest-stage.", dir="/tmp")
	try:
		suite = build_suite(args, stage)
		known = read_text(os.path.join(suite, "kselftest-list.txt"))
		known = [l.split(":", 1)[-1] for l in known.split()]
		for t in args.test:
			if t not in known:
				die("no test named '%s' (tests: %s)" %
				    (t, " ".join(known)), EXIT_USAGE)
		check_case_built(args, suite, out, not args.out)
		cols = []
		if not args.no_host:
			cols.append(run_host(args, suite, os.path.join(out, "host")))
		for k in kernels:
			wd = os.path.join(out, re.sub(r"[^\w.+-]", "_", k.label))
			col = boot_or_skip(args, k, suite, wd, skipped)
			if col:
				cols.append(col)
				save_column(col)
	finally:
		shutil.rmtree(stage, ignore_errors=True)
	save_run(out, cols, skipped, args.bootfails)
	rc = report(zr, args, cols, out, time.time() - started, skipped,
		    args.bootfails)
	if args.baseline is not None:
		return bisect_verdict(args, cols, skipped, out)
	return rc


ZC_COMPARE = os.path.join(TOP, "tools", "zc-compare")


def check_baseline(path):
	"""Exit 128 before anything boots when zc-compare cannot read the
	baseline (it says why in one line)."""
	try:
		r = subprocess.run([ZC_COMPARE, "--check-baseline", path],
				   stdin=subprocess.DEVNULL)
	except OSError as e:
		die("cannot run %s: %s" % (ZC_COMPARE, e), 125)
	if r.returncode == 0:
		return
	if r.returncode != EXIT_USAGE:
		die("zc-compare --check-baseline exited %d" % r.returncode, 125)
	sys.exit(EXIT_USAGE)


def bisect_verdict(args, cols, skipped, out):
	"""--baseline: git bisect run's answer for the one kernel booted.
	Only a kernel that reached the suite gets a verdict: one that
	crashed or hung in it is bad (1), else zc-compare decides; a qemu
	that did not start, a guest that never reached the suite, a run cut
	short by this machine is 125."""
	if not cols:
		why = skipped[0][1] if skipped else \
			"stuck at boot: " + args.bootfails[0][1] \
			if args.bootfails else "no kernel ran"
		log("--baseline: cannot decide (exit 125): %s" % why)
		return 125
	col = cols[0]
	console = read_text(os.path.join(col["workdir"], "console.log"))
	if not suite_started(console):
		log("--baseline: cannot decide (exit 125): the guest never "
		    "reached the suite (%s)" % "; ".join(col["problems"] or
							  ["no problem seen"]))
		return 125
	if col.get("silent"):
		log("--baseline: cannot decide (exit 125): the guest's %s; "
		    "its last lines:" % col["silent"])
		for l in (col.get("console_tail") or [])[-8:]:
			log("  " + l)
		return 125
	bad = [p for p in col["problems"] if p.startswith(("kernel:", "hang"))]
	if bad:
		log("--baseline: bad (exit 1): %s" % bad[0])
		return 1
	if not col.get("results"):
		log("--baseline: cannot decide (exit 125): no results (%s)" %
		    "; ".join(col["problems"]))
		return 125
	usage = guest_usage_errors(col["results"])
	if usage:
		log("--baseline: cannot decide (exit 125): %s exited 128 in the "
		    "guest: a usage error of the harness (an option or --case "
		    "pattern it refused), not the kernel's" % usage[0])
		return 125
	cmd = [ZC_COMPARE] + (["--strict"] if args.strict else []) + \
		(["--allow-short"] if args.allow_short else []) + \
		[x for g in args.only for x in ("--only", g)] + \
		[args.baseline, out]
	sys.stdout.write("\n")
	sys.stdout.flush()
	try:
		r = subprocess.run(cmd, stdin=subprocess.DEVNULL)
	except OSError as e:
		log("--baseline: cannot run zc-compare: %s" % e)
		return 125
	if r.returncode in (0, 1, 125):
		return r.returncode
	log("--baseline: zc-compare exited %d: cannot decide" % r.returncode)
	return 125


RE_GUEST_USAGE = re.compile(r"^not ok \d+ selftests: \S+: (\S+) # exit=128$",
			    re.M)


def guest_usage_errors(results):
	"""The tests a guest's run_tests.sh saw exit 128 (usage): what the
	harness asked of a binary, never a verdict on the kernel."""
	bad = []
	for d, _, files in os.walk(results):
		if "run.tap" in files:
			bad += RE_GUEST_USAGE.findall(read_text(os.path.join(
				d, "run.tap")))
	return bad


def save_run(out, cols, skipped, bootfails=()):
	"""What --report DIR reads back."""
	with open(os.path.join(out, "columns"), "w") as f:
		f.write("".join(os.path.basename(c["workdir"]) + "\n"
				for c in cols))
	with open(os.path.join(out, "skipped.json"), "w") as f:
		json.dump(skipped, f)
	with open(os.path.join(out, "bootfail.json"), "w") as f:
		json.dump(bootfails, f)


def find_kernels(args):
	"""The kernels to boot, and [label, reason] of those this machine
	cannot get or run (no qemu, no network, no disk)."""
	kernels, skipped = [], []
	if not (args.debian or args.kernel or args.kernel_tree):
		return kernels, skipped
	try:
		need_programs(args)
		if args.arch != HOST_ARCH:
			guest_root(args)
	except EnvSkip as e:
		return kernels, [[s, str(e)] for s in args.debian + args.kernel +
				 ([args.kernel_tree] if args.kernel_tree else [])]
	os.makedirs(args.cache, exist_ok=True)
	apt = Apt(args.cache, arch_of(args)["deb"]) if args.debian else None
	for s in args.debian:
		try:
			kernels.append(Kernel(fetch_debian(args.cache, apt, s)))
		except EnvSkip as e:
			skipped.append([s, str(e)])
		except OSError as e:
			if e.errno not in (errno.ENOSPC, errno.EDQUOT):
				raise
			skipped.append([s, "%s (%s)" % (e, disk_free(args.cache))])
	for k in args.kernel:
		kernels.append(Kernel(k, os.path.abspath(args.modules)
				      if args.modules else None))
	if args.kernel_tree:
		kernels.append(build_tree(args))
	return kernels, skipped


def boot_or_skip(args, k, suite, wd, skipped):
	"""boot(), or None with [label, reason] added to skipped when the
	budget is spent, the disk is full or the guest was too slow."""
	left = args.deadline - time.time() if args.deadline else MIN_GUEST_S
	if left < MIN_GUEST_S:
		skipped.append([k.label, "not started: %.0f s left of the "
				"--budget of %d s (this machine is too slow or "
				"loaded)" % (max(left, 0), args.budget)])
		return None
	try:
		col = boot_again(args, k, suite, wd)
	except EnvSkip as e:
		skipped.append([k.label, str(e)])
		return None
	except OSError as e:
		if e.errno not in (errno.ENOSPC, errno.EDQUOT):
			raise
		skipped.append([k.label, "%s (%s)" % (e, disk_free(wd))])
		return None
	if col.get("skip"):
		skipped.append([k.label, col["skip"]])
		return None
	if col.get("bootfail"):
		args.bootfails.append([k.label, col["bootfail"]["reason"],
				       col["bootfail"]["lines"]])
		return None
	return col


def boot_again(args, k, suite, wd):
	"""boot(), once more when the guest panicked or was stuck before the
	suite started; a second such panic, or one after the suite started,
	is the kernel's and fails as any panic does. Stuck twice is a boot
	failure under this emulator (col["bootfail"]), not a test verdict."""
	col = boot(args, k, suite, wd)
	if col.get("boot_stuck"):
		return stuck_again(args, k, suite, wd, col)
	first = col.get("early_panic")
	if not first:
		return crashed_again(args, k, suite, wd, col)
	log("%s: panicked before the suite started (%s); booting once more" %
	    (k.label, first))
	con = os.path.join(wd, "console.log")
	if os.path.exists(con):
		os.replace(con, os.path.join(wd, "console.first.log"))
	col = boot(args, k, suite, wd)
	col["first_boot"] = "panicked before the suite started: " + first
	return col


def crashed_again(args, k, suite, wd, col):
	"""With --retry-panic (make vmcheck: Debian's kernels, a check of
	the suite, not of them), a guest that panicked mid-suite is booted
	once more; its report is printed whole first, so the log keeps the
	kernel's fault. A second panic fails as any panic does."""
	if not args.retry_panic or not col.get("crash_where") or \
	   not any(p.startswith("kernel:") for p in col["problems"]):
		return col
	log("%s: panicked during %s; booting once more (--retry-panic), "
	    "the report:" % (k.label, col["crash_where"]))
	for l in col.get("console_tail", []):
		log("  | " + l)
	con = os.path.join(wd, "console.log")
	if os.path.exists(con):
		os.replace(con, os.path.join(wd, "console.first.log"))
	again = boot(args, k, suite, wd)
	first = [p for p in col["problems"] if p.startswith("kernel:")][0]
	again["first_boot"] = "panicked during %s: %s" % (
		col["crash_where"], first[len("kernel: "):])
	return again


def stuck_again(args, k, suite, wd, col):
	"""The guest was stuck at boot: boot it once more; stuck again, it
	is a boot failure with the console lines of both boots."""
	first = col["boot_stuck"]
	log("%s: stuck at boot (%s); booting once more" % (k.label, first))
	con = os.path.join(wd, "console.log")
	if os.path.exists(con):
		os.replace(con, os.path.join(wd, "console.first.log"))
	again = boot(args, k, suite, wd)
	again["first_boot"] = "stuck at boot: " + first
	if again.get("boot_stuck"):
		again["bootfail"] = {
			"reason": "stuck at boot twice under %s: %s; then %s" % (
				args.accel, first, again["boot_stuck"]),
			"lines": col["boot_lines"] + ["-- booted once more:"] +
			again["boot_lines"]}
	return again


def load_bootfails(out):
	"""[label, reason, console lines] of the guests stuck at boot."""
	try:
		with open(os.path.join(out, "bootfail.json")) as f:
			return json.load(f)
	except (OSError, ValueError):
		return []


def load_skipped(out):
	try:
		with open(os.path.join(out, "skipped.json")) as f:
			return json.load(f)
	except (OSError, ValueError):
		return []


def save_column(col):
	keep = dict((k, v) for k, v in col.items() if k != "results")
	with open(os.path.join(col["workdir"], "column.json"), "w") as f:
		json.dump(keep, f, indent=1)


def report_again(zr, args):
	"""--report DIR...: the matrix of earlier runs, their columns side
	by side (a label seen twice gets a #2)."""
	cols, skipped, bootfails, seen = [], [], [], {}
	for d in args.report:
		out = os.path.abspath(d)
		for c in load_columns(out):
			n = seen[c["label"]] = seen.get(c["label"], 0) + 1
			if n > 1:
				c["label"] += "#%d" % n
			cols.append(c)
		skipped += load_skipped(out)
		bootfails += load_bootfails(out)
	out = ", ".join(os.path.abspath(d) for d in args.report)
	return report(zr, args, cols, out, sum(c["seconds"] for c in cols),
		      skipped, bootfails)


def load_columns(out):
	cols = []
	names = read_text(os.path.join(out, "columns")).split()
	if not names and not os.path.isfile(os.path.join(out, "skipped.json")):
		die("%s: no columns file (not a vmtest -o directory)" % out,
		    EXIT_USAGE)
	for n in names:
		wd = os.path.join(out, n)
		try:
			with open(os.path.join(wd, "column.json")) as f:
				col = json.load(f)
		except (OSError, ValueError) as e:
			die("%s: %s" % (wd, e))
		col["workdir"] = wd
		res = os.path.join(wd, "results")
		col["results"] = res if os.path.isdir(res) else None
		cols.append(col)
	return cols


def report_bootfails(bootfails, f):
	"""Guests stuck at boot twice: apart from the tests' verdicts, with
	the console lines that show it."""
	if not bootfails:
		return
	f.write("\nboot failures (under this emulator, not a verdict of "
		"the kernel's tests):\n")
	for label, reason, lines in bootfails:
		f.write("  vmtest: BOOT-FAIL %s: %s\n" % (label, reason))
		for l in lines:
			f.write("    | %s\n" % l)


def report(zr, args, cols, out, total, skipped, bootfails=()):
	rows, data = build_matrix(zr, cols)
	if cols:
		sys.stdout.write("\n")
		print_matrix(cols, rows, data, sys.stdout)
		print_reasons(cols, rows, data, sys.stdout)
	sys.stdout.write("\ntimes: %s; total %.0f s\n" % (
		", ".join("%s %.0f s" % (c["label"], c["seconds"]) for c in cols)
		or "no kernel ran", total))
	for c in cols:
		for key, sfx, p in col_pairs(c):
			f = os.path.join(c.get("results") or "", key, "pair")
			if os.path.isfile(f):
				sys.stdout.write("%s: NIC pair %s (%s) %s: %s\n" % (
					c["label"], sfx[1:], p.get("device", p["nic"]),
					read_text(f).strip(), p["role"]))
	for c in cols:
		if c.get("clock"):
			sys.stdout.write("%s: clock %s\n" % (c["label"], c["clock"]))
	for c in cols:
		if c.get("first_boot"):
			sys.stdout.write("%s: first boot %s; booted once more "
					 "(its console: console.first.log)\n" %
					 (c["label"], c["first_boot"]))
	bad = verdict(cols, rows, data, args.check)
	for c in cols:
		if any(p.startswith(("hang", "no results", "kernel:"))
		       for p in c["problems"]):
			sys.stdout.write("\n%s %s (%s):\n" % (
				c["label"], "report during " + c["crash_where"]
				if c.get("crash_where") else "console tail",
				os.path.join(c["workdir"], "console.log")))
			for l in c.get("console_tail", []):
				sys.stdout.write("  | " + l + "\n")
	sys.stdout.write("\nlogs: %s\n" % out)
	if skipped:
		sys.stdout.write("\nskipped (this machine, not a kernel or the "
				 "suite):\n" + "".join(
					 "  vmtest: SKIP %s: %s\n" % (l, r)
					 for l, r in skipped))
	report_bootfails(bootfails, sys.stdout)
	if bad:
		sys.stdout.write("\nproblems:\n" + "".join("  " + b + "\n"
							   for b in bad))
		sys.stdout.write("vmtest: FAIL\n")
		return 1
	if bootfails and not cols:
		sys.stdout.write("vmtest: SKIP: no kernel reached its suite "
				 "here (boot failures above)\n")
		return 4
	skipped = list(skipped) + list(bootfails)
	if skipped and not cols:
		sys.stdout.write("vmtest: SKIP: no kernel could run here\n")
		return 4
	sys.stdout.write("vmtest: ok%s\n" % (
		" (%d of %d kernels skipped, above)" % (
			len(skipped), len(skipped) + len(cols)) if skipped else ""))
	return 0


def cli():
	"""What tools/vmtest runs."""
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	try:
		sys.exit(main(sys.argv[1:]))
	except KeyboardInterrupt:
		sys.exit(130)
