# SPDX-License-Identifier: GPL-2.0
"""What a guest's console says: kernel reports (their first lines from
the splats file), stalls, panics, where a crash struck, a boot stuck.
"""

import os
import re
import time

from zc import TOP
from zc.vmbase import read_text


def splat_classes(path=None):
	"""The splats file's patterns (the suite's one list of the kernel's
	report first lines) by class: {class: [pattern]}, a pattern's class
	from the "#: CLASS" line above it."""
	got, cls = {}, ""
	with open(path or os.path.join(TOP, "splats")) as f:
		for line in f:
			line = line.rstrip("\n")
			if line.startswith("#:"):
				cls = line[2:].strip()
			elif line and not line.startswith("#"):
				got.setdefault(cls, []).append(line)
	return got


SPLATS = splat_classes()
# A kernel log line's timestamp, when the console has one.
STAMP = r"(?:\[[ 0-9.]+\] )?"


def splat_re(*classes):
	"""The patterns of these classes (all without one) as one
	alternation."""
	return "|".join(p for c in classes or SPLATS for p in SPLATS.get(c, ()))


# A CPU that got no time (stall), a stall report on a boot's console.
STALL_RE = re.compile(splat_re("stall"))

# A guest silent this long is hung: run_tests.sh in it stops a test at
# its timeout (240 s) and prints a line.
HANG_S = 300

# A guest that has not reached the suite this long after qemu started,
# or that printed this many stall reports before it, is stuck at boot
# (--boot-timeout changes the bound). Debian 6.1.0-57 under TCG on a
# loaded host logged an RCU stall every 21 s of guest time from 22 s on
# and never reached the suite.
BOOT_S = 240
BOOT_STALLS = 3

# The guest's init says this after it sent the results; a guest that
# cannot power off after it (no ACPI halts instead) is ended this long
# after it.
DONE_LINE = "zc-vm: done"

DONE_GRACE_S = 15


def tail_text(path, n=4096):
	"""The last n bytes of a file, as text."""
	try:
		with open(path, "rb") as f:
			f.seek(0, os.SEEK_END)
			f.seek(max(f.tell() - n, 0))
			return f.read().decode("utf-8", "replace")
	except OSError:
		return ""


# The guest's init says this just before the suite starts (or, with
# --exec, the command that stands in for it).
SUITE_START = "zc-vm: run_tests.sh"

EXEC_START = "zc-vm: exec: "


def suite_started(console):
	return SUITE_START in console or EXEC_START in console


PANIC_RE = re.compile(r"^%s((?:%s).*)$" % (STAMP,
					    splat_re("crash", "panic")))
# The kernel stopped: reported however often the suite saw it.
HALT_RE = re.compile(splat_re("panic"))

CASE_LINE_RE = re.compile(r"^# (?:not )?ok [0-9]+ (\S+)")

TEST_LINE_RE = re.compile(r"^# selftests: \S+: (\S+)$")

# an oops's registers and call trace fit in this many lines
CRASH_LINES = 60


def crash_where(console):
	"""(where, lines) of the first panic or oops on a console after
	the suite started: where names the test that was running and the
	last case it had reported ("sockmap_splice, after case
	rate_ingress"), lines are the report itself (its trace included,
	which a console tail of the last lines cuts off), or None."""
	lines = console.splitlines()
	test = case = None
	started = False
	for i, l in enumerate(lines):
		if suite_started(l):
			started = True
		m = TEST_LINE_RE.match(l)
		if m:
			test, case = m.group(1), None
			continue
		m = CASE_LINE_RE.match(l)
		if m:
			case = m.group(1)
			continue
		if not started or not PANIC_RE.match(l.strip()) or \
		   STARVE_RE.match(l.strip()):
			continue
		where = "%s, %s" % (test or "before any test",
				    "after case " + case if case else
				    "in its first case")
		return where, lines[i:i + CRASH_LINES]
	return None


def early_panic(console):
	"""The first line of an oops or panic that came before the suite
	started (a boot that never reached it), else None. Under TCG about
	one boot of Debian's 7.3.4 in 12 dies at ~7 s with an int3 oops in
	sched_clock_tick (text patching racing qemu's MTTCG, not the suite)."""
	for l in console.splitlines():
		if suite_started(l):
			return None
		m = PANIC_RE.match(l.strip())
		if m:
			return m.group(1).strip()[:150]
	return None


def boot_stuck(console, elapsed, bound):
	"""Why a guest that has not started the suite is stuck at boot, or
	None while it may still get there: BOOT_STALLS stall reports (RCU,
	soft lockup) before the suite, or no suite bound seconds after
	qemu started."""
	if suite_started(console):
		return None
	stalls = [l for l in console.splitlines() if STALL_RE.search(l)]
	if len(stalls) >= BOOT_STALLS:
		return "%d stall reports before the suite started, %.0f s " \
			"after boot" % (len(stalls), elapsed)
	if elapsed >= bound:
		return "no suite output %.0f s after boot (--boot-timeout %d s)" % (
			elapsed, bound)
	return None


