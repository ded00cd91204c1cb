# SPDX-License-Identifier: GPL-2.0
"""zc-compare BASE NEW: is NEW worse than BASE?

BASE and NEW are results directories (run_tests.sh --out DIR) or plain TAP
logs (a test's stdout or the runner's output), or tools/vmtest -o
directories. Exit codes are made for `git bisect run`: 0 no regression,
1 regression, 125 cannot decide, 128 usage error.
"""

import argparse
import fnmatch
import html
import json
import math
import os
import re
import sys
import textwrap

from zc import results as zr

EXIT_OK, EXIT_REGRESSION, EXIT_UNDECIDED = 0, 1, 125
# A usage error is no verdict: 128 is outside git bisect's good (0),
# bad (1-127) and skip (125), so a bisect stops on it.
EXIT_USAGE = 128
MIN_SAMPLES = 3
# Repeats inside one run do not cover the drift between runs: on the
# shared 2-vCPU VM per-run medians of one rate spread by ~16% while the
# repeats inside a run sat a few percent apart. A test over runs needs
# at least 3 a side; doc/noise.md says how many buy what.
MIN_RUNS = 3
# Defaults of the test over runs; chosen from pools measured with
# tools/zc-power (doc/noise.md).
ALPHA = 0.002
TEST = "t"
NORMALISE = "none"
THRESHOLD = 5.0
# Under qemu's instruction counting (tools/vmtest --icount) a rate
# repeats within ~0.15 % across boots and its repeats within ~0.05 %
# (doc/vmtest.md): a t-test calls 0.1 % significant there, so what
# bounds a verdict is the smallest change that stands above the measured
# spread, not the test. 1 %: several times the spread measured across
# boots (6.18.15 guest, sendzc_notif udp4 SEND_ZC depth 8, two boots);
# doc/noise.md has the spread per metric. And one run a side is judged by
# its repeats (the runs of one boot do not drift as a host does).
ICOUNT_THRESHOLD = 1.0
ICOUNT_MIN_RUNS = 1

# Statuses that count as "works"; a case leaving them for one of BAD regressed.
GOOD = ("pass", "xfail")
BAD = ("fail", "xpass", "error", "unknown")
ZC_RANK = {"zerocopy": 2, "mixed": 1, "copied": 0}


def die(msg, code=EXIT_UNDECIDED):
	sys.stderr.write("zc-compare: %s\n" % msg)
	sys.exit(code)


# ---------------------------------------------------------------- input

def is_num(v):
	"""A number a measurement can be: finite and below the parser's
	limit, so no sum, square or exponent of it overflows."""
	return isinstance(v, (int, float)) and not isinstance(v, bool) and \
		math.isfinite(v) and abs(v) <= zr.METRIC_LIMIT


def check_json_run(run):
	"""Raise InputError unless run looks like a results.json we wrote
	(ForeignError when it is not ours or of an unknown format)."""
	zr.check_format(run, "results.json")
	for key in ("tests", "cases", "metrics", "zcmode"):
		if not isinstance(run.get(key), dict):
			raise zr.InputError("no '%s' object" % key)
	for key in ("kernel", "machine", "comparability"):
		if run.get(key) is not None and not isinstance(run[key], dict):
			raise zr.InputError("'%s' is not an object" % key)
	for name, m in run["metrics"].items():
		ok = isinstance(m, dict) and isinstance(m.get("unit"), str) and \
			all(is_num(m.get(k)) for k in ("median", "min", "max", "n"))
		ok = ok and isinstance(m.get("samples", []), list) and \
			all(is_num(v) for v in m.get("samples", []))
		if not ok:
			raise zr.InputError("bad metric entry '%s'" % name)
		m.setdefault("samples", [])
	for group in ("tests", "cases"):
		for name, c in run[group].items():
			if not isinstance(c, dict) or \
			   not isinstance(c.get("status"), str) or \
			   c.get("status") not in zr.LKFT_STATUS:
				raise zr.InputError("bad %s entry '%s'" %
						    (group[:-1], name))
			c.setdefault("reason", "")
	for name, z in run["zcmode"].items():
		if not isinstance(z, dict) or \
		   not isinstance(z.get("mode"), str) or \
		   z.get("mode") not in zr.ZC_MODES:
			raise zr.InputError("bad zcmode entry '%s'" % name)
	# an older results.json keyed a case's zcmode two ways
	keyed = {}
	for name, z in run["zcmode"].items():
		t, n = z.get("test"), z.get("name")
		if isinstance(t, str) and isinstance(n, str):
			zr.add_zcmode(keyed, t, n, z)
		else:
			keyed[name] = z
	run["zcmode"] = keyed
	for key in ("incomplete", "unusable"):
		if run.get(key) is not None and not isinstance(run[key], str):
			raise zr.InputError("bad '%s' entry" % key)
	comp = run.get("comparability")
	if comp is not None and not (isinstance(comp, dict) and all(
			v is None or isinstance(v, (str, int, float))
			for v in comp.values())):
		raise zr.InputError("bad 'comparability' entry")
	# pooling's own field: never taken from a file
	run.pop("comparabilities", None)


def load_json(path):
	try:
		run = json.loads(zr.read_text(path))
	except ValueError as e:
		raise zr.InputError("%s: not JSON (%s)" % (path, e))
	except RecursionError:
		raise zr.InputError("%s: not a zc-results file (nested too "
				    "deep)" % path)
	try:
		check_json_run(run)
	except zr.ForeignError as e:
		raise zr.ForeignError(str(e).replace("results.json", path, 1))
	except zr.InputError as e:
		raise zr.InputError("%s: %s" % (path, e))
	run["source"], run["kind"] = path, "json"
	return run


def load_dir(path):
	js = os.path.join(path, "results.json")
	if os.path.isfile(js):
		try:
			return load_json(js)
		except zr.ForeignError:
			raise
		except zr.InputError as e:
			sys.stderr.write("zc-compare: warning: %s; reading the "
					 "logs instead\n" % e)
	run = zr.parse_results_dir(path)
	run["kind"] = "dir"
	with_provenance(run)
	return run


def with_provenance(run):
	"""What the run recorded about itself (run.tap's provenance lines);
	unknown stays unknown."""
	zr.apply_provenance(run)


def is_results_dir(path):
	try:
		names = os.listdir(path)
	except OSError:
		return False
	return any(n in ("results.json", "run.tap") or n.endswith(".log")
		   for n in names)


# Worst first: pooled runs keep the worst status a case had in any run.
STATUS_RANK = {"fail": 3, "error": 3, "xpass": 3, "unknown": 3, "skip": 1,
	       "pass": 0, "xfail": 0, "interrupted": 2}


def run_entry(m):
	"""What one run measured of a metric: its repeats and their speeds."""
	return {"samples": list(m["samples"]) or [m["median"]],
		"speed": list(m.get("speed") or []), "n": int(m["n"])}


