# SPDX-License-Identifier: GPL-2.0
"""zc-compare's judgement: its rules (thresholds, alpha, the statuses
that count as works), the statistics over runs, each metric's and
each case's verdict, and the report's decision.
"""

import math
import re

from zc import results as zr
from zc.provenance import kernel_from_config
from zc.cmprun import ZC_RANK, clock_name, clock_notes, run_entry, side_clocks


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
# spread, not the test. 1 %: the rule of a test whose spread across
# rebuilds of a kernel has not been measured (xsk_bind's receive paths
# and sockmap_splice scatter 0.4-3.9 % across boots: doc/noise.md). And
# one run a side is judged by its repeats (the runs of one boot do not
# drift as a host does).
ICOUNT_THRESHOLD = 1.0

# Per test, where clean rebuilds were measured (doc/noise.md, "Below 1 %
# under icount"): 31 layout variants of Debian's 6.12.118 tree (text and
# data of everything after init/ moved), one boot each, 2026-12-05: no
# pair of the 465 reached 0.13 % on a metric the t-test separated, every
# such metric's SD over the variants <= 0.038 % (uring_send's aside: its
# spread is inside a run, separated only below 0.03 %). 0.25 %: twice the
# largest separated |change| and above 5.2 SD (<= 1 % false alarms a
# step over 40 metrics if the spread is normal); a planted store per
# page (-0.3 to -0.4 %) regressed against all 31.
ICOUNT_THRESHOLDS = {"sendzc_notif": 0.25, "tap_copy": 0.25}

ICOUNT_MIN_RUNS = 1

# Statuses that count as "works"; a case leaving them for one of BAD regressed.
GOOD = ("pass", "xfail")

BAD = ("fail", "xpass", "error", "unknown")


def spread(m):
	return {"median": m["median"], "min": m["min"], "max": m["max"],
		"n": int(m["n"]), "runs": len(per_run(m))}


def change_pct(b, n):
	if b == 0:
		return 0.0 if n == 0 else math.copysign(math.inf, n)
	return (n - b) / abs(b) * 100.0


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


def metric_threshold(m, args):
	"""The threshold metric m is judged at: its test's own under icount
	(args.test_thresholds, set only when no --threshold was given),
	else args.threshold."""
	return getattr(args, "test_thresholds", {}).get(m.get("test"),
							 args.threshold)


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
	if abs(ch) <= metric_threshold(b, args):
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
		"kernel": k.get("release") or kernel_from_config(run),
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
		"threshold": args.threshold,
		"test_thresholds": getattr(args, "test_thresholds", {}),
		"alpha": args.alpha,
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
