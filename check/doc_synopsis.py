#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""doc_synopsis.py TOP BUILD: every command's --help options against the
synopsis its doc page gives (in a fenced block, a line starting with the
command and a "[", with its indented continuation lines), one TAP line
per command, for check/tools/t_docs.sh."""

import re
import subprocess
import sys

TOP, BUILD = sys.argv[1], sys.argv[2]
# command, how to run it, the page, the synopsis' first word
COMMANDS = [
	("run_tests.sh", [TOP + "/run_tests.sh"], "doc/running.md", "run_tests.sh"),
	("zc-compare", [TOP + "/tools/zc-compare"], "doc/results.md", "tools/zc-compare"),
	("zc-results", [TOP + "/tools/zc-results"], "doc/results.md", "tools/zc-results"),
	("zc-power", [TOP + "/tools/zc-power"], "doc/noise.md", "tools/zc-power"),
	("zc-peer-bench", [TOP + "/tools/zc-peer-bench"], "doc/noise.md", "tools/zc-peer-bench"),
	("zc-peer-outside", [TOP + "/tools/zc-peer-outside"], "doc/noise.md", "tools/zc-peer-outside"),
	("vmtest", [TOP + "/tools/vmtest"], "doc/vmtest.md", "tools/vmtest"),
	("lavacheck", [TOP + "/tools/lavacheck"], "doc/running.md", "tools/lavacheck"),
	("deps.sh", [TOP + "/tools/deps.sh"], "doc/running.md", "tools/deps.sh"),
	("zc-doctor", [BUILD + "/zc-doctor"], "doc/why-copies.md", "tools/zc-doctor"),
]
OPT = re.compile(r"--[a-z][a-z0-9-]*")


def help_options(cmd):
	out = subprocess.run(cmd + ["--help"], capture_output=True, text=True,
			     timeout=60).stdout
	opts = set()
	for line in out.splitlines():
		if not re.match(r"^ {1,6}-", line):
			continue
		# the option column ends where two spaces start the help text
		col = re.split(r"(?<=\S)\s{2,}", line.strip(), maxsplit=1)[0] + " "
		opts |= set(OPT.findall(col))
	return opts - {"--help"}


def synopsis_options(page, first):
	text = open("%s/%s" % (TOP, page)).read()
	for block in re.findall(r"```\n(.*?)```", text, re.S):
		lines = block.split("\n")
		start = re.compile(r"^(\./)?%s( |$)" % re.escape(first))
		if not any(start.match(l) and "[" in l for l in lines):
			continue
		# the synopsis: every line of the block starting with the
		# command, with its indented continuations
		syn, inside = [], False
		for line in lines:
			if start.match(line):
				inside = True
			elif not line.startswith(" "):
				inside = False
			if inside:
				syn.append(line)
		return set(OPT.findall("\n".join(syn))) - {"--help"}
	return None


n = 0
bad = 0
for name, cmd, page, first in COMMANDS:
	n += 1
	try:
		h = help_options(cmd)
	except OSError as e:
		print("ok %d item11.synopsis.%s # SKIP %s" % (n, name, e.strerror))
		continue
	d = synopsis_options(page, first)
	if d is None:
		bad += 1
		print("not ok %d item11.synopsis.%s # no synopsis block in %s" % (n, name, page))
	elif h != d:
		bad += 1
		print("not ok %d item11.synopsis.%s # %s: --help only: %s; synopsis only: %s" % (
			n, name, page, " ".join(sorted(h - d)) or "-", " ".join(sorted(d - h)) or "-"))
	else:
		print("ok %d item11.synopsis.%s # %d options, %s" % (n, name, len(h), page))
print("1..%d" % n)
sys.exit(1 if bad else 0)