def pool_metric(a, b):
	if a["unit"] != b["unit"]:
		return a
	runs = a.get("runs", 1) + b.get("runs", 1)
	per_run = a.get("per_run", [run_entry(a)]) + \
		b.get("per_run", [run_entry(b)])
	if a["samples"] and b["samples"]:
		vals = a["samples"] + b["samples"]
		speed = a.get("speed", []) + b.get("speed", []) \
			if a.get("speed") and b.get("speed") else []
		return dict(a, samples=vals, n=len(vals), median=zr.median(vals),
			    min=min(vals), max=max(vals), cv=None, speed=speed,
			    runs=runs, per_run=per_run)
	return dict(a, samples=[], n=a["n"] + b["n"], cv=None, runs=runs,
		    per_run=per_run,
		    median=zr.median([a["median"], b["median"]]),
		    min=min(a["min"], b["min"]), max=max(a["max"], b["max"]))


def pool_item(group, a, b):
	if group == "metrics":
		return pool_metric(a, b)
	if group == "zcmode":
		ra, rb = ZC_RANK.get(a["mode"], 3), ZC_RANK.get(b["mode"], 3)
		return b if rb < ra else a
	worse = STATUS_RANK[b["status"]] > STATUS_RANK[a["status"]]
	return b if worse else a


def pool(runs, path):
	"""Several runs of one side: samples pooled, worst status kept."""
	out = dict(runs[0], source="%s (%d runs)" % (path, len(runs)),
		   kind="pool", warnings=[],
		   comparabilities=[c for r in runs
				    for c in r.get("comparabilities", [])],
		   clocks=[c for r in runs for c in r.get("clocks", [])])
	for group in ("tests", "cases", "metrics", "zcmode"):
		merged = {}
		for run in runs:
			for key, v in run[group].items():
				merged[key] = pool_item(group, merged[key], v) \
					if key in merged else v
		out[group] = merged
	for run in runs:
		out["warnings"] += run.get("warnings", [])
		for key in ("incomplete", "unusable"):
			if run.get(key) and not out.get(key):
				out[key] = "%s: %s" % (run.get("source"), run[key])
	return out


def load_pool(path):
	subs = sorted(os.path.join(path, d) for d in os.listdir(path)
		      if is_results_dir(os.path.join(path, d)) or
		      is_vmtest_dir(os.path.join(path, d)))
	if not subs:
		raise zr.InputError("%s: no results in it (results.json, "
				    "<test>.log, run.tap or run directories)"
				    % path)
	return pool([annotate(load_vmtest(d) if is_vmtest_dir(d)
			      else load_dir(d)) for d in subs], path)


def is_vmtest_dir(path):
	"""A tools/vmtest -o directory: its columns file names the kernels."""
	return os.path.isfile(os.path.join(path, "columns")) and \
		os.path.isfile(os.path.join(path, "skipped.json"))


def load_vmtest(path):
	"""The results of the one kernel a vmtest -o directory ran: its
	veth run (results/suite) and each NIC pair's run (results/PAIR,
	tests named test@PAIR)."""
	names = zr.read_text(os.path.join(path, "columns")).split()
	cols = [n for n in names if "/" not in n and n not in (".", "..") and
		os.path.isdir(os.path.join(path, n, "results"))]
	if not cols:
		raise zr.InputError("%s: a vmtest -o directory without results "
				    "(no kernel ran to the end)" % path)
	if len(cols) > 1:
		raise zr.InputError("%s: a vmtest -o directory of %d kernels "
				    "(%s): name one's results, e.g. "
				    "%s/results/suite" % (path, len(cols),
							  ", ".join(cols),
							  os.path.join(path,
								       cols[0])))
	res = os.path.join(path, cols[0], "results")
	run = None
	subs = sorted(os.listdir(res))
	for sub in ["suite"] + [x for x in subs if x != "suite"]:
		d = os.path.join(res, sub)
		if not os.path.isfile(os.path.join(d, "run.tap")):
			continue
		r = load_dir(d)
		if sub != "suite":
			for t in list(r["tests"]):
				rename_test(r, t, "%s@%s" % (t, sub))
		if run is None:
			run = r
			continue
		for group in ("tests", "cases", "metrics", "zcmode"):
			run[group].update(r[group])
		run["warnings"] = run.get("warnings", []) + r.get("warnings", [])
	if run is None:
		raise zr.InputError("%s: no run.tap under %s" % (path, res))
	run["source"], run["kind"] = path, "vmtest"
	return run


def run_clock(run):
	"""The clock one run's figures ran on (run.tap's "# clock:" line, or
	results.json's comparability); a run that says nothing ran on the
	wall clock (every run before clocks were recorded did)."""
	c = run.get("clock")
	text = c.get("text") if isinstance(c, dict) else None
	if not isinstance(text, str):
		comp = run.get("comparability")
		text = comp.get("clock") if isinstance(comp, dict) else None
	c = zr.parse_clock(text) if isinstance(text, str) else None
	return c or {"kind": "wall", "text": "wall (not recorded)"}


def clock_name(c):
	if c["kind"] == "icount":
		return "icount shift=%s" % c.get("shift", "?")
	return c["kind"]


def side_clocks(run):
	return run.get("clocks") or [run_clock(run)]


def clock_mismatch(base, new):
	"""One line when the two sides' figures ran on different clocks
	(instructions against time: no verdict), else None."""
	names = {}
	for side, run in (("BASE", base), ("NEW", new)):
		names[side] = sorted(set(clock_name(c) for c in side_clocks(run)))
		if len(names[side]) > 1:
			return "cannot decide: %s pools runs of different clocks " \
				"(%s)" % (side, ", ".join(names[side]))
	kb = set(c["kind"] for c in side_clocks(base))
	kn = set(c["kind"] for c in side_clocks(new))
	if kb != kn:
		return "cannot decide: BASE ran on the %s clock (%s), NEW on " \
			"the %s clock (%s): instruction counts and time are " \
			"not comparable" % (clock_name(side_clocks(base)[0]),
					    side_clocks(base)[0]["text"],
					    clock_name(side_clocks(new)[0]),
					    side_clocks(new)[0]["text"])
	return None


def is_icount(run):
	return all(c["kind"] == "icount" for c in side_clocks(run))


CLOCK_FIELDS = (("shift", "icount shift"), ("qemu", "qemu version"),
		("cpu", "qemu -cpu model"), ("smp", "smp (vCPUs)"),
		("accel", "qemu accelerator"))


