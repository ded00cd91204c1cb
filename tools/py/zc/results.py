# SPDX-License-Identifier: GPL-2.0
"""zc-results DIR: turn the TAP logs of `run_tests.sh --out DIR` into
DIR/results.json, DIR/result.txt (LKFT) and DIR/squad.json.

This module is also the TAP/metric parser zc-compare and vmtest import, so the
tools can never disagree about what a log says.
"""

import argparse
import datetime
import json
import os
import platform
import re
import stat
import subprocess
import sys
import tempfile

import zc as zpkg
from zc import TOP
from zc.provenance import add_metadata

FORMAT = "zc-results/1"
# The results.json formats these tools read: a newer one is refused,
# never half understood.
KNOWN_FORMATS = (FORMAT,)
SUITE = "zc"

# Direction of a unit: +1 higher is better, -1 lower is better.
UNIT_DIRECTION = {
	"MB/s": 1, "GB/s": 1, "Gbit/s": 1, "Mbit/s": 1,
	"Mpps": 1, "kpps": 1, "pps": 1, "ops/s": 1, "ratio": 1,
	"cpu-s/GB": -1, "ns/pkt": -1, "ns": -1, "us": -1, "ms": -1, "s": -1,
}

ZC_MODES = ("zerocopy", "mixed", "copied", "none")

RE_RESULT = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*(?:-\s+)?(.*)$")
RE_PLAN = re.compile(r"^(\d+)\.\.(\d+)\s*(?:#\s*(.*))?$")
RE_RUNNER_HDR = re.compile(r"^# selftests: (\S+): (\S+)\s*$")
RE_RUNNER_NAME = re.compile(r"^selftests: (\S+): (\S+)$")
RE_TOTALS = re.compile(r"^Totals:\s*(.*)$")
RE_BAIL = re.compile(r"^Bail out!\s*(.*)$")
# A runner's line for the test a signal cut short (run_tests.sh): a SKIP
# for TAP readers, "interrupted" here.
INTERRUPTED = "interrupted"


EXIT_USAGE = 128


class ArgParser(argparse.ArgumentParser):
	"""argparse under the suite's usage contract, for every Python tool:
	a usage error is one line naming the problem and --help, exit 128."""

	def error(self, message):
		sys.stderr.write("%s: %s (try --help)\n" % (self.prog, message))
		sys.exit(EXIT_USAGE)

	def parse_args(self, args=None, namespace=None):
		# An unknown option is the problem to name, before any
		# missing argument argparse would complain about first.
		argv = sys.argv[1:] if args is None else list(args)
		for a in argv:
			if a == "--":
				break
			opt = a.split("=", 1)[0]
			if a.startswith("-") and len(a) > 1 and \
			   not a[1:].replace(".", "").isdigit() and \
			   opt not in self._option_string_actions and \
			   not (not a.startswith("--") and
				a[:2] in self._option_string_actions):
				self.error("unknown option '%s'" % opt)
		return super().parse_args(argv, namespace)


class InputError(Exception):
	"""Input the tools cannot use; str() is the one-line message."""


class ForeignError(InputError):
	"""Input that is not this suite's output, or a format this version
	does not know: refused outright, never read around."""


def ours(collection):
	"""This suite's kselftest collection: zc standalone, <dir>/zc in a
	kernel tree (net/zc)."""
	return collection == SUITE or collection.endswith("/" + SUITE)


def check_format(run, path):
	"""Refuse a results.json of a format version this tool does not know."""
	fmt = run.get("format") if isinstance(run, dict) else None
	if not isinstance(fmt, str) or not fmt.startswith("zc-results/"):
		raise ForeignError("%s: not a zc-results file" % path)
	if fmt not in KNOWN_FORMATS:
		raise ForeignError("%s: format %s is unknown to this version "
				   "(it reads %s)" % (path, fmt,
						      ", ".join(KNOWN_FORMATS)))


def unit_direction(unit):
	"""+1 higher is better, -1 lower is better, 0 unknown."""
	if unit in UNIT_DIRECTION:
		return UNIT_DIRECTION[unit]
	if unit.endswith("/s") or unit.endswith("pps"):
		return 1
	if "/" in unit and unit.split("/")[0] in ("ns", "us", "ms", "s",
						   "cpu-s", "cpu-ns"):
		return -1
	return 0


