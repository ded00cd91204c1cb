# SPDX-License-Identifier: GPL-2.0
"""zc-compare's report of a judgement: text, HTML (with its charts)
and JSON.
"""

import html
import json
import math
import re
import textwrap

from zc.cmpjudge import count


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


def threshold_text(rep):
	"""The rule's threshold, with the tests judged at their own."""
	own = rep.get("test_thresholds") or {}
	return "%g%%%s" % (rep["threshold"], " (%s)" % ", ".join(
		"%s %g%%" % kv for kv in sorted(own.items())) if own else "")


def rule_text(rep):
	if rep.get("clock", "wall").startswith("icount") and \
	   rep["min_runs"] <= 1:
		return "rule (%s clock): each repeat a value when a side has " \
			"one run, else one value per run; real change = %s " \
			"p < %g and |change| > %s" % (
				rep["clock"], "t-test" if rep["test"] == "t"
				else "Mann-Whitney", rep["alpha"],
				threshold_text(rep))
	return "rule: one value per run (median of its repeats%s); real " \
		"change = %s p < %g and |change| > %s; >= %d run(s) a side" % (
			", speed-normalised" if rep["normalise"] == "speed"
			else "", "t-test" if rep["test"] == "t" else
			"Mann-Whitney", rep["alpha"], threshold_text(rep),
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