def clock_notes(base, new):
	"""What differs between the two sides' clocks of the same kind."""
	notes = []
	for key, label in CLOCK_FIELDS:
		vb = sorted(set(str(c.get(key, "?")) for c in side_clocks(base)))
		vn = sorted(set(str(c.get(key, "?")) for c in side_clocks(new)))
		if vb != vn:
			notes.append("%s differs: BASE %s, NEW %s" % (
				label, " | ".join(vb)[:80], " | ".join(vn)[:80]))
	# Under icount the suite's own instructions count too: between two
	# suite builds (one boot each) send_zc_fixed_depth8 read 2.3 % apart,
	# within 0.1 % between boots of one build.
	sb, sn = base.get("suite_version"), new.get("suite_version")
	if is_icount(base) and isinstance(sb, str) and isinstance(sn, str) \
	   and sb.replace("-dirty", "") != sn.replace("-dirty", ""):
		notes.append("suite version differs: BASE %s, NEW %s (under "
			     "icount the test's own instructions count too)" %
			     (sb[:40], sn[:40]))
	return notes


def annotate(run):
	"""Keep per-run facts that pooling would merge away."""
	comp = run.get("comparability")
	run.setdefault("comparabilities", [comp] if isinstance(comp, dict)
		       else [])
	run.setdefault("clocks", [run_clock(run)])
	return run


def load(path):
	return annotate(load_one(path))


def load_one(path):
	if not os.path.exists(path):
		raise zr.InputError("%s: no such file or directory" % path)
	if os.path.isdir(path):
		if is_vmtest_dir(path):
			return load_vmtest(path)
		if is_results_dir(path):
			return load_dir(path)
		return load_pool(path)
	text = zr.read_text(path)
	if text.lstrip().startswith("{"):
		return load_json(path)
	run = zr.parse_tap_file(path)
	runner = zr.is_runner_output(text.splitlines())
	run["kind"] = "runner" if runner else "log"
	with_provenance(run)
	return run


def rename_test(run, old, new):
	run["tests"][new] = run["tests"].pop(old)
	for group in ("cases", "metrics", "zcmode"):
		fixed = {}
		for key, v in run[group].items():
			if v.get("test") == old:
				v["test"] = new
				if group == "cases":
					key = "%s/%s" % (new, v["case"])
				elif group == "zcmode":
					key = zr.zcmode_key(new, v.get("name") or
							    key[len(old) + 1:])
				elif key.startswith(old + "/"):
					key = zr.item_key(new, v.get("name") or
							  key[len(old) + 1:])
			fixed[key] = v
		run[group] = fixed


# Names a rename changed, per test: a part of a case, metric or zcmode
# name (between dots) -> today's. Both sides are read in today's names,
# so a baseline taken before a rename compares with a run after it
# (doc/adding-a-test.md, Naming; check/tools/t_compare_rename.sh).
RENAMES = {
	"tap_copy": {"msgzc": "msg_zerocopy", "sendzc": "send_zc",
		     "sendzc_fixed": "send_zc_fixed"},
}


def renamed(test, name):
	parts = RENAMES.get(test)
	if not parts:
		return name
	return ".".join(parts.get(p, p) for p in name.split("."))


def rename_old_names(run):
	"""Today's names for a run's old ones; how many changed."""
	n = 0
	for group in ("cases", "metrics", "zcmode"):
		fixed = {}
		for key, v in run[group].items():
			t = v.get("test")
			field = "case" if group == "cases" else "name"
			old = v.get(field)
			if t in RENAMES and isinstance(old, str):
				v[field] = renamed(t, old)
				if v[field] != old:
					n += 1
					key = "%s/%s" % (t, v[field]) if group == \
						"cases" else zr.zcmode_key(t, v[field]) \
						if group == "zcmode" else \
						zr.item_key(t, v[field])
			fixed[key] = v
		run[group] = fixed
	return n


def align_single_logs(base, new):
	"""Two lone test logs named after their files: same test."""
	if base["kind"] == new["kind"] == "log" and \
	   len(base["tests"]) == len(new["tests"]) == 1:
		b, n = next(iter(base["tests"])), next(iter(new["tests"]))
		if b != n:
			rename_test(new, n, b)


def matches(patterns, *ids):
	if not patterns:
		return True
	for p in patterns:
		for i in ids:
			if fnmatch.fnmatchcase(i, p) or \
			   (not any(c in p for c in "*?[") and p in i):
				return True
	return False


def select(run, only, exclude):
	for group in ("tests", "cases", "metrics", "zcmode"):
		run[group] = {k: v for k, v in run[group].items()
			      if matches(only, k) and
			      not (exclude and matches(exclude, k))}


# ------------------------------------------------------------- verdicts

def spread(m):
	return {"median": m["median"], "min": m["min"], "max": m["max"],
		"n": int(m["n"]), "runs": len(per_run(m))}


def change_pct(b, n):
	if b == 0:
		return 0.0 if n == 0 else math.copysign(math.inf, n)
	return (n - b) / abs(b) * 100.0


# ---------------------------------------------------------- statistics
#
# The noise of a rate here is mostly between runs (a shared VM speeds up
# and slows down over minutes), while the repeats inside one run sit a few
# percent apart. So a metric is judged on one value per run (the median
# of its repeats, optionally normalised by the machine speed measured
# before each repeat), by a test over runs, never over pooled repeats.

def betacf(a, b, x):
	"""Continued fraction of the regularized incomplete beta function."""
	tiny = 1e-300
	qab, qap, qam = a + b, a + 1.0, a - 1.0
	c, d = 1.0, 1.0 - qab * x / qap
	d = 1.0 / (d if abs(d) > tiny else tiny)
	h = d
	for m in range(1, 300):
		m2 = 2 * m
		aa = m * (b - m) * x / ((qam + m2) * (a + m2))
		d = 1.0 + aa * d
		d = 1.0 / (d if abs(d) > tiny else tiny)
		c = 1.0 + aa / c
		c = c if abs(c) > tiny else tiny
		h *= d * c
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
		d = 1.0 + aa * d
		d = 1.0 / (d if abs(d) > tiny else tiny)
		c = 1.0 + aa / c
		c = c if abs(c) > tiny else tiny
		de = d * c
		h *= de
		if abs(de - 1.0) < 1e-12:
			break
	return h


def betainc(a, b, x):
	if x <= 0.0:
		return 0.0
	if x >= 1.0:
		return 1.0
	lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + \
		a * math.log(x) + b * math.log(1.0 - x)
	if x < (a + 1.0) / (a + b + 2.0):
		return math.exp(lbt) * betacf(a, b, x) / a
	return 1.0 - math.exp(lbt) * betacf(b, a, 1.0 - x) / b


def t_sf(t, df):
	"""P(T >= t) for Student's t with df degrees of freedom."""
	if math.isinf(t):
		return 0.0 if t > 0 else 1.0
	tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
	return tail if t > 0 else 1.0 - tail


def t_test(xb, xn):
	"""Two-sample t on the two lists (pooled variance): (t, df)."""
	kb, kn = len(xb), len(xn)
	mb, mn = sum(xb) / kb, sum(xn) / kn
	ss = sum((v - mb) ** 2 for v in xb) + sum((v - mn) ** 2 for v in xn)
	df = kb + kn - 2
	se = math.sqrt(ss / df * (1.0 / kb + 1.0 / kn)) if df > 0 else 0.0
	d = mn - mb
	if se == 0.0:
		return (0.0 if d == 0 else math.copysign(math.inf, d)), df
	return d / se, df


