# SPDX-License-Identifier: GPL-2.0
"""The kernels' results as a matrix: columns parsed, cells, the
matrix and its reasons printed, the run's verdict.
"""

import os
import re

from zc import results as zr
from zc.vmbase import read_text


# ------------------------------------------------------------- matrix

def col_pairs(col):
	"""[(results subdirectory, row suffix, description)] of a column's
	NIC pairs; a column from before two pairs has one "nic"."""
	pairs = col.get("pairs")
	if pairs is None:
		pairs = [{"key": "nic", "nic": col["nic"], "role": "send paths"}] \
			if col.get("nic") else []
	names = [p["nic"] for p in pairs]
	out = []
	for p in pairs:
		name = p["nic"] if names.count(p["nic"]) == 1 else \
			"%s.%s" % (p["nic"], p["key"])
		out.append((p["key"], "@" + name, p))
	return out


def parse_column(zr, col):
	"""{row key: cell} for one kernel; row keys 'test/case'."""
	cells = {}
	order = []
	if not col.get("results"):
		return cells, order
	subs = [("suite", "")] + [(k, sfx) for k, sfx, _ in col_pairs(col)]
	for sub, suffix in subs:
		d = os.path.join(col["results"], sub)
		if not os.path.isfile(os.path.join(d, "run.tap")):
			# a pair that was there but left no run: say so
			if sub != "suite" and \
			   os.path.isfile(os.path.join(d, "pair")):
				col["problems"].append(
					"%s pair: run_tests.sh left no run.tap" % sub)
			continue
		try:
			runinfo = zr.parse_results_dir(d)
		except zr.InputError as e:
			col["problems"].append(str(e))
			continue
		for test, t in runinfo["tests"].items():
			key = test + suffix
			cases = [(c, v) for c, v in runinfo["cases"].items()
				 if v["test"] == test]
			cells[key] = {"status": t["status"], "reason": t["reason"],
				      "metric": "", "test": True}
			order.append(key)
			figs = case_figures(zr, os.path.join(d, test + ".log"))
			for ck, v in cases:
				rk = "%s/%s" % (key, v["case"])
				cells[rk] = {"status": v["status"],
					     "reason": v["reason"],
					     "metric": figs.get(v["case"], ""),
					     "test": False}
				order.append(rk)
	return cells, order


FIGURES = ("throughput", "pps", "ratio")

ZC_SHORT = {"zerocopy": "zc", "copied": "copied", "mixed": "mixed",
	    "none": "-"}


def case_figures(zr, path):
	"""{case: short text}: the copy verdict and first figure printed
	before each case's result line (a case prints its own figures)."""
	out = {}
	zc, best, ratio = None, None, None
	for line in read_text(path).splitlines():
		if line.startswith("# metric "):
			m = zr.parse_metric(line[9:])
			if m:
				fig = m["name"].rsplit(".", 1)[-1]
				if fig == "zc_over_copy":
					ratio = m["median"]
					continue
				rank = FIGURES.index(fig) if fig in FIGURES \
					else len(FIGURES)
				if best is None or rank < best[0]:
					best = (rank, m)
			continue
		if line.startswith("# zcmode "):
			z = zr.parse_zcmode(line[9:])
			if z and zc is None:
				zc = z["mode"]
				# witnessed counts (xsk_bind): zero-copy/copied
				if " xdp_options=" in line:
					zc = "%s %d/%d" % (ZC_SHORT.get(zc, zc),
							   z.get("zerocopy", 0),
							   z.get("copied", 0))
			continue
		r = zr.RE_RESULT.match(line)
		if not r:
			continue
		name, _ = zr.split_directive(r.group(3))
		parts = [ZC_SHORT.get(zc, zc)] if zc else []
		if best:
			parts.append(fmt_num(best[1]["median"]) + best[1]["unit"])
		if ratio is not None:
			parts.append("x%.2f" % ratio)	# zero-copy over copy
		out[name] = " ".join(parts)
		zc, best, ratio = None, None, None
	return out


def fmt_num(v):
	if v == 0:
		return "0"
	a = abs(v)
	if a >= 100:
		return "%.0f" % v
	if a >= 10:
		return "%.1f" % v
	return "%.3g" % v


SHORT = {"pass": "pass", "fail": "FAIL", "skip": "skip", "xfail": "xfail",
	 "xpass": "XPASS", "unknown": "?", "error": "ERROR"}


