# SPDX-License-Identifier: GPL-2.0
"""zc-compare's input: a run as it reads one (a results directory, a
TAP log, a vmtest folder), its runs pooled, its clock, renamed cases
and metrics (RENAMES), the cases selected.
"""

import fnmatch
import json
import math
import os
import sys

from zc import results as zr
from zc.provenance import apply_provenance


ZC_RANK = {"zerocopy": 2, "mixed": 1, "copied": 0}


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
	# An entry's names key sets and dicts further on: strings or absent.
	for group in ("cases", "metrics", "zcmode"):
		for name, e in run[group].items():
			if any(e.get(k) is not None and not isinstance(e[k], str)
			       for k in ("test", "case", "name")):
				raise zr.InputError("bad %s entry '%s'" %
						    (group.rstrip("s"), name))
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
	apply_provenance(run)


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


def run_dirs(path):
	"""The runs a pool directory holds: results directories, vmtest -o
	directories and vmtest kernel folders, or symbolic links to any of
	them (followed: a pool is often links to runs kept elsewhere)."""
	return sorted(os.path.join(path, d) for d in os.listdir(path)
		      if is_run_dir(os.path.join(path, d)))


def is_run_dir(path):
	return is_vmtest_dir(path) or is_vmtest_column(path) or \
		is_results_dir(path)


def load_run(path):
	"""One run of a pool, annotated (its clock kept apart)."""
	if is_vmtest_dir(path):
		return annotate(load_vmtest(path))
	if is_vmtest_column(path):
		return annotate(load_column(path, path))
	return annotate(load_dir(path))


def load_pool(path):
	subs = run_dirs(path)
	if not subs:
		raise zr.InputError("%s: no results in it (results.json, "
				    "<test>.log, run.tap or run directories)"
				    % path)
	return pool([load_run(d) for d in subs], path)


def is_vmtest_dir(path):
	"""A tools/vmtest -o directory: its columns file names the kernels."""
	return os.path.isfile(os.path.join(path, "columns")) and \
		os.path.isfile(os.path.join(path, "skipped.json"))


def is_vmtest_column(path):
	"""One kernel's folder of a vmtest -o directory (its console.log
	would make it look like a results directory of one odd test)."""
	return os.path.isfile(os.path.join(path, "column.json")) and \
		os.path.isdir(os.path.join(path, "results"))


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
	return load_column(path, os.path.join(path, cols[0]))


def load_column(path, col):
	"""One kernel's runs (col/results/suite and each NIC pair's)."""
	res = os.path.join(col, "results")
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
		if is_vmtest_column(path):
			return load_column(path, path)
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