def rank_p(xb, xn):
	"""One-sided exact Mann-Whitney p that NEW is below BASE (ties half)."""
	u = sum(1.0 if n < b else 0.5 if n == b else 0.0
		for n in xn for b in xb)
	return mw_tail(len(xb), len(xn), u)


_MW = {}


def mw_tail(kb, kn, u):
	"""P(U >= u) under the null, U counting (new < base) pairs."""
	key = (kb, kn)
	if key not in _MW:
		# f[i][j][v]: ways to order i news and j bases with U = v
		f = {(0, 0): {0: 1}}
		for i in range(kn + 1):
			for j in range(kb + 1):
				if i == j == 0:
					continue
				cur = {}
				# The largest value is a new one (below no
				# base) or a base one (above all i news).
				if i:
					for v, c in f[(i - 1, j)].items():
						cur[v] = cur.get(v, 0) + c
				if j:
					for v, c in f[(i, j - 1)].items():
						cur[v + i] = cur.get(v + i, 0) + c
				f[(i, j)] = cur
		dist = f[(kn, kb)]
		_MW[key] = (dist, sum(dist.values()))
	dist, total = _MW[key]
	return sum(c for v, c in dist.items() if v >= u - 1e-9) / total


def speed_exponent(unit):
	"""How a figure scales with machine speed: a rate with it (+1), a
	cost per unit of work against it (-1), a ratio not at all (0)."""
	if unit == "ratio":
		return 0
	return zr.unit_direction(unit)


def per_run(m):
	return m.get("per_run") or [run_entry(m)]


def run_value(entry, exp):
	"""log of one run's value: the median of its repeats, each divided
	by (multiplied with, for costs) the speed measured before it."""
	vals = entry["samples"]
	if exp and len(entry["speed"]) == len(vals):
		vals = [v / s ** exp for v, s in zip(vals, entry["speed"])
			if v > 0 and s > 0]
	vals = [v for v in vals if v > 0]
	return math.log(zr.median(vals)) if vals else None


def sample_values(entry, exp):
	vals = entry["samples"]
	speed = entry["speed"] if exp and len(entry["speed"]) == len(vals) \
		else [1.0] * len(vals)
	return [math.log(v / s ** exp) for v, s in zip(vals, speed)
		if v > 0 and s > 0]


def derived(m):
	"""A figure computed from other figures once per run (n=1): its runs
	carry no repeats of their own, so nothing tells its noise."""
	return all(e["n"] <= 1 for e in per_run(m))


def judge_values(b, n, unit, args):
	"""(units, xb, xn) of log values the test compares, or a reason."""
	exp = speed_exponent(unit) if args.normalise == "speed" else 0
	rb, rn = per_run(b), per_run(n)
	if min(len(rb), len(rn)) >= max(2, args.min_runs):
		xb = [v for v in (run_value(e, exp) for e in rb) if v is not None]
		xn = [v for v in (run_value(e, exp) for e in rn) if v is not None]
		return "runs", xb, xn
	if min(len(rb), len(rn)) < args.min_runs:
		return "%d run(s) a side, %d needed" % (min(len(rb), len(rn)),
							 args.min_runs), None, None
	# --min-runs 1 with single runs: the repeats are the units.
	xb = [v for e in rb for v in sample_values(e, exp)]
	xn = [v for e in rn for v in sample_values(e, exp)]
	if min(len(xb), len(xn)) < MIN_SAMPLES:
		return "fewer than %d samples" % MIN_SAMPLES, None, None
	return "repeats", xb, xn


def metric_verdict(b, n, unit, args):
	"""(verdict, why, change %) of one metric."""
	if derived(b) or derived(n):
		return "derived", "computed once per run (n=1): not " \
			"judged", change_pct(b["median"], n["median"])
	units, xb, xn = judge_values(b, n, unit, args)
	if xb is None:
		return "insufficient", units, change_pct(b["median"], n["median"])
	if len(xb) < 2 or len(xn) < 2:
		return "insufficient", "no usable values", None
	d = sum(xn) / len(xn) - sum(xb) / len(xb)
	# exp of a log difference: capped below the float limit
	ch = (math.exp(min(d, 700.0)) - 1.0) * 100.0
	if args.test == "rank":
		p = rank_p(xb, xn) if d < 0 else rank_p(xn, xb)
	else:
		t, df = t_test(xb, xn)
		p = t_sf(abs(t), df)
	if not (math.isfinite(p) and math.isfinite(ch)):
		# never a verdict from a NaN: p >= alpha is false for it
		raise zr.InputError("metric values give no number (p=%s, change "
				    "%s)" % (p, ch))
	why = "p=%.2g, %d v %d %s%s" % (p, len(xb), len(xn), units,
					", speed-normalised" if
					args.normalise == "speed" and
					speed_exponent(unit) else "")
	if abs(ch) <= args.threshold:
		return "unchanged", why, ch
	if p >= args.alpha:
		return "noisy", why + " (not below %g)" % args.alpha, ch
	direction = zr.unit_direction(unit)
	if direction == 0:
		return "changed", "unknown direction for unit %s" % unit, ch
	return ("improved" if (ch > 0) == (direction > 0) else "regressed"), \
		why, ch


SPEED_SUFFIX = ".machine.speed"
# Softirq seconds of the whole machine per GB: every other job's traffic
# lands in them too. On the shared VM they caused nearly all false alarms
# of clean pairs (doc/noise.md), so they are shown, not judged.
SYSTEM_WIDE = ".softirq"


def speed_moves(base, new):
	"""Per test, how far the machine speed calibration moved (%), from
	the per-run medians of <test>.machine.speed: reported, never a veto."""
	out = {}
	for name, b in base["metrics"].items():
		n = new["metrics"].get(name)
		if not name.endswith(SPEED_SUFFIX) or not n:
			continue
		vb = [run_value(e, 0) for e in per_run(b)]
		vn = [run_value(e, 0) for e in per_run(n)]
		vb, vn = [v for v in vb if v is not None], \
			[v for v in vn if v is not None]
		if vb and vn:
			out[name[:-len(SPEED_SUFFIX)]] = (math.exp(min(700.0,
				sum(vn) / len(vn) - sum(vb) / len(vb))) - 1) * 100
	return out