def stuck_lines(console, n=8):
	"""The console lines that show a stuck boot: the first stall
	reports, then the last lines it printed."""
	lines = [l.rstrip() for l in console.splitlines() if l.strip()]
	stalls = [l for l in lines if STALL_RE.search(l)][:3]
	tail = [l for l in lines[-(n - len(stalls)):] if l not in stalls]
	return stalls + tail


def stopped(console, quiet, limit, why, blind=False):
	"""A guest stopped at its time limit: ("skip", why) when it was still
	making progress with nothing failed so far (this machine is slow),
	("problem", why) when it hung (silent HANG_S, longer than any test
	may run) or had already failed or warned. blind: failures by stall
	reports alone do not count (starve_blind)."""
	failed = RUNNER_FAIL_RE.search(console)
	if failed and blind and runner_fails_starved(console):
		failed = None
	if quiet >= HANG_S:
		return ("problem", "hang: no power-off within %d s (%s; console "
			"silent for %.0f s)" % (limit, why, quiet))
	if failed:
		return ("problem", "stopped at %s after a failure in its output: "
			"%s" % (why, failed.group(0).strip()))
	if unattributed_reports(console, None, blind):
		return ("problem", "stopped at %s after a kernel report" % why)
	return ("skip", "still running at %s, last output %.0f s before: "
		"this machine is too slow or loaded for a verdict" % (why, quiet))


def runner_fails_starved(console):
	"""True when every test the runner failed so far in a console failed
	by stall reports alone: its failed cases' reports, or the reports
	after its last case."""
	cases = CASE_FAIL_RE.findall(console)
	starved = starved_cases(console, "# ")
	if not all(c in starved for c in cases):
		return False
	for line in RUNNER_FAIL_RE.findall(console):
		m = re.search(r"selftests: \S+: (\S+) # (.*)$", line)
		if not m:
			return False
		if m.group(2).startswith("kernel report after its cases"):
			after = reports_after(console, m.group(1))
			if not after or not all(STARVE_RE.match(r) for r in after):
				return False
		elif not cases:
			return False	# a failure no case's report explains
	return True


# The guest's runner already failed a test (the partial console of a
# guest stopped at its time limit).
RUNNER_FAIL_RE = re.compile(r"^not ok [0-9]+ selftests: .*$", re.M)

# A case's failure in a test's output nested in the console.
CASE_FAIL_RE = re.compile(r"^# not ok [0-9]+ (\S+)", re.M)

REPORT_RE = re.compile(r"^%s((?:%s).*)$" % (STAMP, splat_re()))


def unattributed_reports(text, results, blind=False):
	"""The kernel's reports (console, dmesg) that the suite in the guest
	did not attribute: its kmsg watch names each report it saw on the
	case (or binary) that raised it, in a "kmsg:" diagnostic; those
	verdicts are in the matrix already. A panic always counts; a stall
	report does not where stalls measure the host (blind)."""
	# the guest's console carries the runner's output too (a guest
	# stopped at its time limit sends no results)
	seen = "\n".join(l for l in text.splitlines() if "kmsg: " in l)
	for root, _, files in os.walk(results or "/nonexistent"):
		for f in files:
			if f.endswith((".tap", ".log")):
				seen += "\n".join(l for l in read_text(
					os.path.join(root, f)).splitlines()
					if "kmsg: " in l)
	bad = []
	for l in text.splitlines():
		m = REPORT_RE.match(l.strip())
		if not m:
			continue
		first = m.group(1).strip()[:150]
		if blind and STARVE_RE.match(first):
			continue
		if HALT_RE.match(first) or first not in seen:
			bad.append(first)
	return bad


# What the kernel says when a CPU or task got no time: RCU stalls and
# soft lockups (stall), hung tasks (hung).
STARVE_RE = re.compile(r"%s(?:%s)" % (STAMP, splat_re("stall", "hung")))


def starve_blind(clock):
	"""True for a guest whose stall reports measure this host: under
	wall-clock TCG a vCPU is a host thread and guest time is the host's
	clock, so a vCPU the host did not run for 20 s is a 20 s RCU stall
	(Debian 6.1 logged one every 21 s on a loaded host). Under icount
	guest time only moves when the guest runs; under KVM the kernel
	sees steal time."""
	return bool(clock) and clock.startswith("wall ") and \
		" accel=tcg " in clock + " "


def starved_cases(text, nest=""):
	"""{case: its first report} for the cases of a test's log whose
	kernel reports (the "# kmsg: CASE: REPORT" lines the suite prints
	when a report fails a case) are all stall reports; nest: the
	runner's "# " before each line of a test's output (a console)."""
	reports = {}
	head = nest + "# kmsg: "
	for line in text.splitlines():
		if not line.startswith(head):
			continue
		case, sep, rep = line[len(head):].partition(": ")
		if sep and " " not in case:
			reports.setdefault(case, []).append(rep)
	return {c: r[0] for c, r in reports.items()
		if all(STARVE_RE.match(x) for x in r)}


def reports_after(runtap, test):
	"""The kernel reports the runner saw after a test's last case (its
	"# kmsg: after TEST's last case: REPORT" lines)."""
	head = "# kmsg: after %s's last case: " % test
	return [l[len(head):] for l in runtap.splitlines() if l.startswith(head)]