def build_matrix(zr, cols):
	rows = []
	data = []
	for col in cols:
		cells, order = parse_column(zr, col)
		data.append(cells)
		for k in order:
			if k not in rows:
				rows.append(k)
	# keep each test's rows together, tests in first-seen order
	tests = []
	for k in rows:
		t = k.split("/")[0]
		if t not in tests:
			tests.append(t)
	rows = [k for t in tests for k in rows if k.split("/")[0] == t]
	return rows, data


def cell_text(cell):
	if cell is None:
		return "-"
	s = SHORT.get(cell["status"], cell["status"])
	if cell["status"] == "fail" and "TIMEOUT" in cell["reason"]:
		s = "TIMEOUT"
	if cell["metric"]:
		s += " " + cell["metric"]
	return s


def print_matrix(cols, rows, data, f):
	heads = [c["label"] for c in cols]
	table = []
	for k in rows:
		t, _, case = k.partition("/")
		name = ("  " + case) if case else t
		table.append([name] + [cell_text(d.get(k)) for d in data])
	w = [max([len("case")] + [len(r[0]) for r in table])]
	for i, h in enumerate(heads):
		w.append(max([len(h)] + [len(r[i + 1]) for r in table]))
	line = "  ".join(("%-*s" % (w[i], x)) for i, x in
			 enumerate(["case"] + heads))
	f.write(line.rstrip() + "\n")
	f.write("  ".join("-" * x for x in w) + "\n")
	for r in table:
		f.write("  ".join(("%-*s" % (w[i], x)) for i, x in
				  enumerate(r)).rstrip() + "\n")


def explained(d, k, c):
	"""A whole-test row whose cases carry the reasons already."""
	if not c["test"]:
		return False
	kids = [v for x, v in d.items() if x.startswith(k + "/")]
	if c["status"] == "fail":
		return any(v["status"] in ("fail", "xpass") for v in kids) and \
			c["reason"].startswith("exit=")
	return bool(kids)


def short(text, n=150):
	return text if len(text) <= n else text[:n - 3] + "..."


def print_reasons(cols, rows, data, f):
	"""Why each case skipped or failed, one line per kernel and reason."""
	out = []
	for col, d in zip(cols, data):
		seen = {}
		for k in rows:
			c = d.get(k)
			if not c or c["status"] == "pass" or explained(d, k, c):
				continue
			r = c["reason"] or "(no reason given)"
			case = k.partition("/")[2]
			if case and r.startswith(case + ": "):
				r = r[len(case) + 2:]
			seen.setdefault((c["status"], r), []).append(k)
		for (st, r), keys in seen.items():
			names = ", ".join(keys[:3]) + (
				" (+%d)" % (len(keys) - 3) if len(keys) > 3 else "")
			out.append("  %s: %s %s: %s" % (col["label"], st, names,
							short(r)))
	if out:
		f.write("\nreasons:\n" + "\n".join(out) + "\n")


def verdict(cols, rows, data, check):
	"""What makes the run fail: crashes, hangs, failed cases, and with
	check, a skip without a reason."""
	bad = []
	for col, d in zip(cols, data):
		for p in col["problems"]:
			bad.append("%s: %s" % (col["label"], p))
		n = [k for k in rows if d.get(k) and
		     d[k]["status"] in ("fail", "xpass", "error", "unknown") and
		     not explained(d, k, d[k])]
		if n:
			bad.append("%s: %d failed: %s" % (
				col["label"], len(n), short(", ".join(n), 300)))
		if col.get("results") is None and not col["problems"]:
			bad.append("%s: no results" % col["label"])
	if check:
		for col, d in zip(cols, data):
			for k in rows:
				c = d.get(k)
				if c and c["status"] in ("skip", "xfail") and \
				   not c["reason"] and not explained(d, k, c):
					bad.append("%s: %s %s without a reason" %
						   (col["label"], k, c["status"]))
				if c and c["status"] == "pass" and \
				   XSK_ZC_ROW.search(k) and \
				   not XSK_ZC_SEEN.match(c["metric"]):
					bad.append("%s: %s passed without frames "
						   "witnessed zero-copy (%s)" %
						   (col["label"], k, c["metric"] or
						    "no zcmode line"))
	return bad


# A native zero-copy receive row over a NIC pair passes only with frames
# its witness saw in the socket's pool (zcmode "zc N/0"): the witness can
# fail there, as it must report copies on veth (check/live/t_xsk_bind.sh).
XSK_ZC_ROW = re.compile(r"^xsk_bind@[^/]+/(rxdrop|l2fwd)\.zerocopy\.native$")

XSK_ZC_SEEN = re.compile(r"^zc [1-9][0-9]*/0\b")