def compare_metrics(base, new, args):
	rows = []
	for name in sorted(set(base["metrics"]) | set(new["metrics"])):
		b, n = base["metrics"].get(name), new["metrics"].get(name)
		row = {"name": name, "unit": (b or n)["unit"],
		       "base": spread(b) if b else None,
		       "new": spread(n) if n else None,
		       "base_samples": b["samples"] if b else [],
		       "new_samples": n["samples"] if n else [],
		       "change": None}
		if not b or not n:
			row["verdict"] = "added" if n else "missing"
			row["why"] = "only in NEW" if n else "only in BASE"
		elif b["unit"] != n["unit"]:
			row["verdict"], row["why"] = "noisy", "unit changed %s -> %s" % (
				b["unit"], n["unit"])
		elif name.endswith(SYSTEM_WIDE) and not args.judge_softirq:
			row["change"] = change_pct(b["median"], n["median"])
			row["verdict"] = "shown"
			row["why"] = "system-wide figure: not judged " \
				"(--judge-softirq)"
		elif name.endswith(SPEED_SUFFIX):
			row["change"] = change_pct(b["median"], n["median"])
			# the machine, not the kernel: never a metric change
			row["verdict"] = "speed"
			row["why"] = "machine speed (calibration), not the kernel"
		else:
			row["verdict"], row["why"], row["change"] = \
				metric_verdict(b, n, b["unit"], args)
		note = zcmode_change(base, new, name)
		if note:
			row["why"] = "%s; %s" % (row["why"], note) if row["why"] \
				else note
		rows.append(row)
	return rows


def zcmode_change(base, new, metric):
	"""A rate whose case copied on one side and not on the other measured
	two different paths: say so next to it ("" when the same or unknown)."""
	case = metric.rsplit(".", 1)[0]
	b, n = base["zcmode"].get(case), new["zcmode"].get(case)
	if not b or not n or b["mode"] == n["mode"]:
		return ""
	return "zcmode %s -> %s: not the same path" % (b["mode"], n["mode"])


# Fields of results.json's comparability object, and how to name them.
COMPARABLE = (("cmdline", "kernel command line"),
	      ("config_sha256", "kernel config"),
	      ("cpu_model", "CPU model"), ("governor", "CPU frequency governor"))


def comparability_notes(base, new):
	"""What differs between the machines or kernels of the two sides."""
	notes = []
	cb, cn = base.get("comparabilities", []), new.get("comparabilities", [])
	if cb and cn:
		for key, label in COMPARABLE:
			vb = sorted(set(str(c.get(key)) for c in cb))
			vn = sorted(set(str(c.get(key)) for c in cn))
			if vb != vn:
				notes.append("%s differs: BASE %s, NEW %s" % (
					label, " | ".join(vb)[:120],
					" | ".join(vn)[:120]))
	for side, cs in (("BASE", cb), ("NEW", cn)):
		for c in cs:
			tb, ta = c.get("taint_before"), c.get("taint_after")
			if tb is not None and ta is not None and tb != ta:
				notes.append("%s: kernel taint changed during a run "
					     "(%s -> %s)" % (side, tb, ta))
				break
	tb = set(c.get("taint_after") for c in cb)
	tn = set(c.get("taint_after") for c in cn)
	if cb and cn and tb != tn:
		notes.append("taint flags differ: BASE %s, NEW %s" % (
			sorted(tb, key=str), sorted(tn, key=str)))
	return notes


def norm_reason(r):
	return re.sub(r"\s+", " ", re.sub(r"\d+", "#", r or "")).strip().lower()


def skip_reasons(run):
	return set(norm_reason(c["reason"]) for g in ("tests", "cases")
		   for c in run[g].values() if c["status"] == "skip")


def transition(b, n, known_skips):
	"""(verdict, why) for a status going from b to n (dicts)."""
	bs, ns = b["status"], n["status"]
	if bs == ns:
		if bs == "skip" and norm_reason(b["reason"]) != \
		   norm_reason(n["reason"]):
			return "changed", "skip reason changed"
		return "unchanged", ""
	if ns in BAD and bs not in BAD:
		return "regressed", ""
	# The skip's class, as the binary printed it (zc-results
	# SKIP_CLASSES), else as its reason reads: a cause outside the
	# kernel (a foreign packet tap, a missing capability, an option the
	# build left out, a sysctl, a device's features; or the suite's own
	# harness: starved, stalled, interrupted) cannot judge the kernel,
	# whatever BASE said. Only a kernel-class skip can regress.
	cls, origin = zr.skip_class(n) if ns == "skip" else (None, None)
	if cls in ("environment", "harness"):
		return cls, "skipped for the %s (%s): cannot judge" % (
			cls, "skip-class " + cls if origin == "line"
			else origin)
	if cls == "kernel" and bs in GOOD:
		return "regressed", "skipped for what the kernel lacks " \
			"(skip-class kernel)"
	if ns == "skip":
		if bs in GOOD and norm_reason(n["reason"]) not in known_skips:
			return "regressed", "skipped for a new reason"
		return "changed", "skipped for a reason BASE knew"
	if ns in GOOD and bs in BAD + ("skip",):
		return "improved", ""
	return "changed", ""


def missing_case(key, c, new):
	"""A BASE case absent from NEW: its test skipped whole, or lost it."""
	t = new["tests"].get(c.get("test"))
	if t and t["status"] == "skip":
		return dict({"status": "skip", "reason": t["reason"]},
			    **({"class": t["class"]} if "class" in t else {}))
	if t:
		why = "not reported; test %s%s" % (
			t["status"], ": " + t["reason"] if t["reason"] else "")
	else:
		why = "test did not run"
	return {"status": "missing", "reason": why}


def compare_status(base, new):
	rows = []
	known = skip_reasons(base)
	for group, kind in (("tests", "test"), ("cases", "case")):
		for key in sorted(set(base[group]) | set(new[group])):
			b, n = base[group].get(key), new[group].get(key)
			row = {"kind": kind, "id": key}
			if b and not n:
				n = missing_case(key, b, new) if kind == "case" \
					else {"status": "missing",
					      "reason": "test did not run"}
				if n["status"] == "missing":
					v, why = "regressed", n["reason"]
				else:
					v, why = transition(b, n, known)
			elif n and not b:
				v = "regressed" if n["status"] in BAD else "added"
				why = "only in NEW"
			else:
				v, why = transition(b, n, known)
			row.update(base=b["status"] if b else "-",
				   new=n["status"] if n else "-",
				   base_reason=b["reason"] if b else "",
				   new_reason=n["reason"] if n else "",
				   verdict=v, why=why)
			rows.append(row)
	return rows + compare_zcmode(base, new)


def compare_zcmode(base, new):
	rows = []
	for key in sorted(set(base["zcmode"]) | set(new["zcmode"])):
		b, n = base["zcmode"].get(key), new["zcmode"].get(key)
		bm = b["mode"] if b else "-"
		nm = n["mode"] if n else "-"
		if bm == nm:
			v, why = "unchanged", ""
		elif bm in ZC_RANK and nm in ZC_RANK:
			worse = ZC_RANK[nm] < ZC_RANK[bm]
			v = "regressed" if worse else "improved"
			why = "copies now" if worse else "copies less"
		elif not n:
			v, why = "missing", "only in BASE"
		elif not b:
			v, why = "added", "only in NEW"
		else:
			v, why = "changed", ""
		rows.append({"kind": "zcmode", "id": key, "base": bm,
			     "new": nm, "base_reason": "", "new_reason": "",
			     "verdict": v, "why": why})
	return rows


