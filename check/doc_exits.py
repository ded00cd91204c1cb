#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""doc_exits.py TOP BUILD: every exit code README.md and doc/ write for
a command against the codes that command's --help lists, and each
command's usage error against what it does. One TAP line per command
and one per page, for check/tools/t_docs.sh.

A claim is "exit N" / "exits N" / "exit status N" / "exit code N" in a
paragraph, list item or table row that names exactly the commands it is
about; a code outside the union of their --help "Exit" lines is a doc
that contradicts the tool (issue 34, item 6)."""

import os
import re
import subprocess
import sys

TOP, BUILD = sys.argv[1], sys.argv[2]
TESTS = ("sendzc_notif", "tap_copy", "xsk_bind", "sockmap_splice")
# name, how to run it, how the docs name it
COMMANDS = [
	("run_tests.sh", [TOP + "/run_tests.sh"], r"run_tests\.sh|--baseline\b"),
	("zc-compare", [TOP + "/tools/zc-compare"], r"zc-compare"),
	("zc-results", [TOP + "/tools/zc-results"], r"zc-results"),
	("zc-power", [TOP + "/tools/zc-power"], r"zc-power"),
	("zc-peer-bench", [TOP + "/tools/zc-peer-bench"], r"zc-peer-bench"),
	("vmtest", [TOP + "/tools/vmtest"], r"(?<![-\w])vmtest\b(?!\.md)"),
	("lavacheck", [TOP + "/tools/lavacheck"], r"(?<![-\w])lavacheck\b"),
	("deps.sh", [TOP + "/tools/deps.sh"], r"deps\.sh"),
	("run_checks.sh", [TOP + "/check/run_checks.sh"], r"run_checks\.sh"),
	("zc-doctor", [BUILD + "/zc-doctor"], r"zc-doctor"),
] + [(t, [BUILD + "/" + t], r"(?<![\w/-])%s(?![\w.-])" % t) for t in TESTS]
USAGE = r"\bbad input\b|\bunknown options?\b|\bbad values?\b"
# "the binaries", "every test": any of the tests
BINARIES = r"\b(?:test )?binar(?:y|ies)\b|\bevery test\b"
CLAIM = re.compile(r"\bexit(?:s|ed| status| code| codes)?:?\s+(?:is\s+|with\s+)?"
		   r"(\d{1,3})(?![\d%]|\.\d)")
# "exit 0 good, 1 bad, 125 cannot decide": the codes listed after the first
LISTED = re.compile(r"^[^.;()]{0,40}?(?:,|\bor|\band)\s+(\d{1,3})\s+[a-z][a-z]")


def claimed(unit):
	"""Every exit code a unit writes."""
	out = set()
	for m in CLAIM.finditer(unit):
		out.add(int(m.group(1)))
		rest = unit[m.end():]
		while True:
			li = LISTED.match(rest)
			if not li:
				break
			out.add(int(li.group(1)))
			rest = rest[li.end(1):]
	return out


def help_codes(cmd):
	"""The codes the --help text's Exit sentence lists, or None."""
	out = subprocess.run(cmd + ["--help"], capture_output=True, text=True,
			     timeout=60).stdout
	m = re.search(r"\b[Ee]xit\b[^:\n]{0,40}:\s*\d", out)
	if not m:
		return None
	return set(int(x) for x in re.findall(r"(?<![\w.+])(\d{1,3})(?![\w.])",
					       out[m.start():]))


def usage_code(cmd):
	"""What the command does with an option it does not know."""
	return subprocess.run(cmd + ["--no-such-option-zc"],
			      capture_output=True, text=True, timeout=60,
			      stdin=subprocess.DEVNULL).returncode


def units(text):
	"""Paragraphs, list items and table rows, outside code blocks; a
	heading is a unit of its own."""
	text = re.sub(r"```.*?```", "", text, flags=re.S)
	text = re.sub(r"^(#+ .*)$", r"\n\1\n", text, flags=re.M)
	for para in re.split(r"\n\s*\n", text):
		cur = []
		for line in para.split("\n"):
			if re.match(r"\s*(\| |- |\d+\. )", line) and cur:
				yield " ".join(cur)
				cur = []
			cur.append(line.strip())
		if cur:
			yield " ".join(cur)


n = 0
bad = 0
codes = {}
usages = set()


def result(good, name, note):
	global n, bad
	n += 1
	if not good:
		bad += 1
	print("%sok %d %s # %s" % ("" if good else "not ", n, name, note))


for name, cmd, _ in COMMANDS:
	try:
		c = help_codes(cmd)
		u = usage_code(cmd)
	except OSError as e:
		n += 1
		print("ok %d item34.exits.%s # SKIP %s" % (n, name, e.strerror))
		continue
	if c is None:
		result(False, "item34.exits.%s" % name, "--help has no Exit line")
		continue
	codes[name] = c
	usages.add(u)
	result(u == 128 and 128 in c, "item34.exits.%s" % name,
	       "--help lists %s; an unknown option exits %d" % (
		       ",".join(str(x) for x in sorted(c)), u))

# every command's usage error is one code (128 when they agree)
usage = min(usages) if len(usages) == 1 else 128
pages = ["README.md"] + sorted("doc/" + f for f in os.listdir(TOP + "/doc")
			       if f.endswith(".md"))
for page in pages:
	wrong = []
	claims = 0
	for unit in units(open(os.path.join(TOP, page)).read()):
		said = claimed(unit)
		if not said:
			continue
		# bad input is a usage error, 128, for every command (each
		# one's unknown option is run above): a page giving it
		# another code is wrong whatever it names
		if re.search(USAGE, unit, re.I) and usage not in said:
			wrong.append("bad input is %d, not %s: '%s'" % (
				usage, ",".join(str(x) for x in sorted(said)),
				unit[:110]))
		about = [nm for nm, _, rx in COMMANDS
			 if nm in codes and re.search(rx, unit)]
		if re.search(BINARIES, unit):
			about += [t for t in TESTS if t in codes and t not in about]
		if not about:
			continue
		allowed = set().union(*(codes[a] for a in about))
		claims += len(said)
		for x in sorted(said - allowed):
			wrong.append("exit %d for %s: '%s'" % (
				x, "/".join(about), unit[:110]))
	result(not wrong, "item34.doc_exits.%s" % page,
	       "; ".join(wrong[:2]) if wrong else
	       "%d exit codes written for named commands" % claims)
print("1..%d" % n)
sys.exit(1 if bad else 0)