def median(v):
	s = sorted(v)
	n = len(s)
	if not n:
		return None
	if n % 2:
		return s[n // 2]
	# halves first: two values near the float limit sum to inf
	return s[n // 2 - 1] / 2 + s[n // 2] / 2


KSFT_PASS, KSFT_FAIL, KSFT_XFAIL, KSFT_XPASS, KSFT_SKIP = 0, 1, 2, 3, 4


def ktap_exit_code(statuses):
	"""The exit code a binary with these case statuses returns: the rule
	of lib/core/ktap.c's ktap_exit_code(), so a log read alone gets the
	status run_tests.sh gives that exit (0 pass, 4 skip, else fail)."""
	if "fail" in statuses or "error" in statuses:
		return KSFT_FAIL
	for status, rc in (("pass", KSFT_PASS), ("xpass", KSFT_XPASS),
			   ("xfail", KSFT_XFAIL), ("skip", KSFT_SKIP)):
		if status in statuses:
			return rc
	return KSFT_PASS


def split_directive(rest):
	"""'name # DIR reason' -> (name, directive or None)."""
	if " #" in rest or rest.startswith("#"):
		idx = rest.find("#") if rest.startswith("#") else rest.find(" #")
		return rest[:idx].strip(), rest[idx:].lstrip(" #").strip()
	return rest.strip(), None


def result_status(ok, directive):
	"""(status, reason) of a TAP result line."""
	if directive:
		word, _, reason = directive.partition(" ")
		key = word.upper()
		if key == "SKIP":
			return "skip", reason.strip()
		if key == "XFAIL":
			return "xfail", reason.strip()
		if key == "XPASS":
			return "xpass", reason.strip()
		if key == "TODO":
			return ("xpass" if ok else "xfail"), reason.strip()
		if not ok:
			return "fail", directive
	return ("pass" if ok else "fail"), ""


# Skip reasons that name the machine a run had, not what the kernel did:
# a missing capability or root, a kernel option the build left out, a
# limit (memlock, open files), a sysctl or seccomp/LSM refusal, a device's
# features, a cause the test itself marks "environment: ...". A case that
# goes from pass to such a skip says nothing about the kernel's code (a
# forgotten sudo), so zc-compare cannot decide on it; "kernel lacks ..."
# is the kernel's behaviour and stays a change that can regress.
ENV_SKIP = (
	("environment", r"^environment:"),
	("capabilities", r"\bneeds (CAP_[A-Z_]+|root)\b|\bCAP_[A-Z_]+ in the "
	 r"initial user namespace"),
	("kernel config", r"\bCONFIG_[A-Z0-9_]+ (is )?not set\b"),
	("resource limit", r"\bmemlock\b|\bRLIMIT_[A-Z]+\b|\bCAP_IPC_LOCK\b"),
	("sysctl", r"\bkernel\.io_uring_disabled=[1-9]"),
	("seccomp or LSM", r"\bseccomp\b|\bLSM\b"),
	("device features", r"\blacks NETDEV_XDP_ACT_[A-Z_]+|\blacks "
	 r"VIRTIO_F_[A-Z_]+|\bethtool -K\b"),
)
ENV_SKIP_RE = [(what, re.compile(rx)) for what, rx in ENV_SKIP]

# A skip's class, decided where the skip is raised: the line
# "# skip-class NAME CLASS" right before NAME's SKIP result ("*" for a
# whole binary; "selftests: C: TEST" for a test the runner skipped).
# Only a kernel-class skip can be a regression; the other two say the run
# could not judge the kernel (zc-compare: cannot decide).
SKIP_CLASSES = ("kernel", "environment", "harness")
RE_SKIP_CLASS = re.compile(r"^skip-class (.+) (\S+)$")

# Logs written before the class lines (old baselines): the reason texts
# of the suite's own harness skips and of environment skips that
# ENV_SKIP does not cover.
LEGACY_SKIP = (
	("harness", "starved", r"^starved:"),
	("harness", "harness stall", r"^harness stall:"),
	("harness", "interrupted", r"^interrupted\b"),
	("harness", "not the kernel's", r"\bnot the kernel's\b"),
	("environment", "sysctl", r"\bIPv6 disabled\b|"
	 r"\bdisable_ipv6=[1-9]"),
	("environment", "device features", r"\bxdp_features unknown\b"),
)
LEGACY_SKIP_RE = [(cls, what, re.compile(rx)) for cls, what, rx in
		  LEGACY_SKIP]


def environment_cause(reason):
	"""What of the environment a skip reason names, or None when it is
	not (only) the environment."""
	if not isinstance(reason, str):
		return None
	for what, rx in ENV_SKIP_RE:
		if rx.search(reason):
			return what
	return None


def reason_class(reason):
	"""(class, what) a skip reason alone says, for logs without a
	skip-class line: ("harness"|"environment", cause) or (None, None)
	when the text names no cause outside the kernel."""
	if not isinstance(reason, str):
		return None, None
	for cls, what, rx in LEGACY_SKIP_RE:
		if rx.search(reason):
			return cls, what
	what = environment_cause(reason)
	return ("environment", what) if what else (None, None)


def skip_class(entry):
	"""(class, "line") of a skipped case or test whose log printed its
	class, else (class, the cause its reason names), else (None, None):
	today's rule for an unclassified skip."""
	cls = entry.get("class")
	if cls in SKIP_CLASSES:
		return cls, "line"
	cls, what = reason_class(entry.get("reason"))
	return (cls, what) if cls else (None, None)


def parse_float(s):
	try:
		v = float(s)
	except ValueError:
		return None
	if v != v or abs(v) > METRIC_LIMIT:
		return None
	return v


def out_of_range(rest):
	"""A number in a metric line that no measurement gives (inf, NaN,
	beyond METRIC_LIMIT): the token, else None."""
	tok = rest.split()
	vals = tok[1:2] + [v for t in tok[3:] for v in
			   t.partition("=")[2].rstrip("%").split(",")]
	for v in vals:
		try:
			f = float(v)
		except ValueError:
			continue
		if f != f or abs(f) > METRIC_LIMIT:
			return v
	return None


def parse_metric(rest):
	"""'NAME MEDIAN UNIT k=v...' -> metric dict, or None if malformed."""
	tok = rest.split()
	if len(tok) < 3:
		return None
	med = parse_float(tok[1])
	if med is None:
		return None
	m = {"name": tok[0], "unit": tok[2], "median": med, "min": med,
	     "max": med, "n": 1, "cv": None, "samples": []}
	kv = dict(t.split("=", 1) for t in tok[3:] if "=" in t)
	for key in ("min", "max"):
		v = parse_float(kv.get(key, ""))
		if v is not None:
			m[key] = v
	if kv.get("n", "").isdigit():
		m["n"] = int(kv["n"])
	cv = parse_float(kv.get("cv", "").rstrip("%"))
	if cv is not None:
		m["cv"] = cv
	speed = [parse_float(x) for x in kv.get("speed", "").split(",") if x]
	if speed and None not in speed:
		m["speed"] = speed
	vals = [parse_float(x) for x in kv.get("samples", "").split(",") if x]
	if vals and None not in vals:
		m.update(samples=vals, n=len(vals))
		if "min" not in kv:
			m["min"] = min(vals)
		if "max" not in kv:
			m["max"] = max(vals)
	return m


def merge_metric(old, new):
	"""The same metric printed twice: pool the samples."""
	if not (old["samples"] and new["samples"]) or old["unit"] != new["unit"]:
		return new
	vals = old["samples"] + new["samples"]
	new.update(samples=vals, n=len(vals), median=median(vals),
		   min=min(vals), max=max(vals), cv=None)
	if old.get("speed") and new.get("speed"):
		new["speed"] = old["speed"] + new["speed"]
	return new


def parse_zcmode(rest):
	tok = rest.split()
	if len(tok) < 2 or tok[1] not in ZC_MODES:
		return None
	z = {"name": tok[0], "mode": tok[1]}
	for t in tok[2:]:
		k, _, v = t.partition("=")
		if k in ("zerocopy", "copied") and v.isdigit():
			z[k] = int(v)
	return z


class TestLog:
	"""What one test binary's TAP stream says."""

	def __init__(self):
		self.cases = {}		# case name -> {status, reason}
		self.metrics = {}
		self.zcmode = {}
		self.config = []
		self.totals = None
		self.plan = None
		self.skip_all = None
		self.diag = []		# diagnostics since the last result
		self.warnings = []
		self.lines = 0
		self.bail = None
		self.unusable = None	# why no comparison can use this log
		self.skip_class = None	# (name, class) of the next SKIP line
		self.skip_all_class = None

	def feed(self, line):
		line = line.rstrip("\r\n")
		self.lines += 1
		if line.startswith("#"):
			self._diag(line[1:].strip())
			return
		m = RE_RESULT.match(line)
		if m:
			self._result(m.group(1) == "ok", m.group(3))
			return
		m = RE_BAIL.match(line)
		if m:
			self.bail = m.group(1).strip()
			return
		m = RE_PLAN.match(line.strip())
		if m:
			self.plan = int(m.group(2))
			d = m.group(3) or ""
			if self.plan == 0 and d.upper().startswith("SKIP"):
				self.skip_all = d[4:].strip()
			self.skip_class = None

	def _diag(self, text):
		word, _, rest = text.partition(" ")
		if word == "metric":
			bad = out_of_range(rest)
			if bad is not None and self.unusable is None:
				self.unusable = "metric value %s out of range: %s" % (
					bad[:20], text[:80])
			m = parse_metric(rest)
			if m is None:
				self.warnings.append("bad metric line: " + text[:80])
				return
			name = m.pop("name")
			if name in self.metrics:
				m = merge_metric(self.metrics[name], m)
			self.metrics[name] = m
		elif word == "zcmode":
			z = parse_zcmode(rest)
			if z is None:
				self.warnings.append("bad zcmode line: " + text[:80])
				return
			self.zcmode[z.pop("name")] = z
		elif word == "config:" or text.startswith("config:"):
			self.config.append(text.partition(":")[2].strip())
		elif word == "skip-class":
			m = RE_SKIP_CLASS.match(text)
			if not m or m.group(2) not in SKIP_CLASSES:
				self.warnings.append("bad skip-class line: " +
						     text[:80])
				return
			self.skip_class = (m.group(1).strip(), m.group(2))
			if m.group(1).strip() == "*":
				self.skip_all_class = m.group(2)
		elif RE_TOTALS.match(text):
			self.totals = dict((k, int(v)) for k, v in
					   re.findall(r"(\w+):(\d+)", text))
		elif text:
			self.diag.append(text)

	def _result(self, ok, rest):
		name, directive = split_directive(rest)
		status, reason = result_status(ok, directive)
		if status == "fail" and not reason and self.diag:
			reason = self.diag[-1]
		if not name:
			name = "case%d" % (len(self.cases) + 1)
		self.cases[name] = {"status": status, "reason": reason[:300]}
		if status == "skip":
			# only the line right before this result names it
			cls = self.skip_class
			if cls and cls[0] == name:
				self.cases[name]["class"] = cls[1]
			elif self.skip_all_class:
				self.cases[name]["class"] = self.skip_all_class
		self.skip_class = None
		self.diag = []

	def has_content(self):
		return bool(self.cases or self.metrics or self.zcmode or
			    self.plan is not None or self.totals)

	def cut_short(self):
		"""The stream stops before its plan, with no Bail out and no
		Totals: the binary was killed (or its output lost), no verdict."""
		return self.plan is not None and len(self.cases) < self.plan and \
			self.bail is None and self.totals is None

	def test_class(self):
		"""The class of the whole binary's skip: its '*' line, else
		the one class its skipped cases share when none is kernel's
		or unknown (then each case's reason speaks for itself)."""
		if self.skip_all_class:
			return self.skip_all_class
		got = set(c.get("class") for c in self.cases.values()
			  if c["status"] == "skip")
		if not got or None in got or "kernel" in got:
			return None
		return "harness" if got == {"harness"} else "environment"

	def guess_name(self):
		"""Test name from the first dot component of metric names."""
		count = {}
		for n in self.metrics:
			first = n.split(".")[0]
			count[first] = count.get(first, 0) + 1
		if not count:
			return None
		return max(sorted(count), key=lambda k: count[k])

	def status(self):
		"""Whole-binary (status, reason) from the stream alone."""
		st = [c["status"] for c in self.cases.values()]
		if self.skip_all is not None and not st:
			return "skip", self.skip_all
		if self.totals and self.totals.get("error"):
			return "fail", self.diag[-1] if self.diag else "error"
		if self.cut_short():
			return INTERRUPTED, "incomplete: %d of %d results" % (
				len(st), self.plan)
		if self.plan is not None and len(st) < self.plan:
			return "fail", self.bail or "%d of %d results" % (
				len(st), self.plan)
		if not st:
			return "unknown", "no results"
		rc = ktap_exit_code(st)
		if rc == KSFT_PASS:
			return "pass", ""
		if rc == KSFT_SKIP:
			reasons = sorted(set(c["reason"] for c in
					     self.cases.values()))
			return "skip", reasons[0] if len(reasons) == 1 else ""
		return "fail", "" if rc == KSFT_FAIL else "exit=%d" % rc


def new_run():
	return {"format": FORMAT, "tests": {}, "cases": {}, "metrics": {},
		"zcmode": {}, "warnings": [], "incomplete": None,
		"unusable": None}


def mark_incomplete(run, why):
	"""The run was cut short: no verdict on the kernel can come of it."""
	if not run.get("incomplete"):
		run["incomplete"] = why


def item_key(test, name):
	"""Metric/zcmode names carry their test's name, or get it here."""
	if name.startswith(test + "."):
		return name
	return "%s/%s" % (test, name)


# Worst first: a zcmode printed twice for one case keeps the worse.
ZC_MODE_RANK = {"copied": 0, "mixed": 1, "zerocopy": 2, "none": 3}


def zcmode_key(test, name):
	"""One key per case, whether the line named it with its test
	(tap_copy.udp4.x) or alone (udp4.x): <test>.<case>, the form
	metric names have."""
	return name if name.startswith(test + ".") else "%s.%s" % (test, name)


def add_zcmode(zcmodes, test, name, z):
	key = zcmode_key(test, name)
	old = zcmodes.get(key)
	if old and ZC_MODE_RANK.get(old["mode"], 3) <= \
	   ZC_MODE_RANK.get(z["mode"], 3):
		return
	zcmodes[key] = dict(z, test=test, name=name)


def add_test(run, test, log, status=None, reason="", cls=None):
	"""Merge one test's log into run; status/reason (and the class of a
	skip) from the runner win."""
	own_status, own_reason = log.status() if log else ("unknown", "")
	final = status or own_status
	t = {"status": final,
	     "reason": reason or (own_reason if final == own_status else "")}
	cls = cls or (log.test_class() if log else None)
	if final == "skip" and cls:
		t["class"] = cls
	if log:
		t["config"] = log.config
		if log.totals:
			t["totals"] = log.totals
		if log.plan is not None:
			t["plan"] = log.plan
		for c, v in log.cases.items():
			run["cases"]["%s/%s" % (test, c)] = dict(v, test=test,
								 case=c)
		for n, m in log.metrics.items():
			run["metrics"][item_key(test, n)] = dict(m, test=test,
								  name=n)
		for n, z in log.zcmode.items():
			add_zcmode(run["zcmode"], test, n, z)
		run["warnings"] += ["%s: %s" % (test, w) for w in log.warnings]
		if log.unusable and not run.get("unusable"):
			run["unusable"] = "%s: %s" % (test, log.unusable)
	old = run["tests"].get(test)
	if old and not log:
		keep = old["reason"] if old["status"] == final else ""
		old.update(status=final, reason=reason or keep)
		if final != "skip":
			old.pop("class", None)
		elif cls:
			old["class"] = cls
	else:
		run["tests"][test] = t


def runner_result(line, collection=False):
	"""Top-level 'ok N selftests: C: NAME # ...' -> (name, status, reason),
	with the collection C first when asked."""
	m = RE_RESULT.match(line)
	if not m:
		return None
	name, directive = split_directive(m.group(3))
	nm = RE_RUNNER_NAME.match(name)
	if not nm:
		return None
	status, reason = result_status(m.group(1) == "ok", directive)
	if status == "skip" and reason.startswith(INTERRUPTED + " "):
		status = INTERRUPTED
	if collection:
		return nm.group(1), nm.group(2), status, reason
	return nm.group(2), status, reason


def is_runner_output(lines):
	for line in lines:
		if RE_RUNNER_HDR.match(line) or runner_result(line):
			return True
	return False


RE_PROVENANCE = re.compile(r"^# provenance ([a-z0-9_]+) ?(.*)$")
# The runner's class of a test it reports as skipped itself.
RE_RUNNER_CLASS = re.compile(r"^# skip-class selftests: (\S+): (\S+) "
			     r"(kernel|environment|harness)$")


def parse_runner(lines, run, skip_tests=(), path="runner output"):
	"""The runner's TAP: nested test output is prefixed with '# '. Only
	this suite's collection counts: a kernel selftest run of other
	collections alone is refused (ForeignError). Returns the names of
	the tests it gave a result line."""
	cur, cur_name = None, None
	foreign = []
	n_ours = 0
	prov = {}
	plan, done, bail = None, [], None
	runner_cls = None
	for line in lines:
		line = line.rstrip("\r\n")
		pm = RE_PROVENANCE.match(line)
		if pm and cur is None:
			prov[pm.group(1)] = pm.group(2).strip()
			continue
		m = RE_BAIL.match(line)
		if m:
			bail = m.group(1).strip() or "Bail out!"
			continue
		m = RE_PLAN.match(line)
		if m and plan is None:
			plan = int(m.group(2))
			continue
		hdr = RE_RUNNER_HDR.match(line)
		if hdr:
			if not ours(hdr.group(1)):
				foreign.append("%s: %s" % hdr.groups())
				cur, cur_name = None, None
				continue
			cur, cur_name = TestLog(), hdr.group(2)
			n_ours += 1
			continue
		cm = RE_RUNNER_CLASS.match(line)
		if cm:
			runner_cls = cm.groups()
			continue
		res = runner_result(line, collection=True)
		if res:
			coll, name, status, reason = res
			if not ours(coll):
				foreign.append("%s: %s" % (coll, name))
				cur, cur_name = None, None
				continue
			n_ours += 1
			log = cur if cur_name == name else None
			if name in skip_tests:
				log = None
			cls = runner_cls[2] if runner_cls and \
				runner_cls[:2] == (coll, name) else None
			runner_cls = None
			add_test(run, name, log, status, reason, cls)
			done.append(name)
			cur, cur_name = None, None
			continue
		if cur is not None and line.startswith("#"):
			cur.feed(line[2:] if line.startswith("# ") else line[1:])
	if cur is not None and cur_name not in skip_tests:
		# cut short: the runner never printed the result line
		add_test(run, cur_name, cur, INTERRUPTED, "no runner result line")
	if foreign and not n_ours:
		raise ForeignError("%s: not zc-selftests output ('selftests: "
				   "%s' is another kselftest collection)"
				   % (path, foreign[0]))
	if foreign:
		run["warnings"].append("%s: %d line(s) of other kselftest "
				       "collections ignored (%s)" % (
					       path, len(foreign), foreign[0]))
	if prov:
		run["provenance_lines"] = prov
	if bail is not None:
		mark_incomplete(run, bail)
	elif cur is not None or (plan is not None and len(done) < plan):
		mark_incomplete(run, "the runner's output stops after %d of "
				"%s tests (killed, or its output lost)"
				% (len(done), plan if plan is not None else "?"))
	return done


# A metric beyond this is no measurement of anything (hostile or corrupt
# input): refused, so no sum or power of values can overflow.
METRIC_LIMIT = 1e100


def read_text(path):
	"""At most 64 MiB of a regular file: a fifo or device as input is
	refused, never waited on."""
	try:
		fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
	except OSError as e:
		raise InputError("%s: %s" % (path, e.strerror or e))
	try:
		mode = os.fstat(fd).st_mode
		if not stat.S_ISREG(mode):
			raise InputError("%s: not a regular file (a %s)" % (
				path, file_kind(mode)))
		with os.fdopen(fd, "rb") as f:
			fd = None
			data = f.read(64 << 20)
	except OSError as e:
		raise InputError("%s: %s" % (path, e.strerror or e))
	finally:
		if fd is not None:
			os.close(fd)
	return data.decode("utf-8", "replace")


def parse_test_log(text, name=None, run=None):
	"""A test binary's own stdout; name defaults to the metric prefix."""
	log = TestLog()
	for line in text.splitlines():
		log.feed(line)
	run = run if run is not None else new_run()
	if not log.has_content():
		return run, None
	name = log.guess_name() or name or "unnamed"
	add_test(run, name, log)
	if log.cut_short():
		mark_incomplete(run, "%s's log stops after %d of %d results "
				"(killed, or its output lost)"
				% (name, len(log.cases), log.plan))
	return run, name


def parse_tap_file(path):
	"""A plain TAP log: a test's stdout or the runner's output."""
	text = read_text(path)
	lines = text.splitlines()
	run = new_run()
	if is_runner_output(lines):
		parse_runner(lines, run, path=path)
	else:
		stem = os.path.basename(path)
		stem = stem[:-4] if stem.endswith((".log", ".tap")) else stem
		parse_test_log(text, stem, run)
	if not run["tests"]:
		raise InputError("%s: no TAP results found" % path)
	run["source"] = path
	return run


# The "clock" provenance line: "KIND [key=value...]". tools/vmtest sets
# it for a guest ("icount shift=0 qemu=7.2.22 accel=tcg cpu=max smp=2":
# guest time counts instructions; "wall ..." without --icount); a host
# says "wall". zc-compare refuses to judge one clock against another.
def parse_clock(text):
	"""{"kind": "icount"|"wall"|..., "shift": N, "qemu": ..., "smp": N,
	"text": text} of a clock line's text, or None."""
	words = (text or "").split()
	if not words or not re.match(r"^[a-z]+$", words[0]):
		return None
	out = {"kind": words[0], "text": " ".join(words)[:200]}
	for w in words[1:]:
		k, eq, v = w.partition("=")
		if eq and re.match(r"^[a-z_]+$", k) and k not in out:
			out[k] = int(v) if v.isdigit() else v[:80]
	return out


def parse_results_dir(d):
	"""DIR/<test>.log (each test's stdout) plus DIR/run.tap (the runner)."""
	run = new_run()
	logs = sorted(f for f in os.listdir(d)
		      if f.endswith(".log") and os.path.isfile(os.path.join(d, f)))
	seen, cut = set(), {}
	for f in logs:
		test = f[:-4]
		log = TestLog()
		for line in read_text(os.path.join(d, f)).splitlines():
			log.feed(line)
		if log.has_content():
			add_test(run, test, log)
			seen.add(test)
			if log.cut_short():
				cut[test] = log
	tap = os.path.join(d, "run.tap")
	done = []
	if os.path.isfile(tap):
		# the runner's verdict on a test wins over its own log
		done = parse_runner(read_text(tap).splitlines(), run,
				    skip_tests=seen, path=tap)
	for test in sorted(seen - set(done)):
		if run.get("incomplete") or test in cut:
			# a log the runner never judged: the run stopped in it
			run["tests"][test].update(status=INTERRUPTED, reason=
				"no runner result line" if test not in cut else
				"incomplete: %d of %d results" % (
					len(cut[test].cases), cut[test].plan))
			mark_incomplete(run, "%s has no verdict: the run "
					"stopped in it" % test)
	if not run["tests"]:
		raise InputError("%s: no <test>.log or run.tap with results" % d)
	run["source"] = d
	return run


# LAVA's results are pass, fail, skip and unknown: a test a signal cut
# short has no verdict, so "unknown", never "fail".
LKFT_STATUS = {"pass": "pass", "xfail": "pass", "skip": "skip",
	       "fail": "fail", "xpass": "fail", "error": "fail",
	       "unknown": "fail", INTERRUPTED: "unknown"}


def fmt_num(v):
	return "%.6g" % v


def lkft_lines(run):
	out = []
	if run.get("incomplete"):
		# one line that says so, in result.txt's own grammar
		out.append("%s/run.incomplete unknown" % SUITE)
	for t in sorted(run["tests"]):
		out.append("%s/%s %s" % (SUITE, t,
					 LKFT_STATUS[run["tests"][t]["status"]]))
	for c in sorted(run["cases"]):
		out.append("%s/%s %s" % (SUITE, c,
					 LKFT_STATUS[run["cases"][c]["status"]]))
	for n in sorted(run["metrics"]):
		m = run["metrics"][n]
		out.append("%s/%s pass %s %s" % (SUITE, n, fmt_num(m["median"]),
						 m["unit"]))
	return out


def squad_metrics(run):
	return {"%s/%s" % (SUITE, n): (m["samples"] or [m["median"]])
		for n, m in sorted(run["metrics"].items())}


def write_file(path, text):
	"""Write a whole file or none: a full disk leaves no half file, and
	only a regular file (or a new one) is ever replaced: never a device,
	fifo, directory or a symlink's target."""
	try:
		st = os.lstat(path)
	except FileNotFoundError:
		st = None
	if st is not None and not stat.S_ISREG(st.st_mode):
		raise InputError("%s: not a regular file (a %s): refusing to "
				 "write it" % (path, file_kind(st.st_mode)))
	d, base = os.path.split(path)
	fd, tmp = tempfile.mkstemp(prefix="." + base + ".", suffix=".tmp",
				   dir=d or ".")
	try:
		with os.fdopen(fd, "w") as f:
			f.write(text)
			f.flush()
			os.fsync(f.fileno())
		os.chmod(tmp, 0o644)
		os.rename(tmp, path)
	except BaseException:
		try:
			os.unlink(tmp)
		except OSError:
			pass
		raise


def file_kind(mode):
	for test, name in ((stat.S_ISLNK, "symlink"), (stat.S_ISDIR, "directory"),
			   (stat.S_ISFIFO, "fifo"), (stat.S_ISCHR, "character device"),
			   (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket")):
		if test(mode):
			return name
	return "special file"


def write_results(d, run):
	write_file(os.path.join(d, "results.json"),
		   json.dumps(run, indent=1, sort_keys=True) + "\n")
	write_file(os.path.join(d, "result.txt"), "\n".join(lkft_lines(run)) + "\n")
	write_file(os.path.join(d, "squad.json"),
		   json.dumps(squad_metrics(run), indent=1) + "\n")


def previous_results(d):
	"""An earlier results.json of DIR; one of a format this version does
	not know is refused (ForeignError), not overwritten."""
	path = os.path.join(d, "results.json")
	try:
		old = json.loads(read_text(path))
	except (InputError, ValueError, RecursionError):
		return None
	if isinstance(old, dict) and isinstance(old.get("format"), str) and \
	   old["format"].startswith("zc-results/"):
		check_format(old, path)
	return old if isinstance(old, dict) else None


EXIT_INPUT = 125


def parse_args(argv):
	p = ArgParser(prog="zc-results", description="Turn the TAP logs of "
		      "`run_tests.sh --out DIR` into DIR/results.json, "
		      "DIR/result.txt (LKFT) and DIR/squad.json.",
		      epilog="Exit: 0 files written, 125 input it cannot use "
		      "(no usable logs, not this suite's output, a results.json "
		      "of an unknown format) or a write that failed (one line "
		      "says which), or zc-results itself failed (one line, the "
		      "traceback in DIR), 128 usage error.")
	p.add_argument("dir", metavar="DIR", help="a results directory "
		       "(DIR/<test>.log and DIR/run.tap)")
	return p.parse_args(argv[1:])


def main(argv):
	args = parse_args(argv)
	d = args.dir
	if not os.path.isdir(d):
		sys.stderr.write("zc-results: %s: not a directory\n" % d)
		return EXIT_INPUT
	zpkg.trace_dir = d
	try:
		old = previous_results(d)
		run = parse_results_dir(d)
		add_metadata(run, TOP, old)
		write_results(d, run)
	except InputError as e:
		sys.stderr.write("zc-results: %s\n" % e)
		return EXIT_INPUT
	except OSError as e:
		sys.stderr.write("zc-results: %s: %s\n" % (
			e.filename or d, e.strerror or e))
		return EXIT_INPUT
	except (RecursionError, OverflowError, ValueError, MemoryError) as e:
		# hostile input the parser did not foresee: one line, no trace
		sys.stderr.write("zc-results: %s: cannot read it (%s)\n" % (
			d, type(e).__name__))
		return EXIT_INPUT
	for w in run["warnings"]:
		sys.stderr.write("zc-results: warning: %s\n" % w)
	if run["provenance"] == "unknown":
		sys.stderr.write("zc-results: warning: %s: no provenance (no "
				 "'# provenance' lines in run.tap): kernel, "
				 "machine, suite version and date unknown\n" % d)
	return 0


def cli():
	"""What tools/zc-results runs."""
	try:
		sys.exit(main(sys.argv))
	except KeyboardInterrupt:
		sys.exit(130)