def count(rows, key="verdict"):
	c = {}
	for r in rows:
		c[r[key]] = c.get(r[key], 0) + 1
	return c


def outside_line(rows):
	"""'cannot decide' for skips of a cause outside the kernel: how many
	of each class, and the first case with its reason."""
	n = count(rows)
	parts = ["%d case(s) skipped for the %s" % (n[c], c)
		 for c in ("environment", "harness") if n.get(c)]
	first = rows[0]
	return "cannot decide: %s (a cause outside the kernel): %s %s: %s" % (
		", ".join(parts), first["kind"], first["id"],
		first["new_reason"] or first["why"])


def decide(metrics, status, strict, allow_short=False, min_runs=MIN_RUNS):
	"""(exit code, one-line result) from the verdict rows."""
	nmet = sum(r["verdict"] == "regressed" for r in metrics)
	nst = sum(r["verdict"] == "regressed" for r in status)
	if nmet or nst:
		return EXIT_REGRESSION, "REGRESSION: %d status change(s), %d " \
			"metric(s) regressed" % (nst, nmet)
	outside = [r for r in status if r["verdict"] in ("environment",
							  "harness")]
	if outside:
		return EXIT_UNDECIDED, outside_line(outside)
	decided = sum(r["verdict"] in ("unchanged", "improved", "changed")
		      for r in metrics)
	ran = sum(r["base"] not in ("skip", "-") and
		  r["new"] not in ("skip", "-", "missing") for r in status)
	if not decided and not ran:
		return EXIT_UNDECIDED, "cannot decide: nothing comparable"
	short = sum(r["verdict"] == "insufficient" for r in metrics)
	if short and not allow_short:
		# a real slowdown measured too briefly must not read as good
		# the line says how to get a decision, not only why not
		more = "give each side %d runs or more (run_tests.sh " \
			"--runs %d)" % (min_runs, min_runs) if min_runs > 1 \
			else "give each run %d repeats or more (-r %d)" % (
				MIN_SAMPLES, MIN_SAMPLES)
		return EXIT_UNDECIDED, "cannot decide: %d metric(s) with too " \
			"few runs or samples to judge: %s, or pass " \
			"--allow-short to let the statuses decide" % (short, more)
	undecided = sum(r["verdict"] in ("noisy", "insufficient")
			for r in metrics)
	if strict and undecided:
		return EXIT_UNDECIDED, "cannot decide: %d metric(s) noisy or " \
			"insufficient (--strict)" % undecided
	if undecided:
		return EXIT_OK, "no regression found; %d metric(s) noisy or " \
			"insufficient" % undecided
	return EXIT_OK, "no regression"


def meta(run):
	k = run.get("kernel") or {}
	m = run.get("machine") or {}
	return {"source": run.get("source"), "kind": run.get("kind"),
		"kernel": k.get("release") or zr.kernel_from_config(run),
		"suite_version": run.get("suite_version"),
		"date": run.get("date"), "nproc": m.get("nproc"),
		"cpu_model": m.get("cpu_model")}


def not_run_rows(base, new):
	"""Tests that ran on one side only: one row each, not judged. Their
	cases, metrics and zcmodes leave both sides (a test left out of a
	run, -t NAME, is no regression of the kernel)."""
	rows = []
	gone = set()
	for side, run, other in (("NEW", base, new), ("BASE", new, base)):
		for t in sorted(set(run["tests"]) - set(other["tests"])):
			gone.add(t)
			rows.append({"kind": "test", "id": t,
				     "base": run["tests"][t]["status"]
				     if side == "NEW" else "-",
				     "new": run["tests"][t]["status"]
				     if side == "BASE" else "-",
				     "base_reason": "", "new_reason": "",
				     "verdict": "not-run",
				     "why": "not run in %s: not judged" % side})
	for run in (base, new):
		for t in gone:
			run["tests"].pop(t, None)
		for group in ("cases", "metrics", "zcmode"):
			run[group] = {k: v for k, v in run[group].items()
				      if v.get("test") not in gone}
	return rows


def compare(base, new, args):
	absent = not_run_rows(base, new)
	metrics = compare_metrics(base, new, args)
	status = compare_status(base, new)
	code, result = decide(metrics, status, args.strict,
			      getattr(args, "allow_short", False),
			      getattr(args, "min_runs", MIN_RUNS))
	if absent and not base["tests"] and not new["tests"]:
		code, result = EXIT_UNDECIDED, "cannot decide: no test ran " \
			"on both sides"
	elif absent:
		result += "; %d test(s) not run on one side, not judged" % \
			len(absent)
	status = absent + status
	notes = ["machine speed (calibration) of %s moved %+.1f%%: reported, "
		 "not used to veto" % (t, ch)
		 for t, ch in sorted(speed_moves(base, new).items())
		 if abs(ch) > args.threshold]
	return {"base": meta(base), "new": meta(new),
		"threshold": args.threshold, "alpha": args.alpha,
		"test": args.test, "normalise": args.normalise,
		"min_samples": MIN_SAMPLES, "min_runs": args.min_runs,
		"clock": [clock_name(c) for c in side_clocks(base)][0],
		"notes": notes + clock_notes(base, new) +
		comparability_notes(base, new),
		"metrics": metrics,
		"status": status, "metric_verdicts": count(metrics),
		"status_verdicts": count(status), "result": result,
		"exit": code,
		"warnings": base.get("warnings", []) + new.get("warnings", [])}


# --------------------------------------------------------------- output

def fnum(v):
	if v is None:
		return "-"
	if abs(v) >= 1e6 or (v and abs(v) < 1e-3):
		return "%.3g" % v
	return ("%.4g" if abs(v) < 100 else "%.0f") % v


def fspread(s):
	if not s:
		return "-"
	return "%s [%s..%s] n=%d" % (fnum(s["median"]), fnum(s["min"]),
				     fnum(s["max"]), s["n"])


def fchange(c):
	if c is None:
		return "-"
	if math.isinf(c):
		return "+inf%" if c > 0 else "-inf%"
	return "%+.1f%%" % c


def describe(side, m):
	bits = [m["source"] or "?"]
	for k, fmt in (("kernel", "kernel %s"), ("suite_version", "suite %s"),
		       ("date", "%s")):
		if m.get(k):
			bits.append(fmt % m[k])
	return "%-4s %s" % (side, ", ".join(bits))


def rule_text(rep):
	if rep.get("clock", "wall").startswith("icount") and \
	   rep["min_runs"] <= 1:
		return "rule (%s clock): each repeat a value when a side has " \
			"one run, else one value per run; real change = %s " \
			"p < %g and |change| > %g%%" % (
				rep["clock"], "t-test" if rep["test"] == "t"
				else "Mann-Whitney", rep["alpha"],
				rep["threshold"])
	return "rule: one value per run (median of its repeats%s); real " \
		"change = %s p < %g and |change| > %g%%; >= %d run(s) a side" % (
			", speed-normalised" if rep["normalise"] == "speed"
			else "", "t-test" if rep["test"] == "t" else
			"Mann-Whitney", rep["alpha"], rep["threshold"],
			rep["min_runs"])


WIDTH = 100
# What the default report shows: a change, not noise (LKP's compare
# hides noise unless asked); --all shows every row.
CHANGED = ("regressed", "improved", "changed")


def emit(out, text, indent="      "):
	"""One logical line, wrapped to WIDTH columns."""
	lines = textwrap.wrap(text, WIDTH, subsequent_indent=indent,
			      break_on_hyphens=False, drop_whitespace=True) or [""]
	for line in lines:
		out.write(line + "\n")


def metric_lines(out, r):
	v = r["verdict"]
	emit(out, "  %-12s %s  %s" % (v.upper() if v == "regressed" else v,
				       r["name"], fchange(r["change"])),
	     " " * 15)
	why = r["why"] if r["why"] and v not in ("unchanged", "derived",
						 "shown", "speed") else ""
	emit(out, "%s%s %s -> %s%s" % (" " * 15, r["unit"], fspread(r["base"]),
				       fspread(r["new"]), "; " + why if why
				       else ""), " " * 17)


def status_line(out, r):
	v = r["verdict"]
	reason = r["new_reason"] or r["base_reason"]
	emit(out, "  %-12s %s %s: %s -> %s%s%s" % (
		v.upper() if v == "regressed" else v, r["kind"], r["id"],
		r["base"], r["new"], " (%s)" % r["why"] if r["why"] else "",
		" [%s]" % reason if reason and reason not in r["why"] else ""),
	     " " * 15)


def rank(v):
	return VERDICT_ORDER.index(v) if v in VERDICT_ORDER else len(VERDICT_ORDER)


def summary_text(rep):
	"""One line: what changed among statuses and metrics, what is not
	counted, and that --all shows the rest."""
	st, mv = rep["status_verdicts"], rep["metric_verdicts"]
	nst = len(rep["status"]) - st.get("unchanged", 0)
	nm = sum(mv.get(k, 0) for k in CHANGED)
	bits = ["%d of %d statuses changed" % (nst, len(rep["status"])),
		"%d of %d metrics changed%s" % (
			nm, len(rep["metrics"]) - mv.get("speed", 0),
			" (%s)" % ", ".join("%d %s" % (mv[k], k) for k in CHANGED
					    if mv.get(k)) if nm else "")]
	quiet = ", ".join("%d %s" % (mv[k], k) for k in
			  ("noisy", "insufficient", "derived", "shown")
			  if mv.get(k))
	if quiet:
		bits.append("not judged or not decided: " + quiet)
	if mv.get("speed"):
		bits.append("%d machine-speed row(s) not counted" % mv["speed"])
	return "; ".join(bits)


def text_report(rep, out, show_all=False):
	out.write("zc-compare\n")
	emit(out, "  " + describe("BASE", rep["base"]), " " * 7)
	emit(out, "  " + describe("NEW", rep["new"]), " " * 7)
	emit(out, "  " + rule_text(rep), "    ")
	ms = [r for r in rep["metrics"] if show_all or r["verdict"] in CHANGED]
	st = [r for r in rep["status"]
	      if show_all or r["verdict"] != "unchanged"]
	out.write("\n")
	if ms:
		out.write("metrics%s:\n" % ("" if show_all else " that changed"))
		for r in sorted(ms, key=lambda r: (rank(r["verdict"]),
						   r["name"])):
			metric_lines(out, r)
	if st:
		out.write("statuses%s:\n" % ("" if show_all else
					     " that changed"))
		for r in sorted(st, key=lambda r: (rank(r["verdict"]),
						   r["kind"], r["id"])):
			status_line(out, r)
	for w in rep["warnings"]:
		emit(out, "warning: %s" % w)
	for note in rep["notes"]:
		emit(out, "note: %s" % note)
	if ms or st or rep["warnings"] or rep["notes"]:
		out.write("\n")
	emit(out, "summary: %s%s" % (summary_text(rep), "" if show_all else
				      " (--all shows every row)"))
	emit(out, "result: %s (exit %d)" % (rep["result"], rep["exit"]))


VERDICT_ORDER = ["regressed", "improved", "noisy", "insufficient", "changed",
		 "environment", "harness", "missing", "added", "not-run",
		 "derived", "shown", "speed", "unchanged"]
COLORS = {"regressed": "#c0392b", "improved": "#1e8449",
	  "unchanged": "#5d6d7e", "noisy": "#b9770e",
	  "insufficient": "#b9770e", "changed": "#2e86c1",
	  "added": "#2e86c1", "missing": "#7d3c98", "derived": "#5d6d7e",
	  "not-run": "#5d6d7e",
	  "shown": "#5d6d7e", "speed": "#5d6d7e", "environment": "#b9770e",
	  "harness": "#b9770e"}


def svg_chart(r):
	"""Two bars (BASE, NEW) at the medians with min..max whiskers."""
	e = html.escape
	sides = [("BASE", r["base"], r["base_samples"], "#95a5a6"),
		 ("NEW", r["new"], r["new_samples"],
		  COLORS.get(r["verdict"], "#5d6d7e"))]
	vals = [v for _, s, _, _ in sides if s
		for v in (s["min"], s["max"], s["median"])]
	top = max(vals + [0.0]) or 1.0
	low = min(vals + [0.0])
	span = (top - low) * 1.1 or 1.0
	h, base_y, x0 = 150, 170, 70

	def y(v):
		return base_y - (v - low) / span * h

	parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="300" '
		 'height="200" role="img" aria-label="%s">' % e(r["name"]),
		 '<line x1="%d" y1="%.1f" x2="290" y2="%.1f" stroke="#999"/>'
		 % (x0 - 10, y(0 if low <= 0 else low), y(0 if low <= 0 else low)),
		 '<text x="%d" y="%.1f" font-size="10" text-anchor="end">%s'
		 '</text>' % (x0 - 14, y(top) + 4, e(fnum(top))),
		 '<text x="%d" y="%.1f" font-size="10" text-anchor="end">%s'
		 '</text>' % (x0 - 14, y(low) + 4, e(fnum(low)))]
	for i, (label, s, samples, color) in enumerate(sides):
		cx = x0 + 50 + i * 110
		parts.append('<text x="%d" y="195" font-size="11" '
			     'text-anchor="middle">%s</text>' % (cx, label))
		if not s:
			parts.append('<text x="%d" y="%d" font-size="11" '
				     'text-anchor="middle">absent</text>'
				     % (cx, base_y - 10))
			continue
		y0 = y(max(low, 0) if low <= 0 else low)
		ym = y(s["median"])
		parts.append('<rect x="%d" y="%.1f" width="60" height="%.1f" '
			     'fill="%s"><title>%s median %s</title></rect>'
			     % (cx - 30, min(ym, y0), abs(y0 - ym), color, label,
				e(fnum(s["median"]))))
		parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" '
			     'stroke="#222" stroke-width="1.5"/>'
			     % (cx, y(s["max"]), cx, y(s["min"])))
		for v in (s["min"], s["max"]):
			parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" '
				     'stroke="#222" stroke-width="1.5"/>'
				     % (cx - 10, y(v), cx + 10, y(v)))
		for v in samples:
			parts.append('<circle cx="%d" cy="%.1f" r="2" '
				     'fill="#222" opacity="0.6"/>'
				     % (cx + 18, y(v)))
		parts.append('<text x="%d" y="%.1f" font-size="10" '
			     'text-anchor="middle">%s</text>'
			     % (cx, min(ym, y(s["max"])) - 4,
				e(fnum(s["median"]))))
	parts.append("</svg>")
	return "".join(parts)


CSS = """body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1250px}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:left}
.grid{display:flex;flex-wrap:wrap;gap:12px}
.card{border:1px solid #ccc;padding:6px;width:300px}
.card h3{font-size:12px;margin:0 0 4px 0;overflow-wrap:normal;word-break:normal}
.u{white-space:nowrap}
.v{font-weight:bold}
.verdict{font-size:1.4em;font-weight:bold;margin:.4em 0}
summary{cursor:pointer;margin:.6em 0;font-weight:bold}
"""


def title_html(name):
	"""A metric name that may break only after a dot (<wbr>), never
	inside a word; the unit stays whole beside it."""
	return "<wbr>".join(html.escape(p) for p in re.split(r"(?<=\.)", name))


def card(r):
	e = html.escape
	return ('<div class="card"><h3>%s <span class="u">(%s)</span></h3>%s'
		'<div class="v" style="color:%s">%s %s</div></div>'
		% (title_html(r["name"]), e(r["unit"]), svg_chart(r),
		   COLORS.get(r["verdict"], "#222"), e(r["verdict"]),
		   e(fchange(r["change"]))))


def why_text(r):
	"""The reason beside a verdict, without repeating the verdict."""
	why = r["why"] or ""
	return why[len(r["verdict"]):].lstrip(" :,") \
		if why.startswith(r["verdict"]) else why


def metric_table(rows):
	e = html.escape
	out = ["<table><tr><th>metric</th><th>unit</th><th>base median "
	       "[min..max]</th><th>new median [min..max]</th><th>change</th>"
	       "<th>verdict</th></tr>"]
	for r in rows:
		why = why_text(r)
		out.append('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
			   '<td>%s</td><td style="color:%s">%s%s</td></tr>'
			   % (e(r["name"]), e(r["unit"]), e(fspread(r["base"])),
			      e(fspread(r["new"])), e(fchange(r["change"])),
			      COLORS.get(r["verdict"], "#222"), e(r["verdict"]),
			      e(": " + why) if why else ""))
	out.append("</table>")
	return "\n".join(out)


def html_report(rep):
	"""The verdict and what changed first; the rest folded (<details>,
	no scripts)."""
	e = html.escape
	res_color = "#c0392b" if rep["exit"] == 1 else \
		"#1e8449" if rep["exit"] == 0 else "#b9770e"
	ms = sorted(rep["metrics"], key=lambda r: (rank(r["verdict"]),
						   r["name"]))
	moved = [r for r in ms if r["verdict"] in CHANGED]
	rest = [r for r in ms if r["verdict"] not in CHANGED]
	changed = [r for r in rep["status"] if r["verdict"] != "unchanged"]
	same = [r for r in rep["status"] if r["verdict"] == "unchanged"]
	out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
	       '<title>zc-compare</title><style>%s</style></head><body>' % CSS,
	       "<h1>zc-compare</h1>",
	       '<p class="verdict" id="verdict" style="color:%s">%s (exit %d)'
	       '</p>' % (res_color, e(rep["result"]), rep["exit"]),
	       "<p>%s</p>" % e(summary_text(rep))]
	out.append("<h2>Metrics that changed</h2>")
	if moved:
		out.append('<div class="grid">%s</div>' %
			   "".join(card(r) for r in moved))
	else:
		out.append("<p>none</p>")
	out.append("<h2>Statuses that changed</h2>")
	out.append(status_table(changed) if changed else "<p>none</p>")
	out.append("<h2>The rest</h2>")
	out.append("<details><summary>about the runs</summary><p>%s<br>%s</p>"
		   "<p>%s</p>%s</details>" % (
			   e(describe("BASE", rep["base"])),
			   e(describe("NEW", rep["new"])), e(rule_text(rep)),
			   "".join("<p>note: %s</p>" % e(n)
				   for n in rep["notes"])))
	if rest:
		out.append('<details><summary>%d other metrics (%s)</summary>'
			   '<div class="grid">%s</div></details>' % (
				   len(rest), e(", ".join(
					   "%d %s" % (c, v) for v, c in
					   sorted(count(rest).items(),
						  key=lambda x: rank(x[0])))),
				   "".join(card(r) for r in rest)))
	if ms:
		out.append("<details><summary>every metric, as a table</summary>"
			   "%s</details>" % metric_table(ms))
	if same:
		out.append("<details><summary>%d statuses unchanged</summary>%s"
			   "</details>" % (len(same), status_table(same)))
	out.append("</body></html>\n")
	return "\n".join(out)


def status_table(rows):
	e = html.escape
	out = ["<table><tr><th>kind</th><th>id</th><th>base</th><th>new</th>"
	       "<th>verdict</th><th>reason</th></tr>"]
	for r in rows:
		why = r["new_reason"] or r["base_reason"]
		reason = r["why"] + (" [%s]" % why if why else "")
		out.append('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
			   '<td style="color:%s">%s</td><td>%s</td></tr>'
			   % (e(r["kind"]), e(r["id"]), e(r["base"]),
			      e(r["new"]), COLORS.get(r["verdict"], "#222"),
			      e(r["verdict"]), e(reason)))
	out.append("</table>")
	return "\n".join(out)


def json_report(rep):
	def clean(o):
		if isinstance(o, float) and not math.isfinite(o):
			return None
		if isinstance(o, dict):
			return {k: clean(v) for k, v in o.items()}
		if isinstance(o, list):
			return [clean(v) for v in o]
		return o
	return json.dumps(clean(rep), indent=1, sort_keys=True) + "\n"


# ----------------------------------------------------------------- main

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
		       help="smallest real change in percent (default %g; "
		       "%g when both sides ran under qemu's instruction "
		       "counting, vmtest --icount)" % (THRESHOLD,
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
