#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fuzz_tools.py SEED COUNT SECONDS FIXTURES SCRATCH

Feed tools/zc-compare and tools/zc-results mutated results.json files
and TAP logs made from the recorded fixtures; every input must end in
an exit code the tools document (zc-compare 0, 1 or 125; zc-results 0
or 125) with at most one line on stderr, never an exception, never a
hang: 1 s of CPU a call (SIGPROF: a loop that does not end), or 20 s on
the clock (SIGALRM: a wait that does not end). A machine that stops
this process for a second is no hang: make check once counted one on
the wall clock's 1 s, and the same seed ran clean after. Prints TAP.
The tools run in this process, so thousands of inputs take seconds.
"""

import contextlib
import io
import json
import os
import random
import shutil
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools", "py"))
from zc import compare, results  # noqa: E402


class Hang(Exception):
	pass


CPU_LIMIT_S = 1.0
WALL_LIMIT_S = 20


def on_alarm(sig, frame):
	raise Hang()


HOSTILE_NUMS = ["1e308", "-1e308", "1e999", "inf", "-inf", "nan", "NaN",
		"0", "-0", "1e-320", "4.9e-324", "99999999999999999999999",
		"-1", "0x10", "1_000", "", "."]
HOSTILE_VALS = [1e308, -1e308, 1e-320, 0, -1, 2 ** 80, True, None, "",
		"x" * 300, [], {}, [1e308] * 5, {"a": []}, -0.0, 5e-324]


def deep(n):
	return "[" * n + "]" * n


def mutate_value(rnd, v, depth=0):
	"""A copy of the JSON value v with a few hostile changes."""
	if depth > 40:
		return v
	if isinstance(v, dict):
		out = {}
		for k, x in v.items():
			r = rnd.random()
			if r < 0.03:
				continue			# key dropped
			if r < 0.06:
				out[k] = rnd.choice(HOSTILE_VALS)
				continue
			out[k] = mutate_value(rnd, x, depth + 1)
		if rnd.random() < 0.02:
			out[rnd.choice(["", "x", "status", "samples"])] = \
				rnd.choice(HOSTILE_VALS)
		return out
	if isinstance(v, list):
		out = [mutate_value(rnd, x, depth + 1) for x in v
		       if rnd.random() > 0.03]
		if rnd.random() < 0.05:
			out.append(rnd.choice(HOSTILE_VALS))
		if rnd.random() < 0.03:
			out = out * rnd.randint(2, 50)
		return out
	if isinstance(v, float) or (isinstance(v, int) and
				    not isinstance(v, bool)):
		r = rnd.random()
		if r < 0.1:
			return rnd.choice(HOSTILE_VALS)
		if r < 0.2:
			return v * rnd.choice([1e300, -1, 0, 1e-300, 1e10])
		return v
	if isinstance(v, str) and rnd.random() < 0.05:
		return rnd.choice(["pass", "fail", "skip", "interrupted",
				   "unknown", "zerocopy", "", "\x00", "x" * 1000])
	return v


def dump(rnd, obj):
	text = json.dumps(obj)
	r = rnd.random()
	if r < 0.03:
		return deep(rnd.choice([1000, 5000, 200000]))
	if r < 0.06:
		return text[:rnd.randint(0, len(text))]
	if r < 0.09:
		return text.replace("1", "1e308", rnd.randint(1, 5))
	if r < 0.11:
		return text.replace("0.", "NaN", 1).replace("1.", "Infinity", 1)
	return text


def mutate_tap(rnd, text):
	lines = text.splitlines()
	for _ in range(rnd.randint(1, 6)):
		if not lines:
			break
		i = rnd.randrange(len(lines))
		r = rnd.random()
		if r < 0.25:
			tok = lines[i].split(" ")
			j = rnd.randrange(len(tok))
			tok[j] = rnd.choice(HOSTILE_NUMS)
			lines[i] = " ".join(tok)
		elif r < 0.4:
			lines.insert(i, lines[rnd.randrange(len(lines))])
		elif r < 0.5:
			del lines[i]
		elif r < 0.6:
			lines = lines[:i]
		elif r < 0.7:
			s = lines[i]
			k = rnd.randint(0, len(s))
			lines[i] = s[:k] + rnd.choice(["# ", "#", "ok ", "not ok ",
				"1..", "Bail out!", "\x00", "\xff", "# metric ",
				"samples=1e308,1e308,1e308 ", "n=99999999999"]) + s[k:]
		elif r < 0.8:
			lines[i] = lines[i].replace("samples=", "samples=" +
				",".join(rnd.choice(["1e308", "1e100", "1e-300", "5"])
					 for _ in range(rnd.randint(1, 20))) + ",")
		elif r < 0.85:
			lines.insert(i, "# metric x.y " + rnd.choice(HOSTILE_NUMS) +
				     " MB/s n=3 samples=" + ",".join(
					     rnd.choice(HOSTILE_NUMS) for _ in range(3)))
		elif r < 0.9:
			lines.insert(i, "1..%d" % rnd.choice([0, 10 ** 9, 2 ** 70]))
		else:
			lines[i] = lines[i] * rnd.randint(2, 100)
	return "\n".join(lines) + ("\n" if rnd.random() < 0.9 else "")


class Fuzz:
	def __init__(self, seed, scratch):
		self.rnd = random.Random(seed)
		self.scratch = scratch
		self.zr = results
		# What is not input costs most of a call: git describe and
		# fsync. Neither reads the input, so the fuzz stubs them.
		self.zr.suite_version = lambda top: "fuzz"
		os.fsync = lambda fd: None
		self.zc = compare
		self.failures = []
		self.calls = 0

	def call(self, label, fn, argv, allowed):
		err = io.StringIO()
		signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT_S)
		signal.alarm(WALL_LIMIT_S)
		try:
			with contextlib.redirect_stdout(io.StringIO()), \
			     contextlib.redirect_stderr(err):
				try:
					rc = fn(argv)
				except SystemExit as e:
					rc = e.code
		except Hang:
			rc = "hang"
		except BaseException as e:
			rc = "%s: %s" % (type(e).__name__, str(e)[:80])
		finally:
			signal.setitimer(signal.ITIMER_PROF, 0)
			signal.alarm(0)
		self.calls += 1
		lines = err.getvalue().splitlines()
		lines = [l for l in lines if "warning:" not in l]
		if rc not in allowed or len(lines) > 1:
			self.failures.append("%s: %s (stderr %d lines: %s)" % (
				label, rc, len(lines), " | ".join(lines)[:200]))
			return False
		return True

	def write(self, name, text):
		path = os.path.join(self.scratch, name)
		with open(path, "w", errors="surrogateescape") as f:
			f.write(text)
		return path


def main(argv):
	seed, count, secs = int(argv[1]), int(argv[2]), float(argv[3])
	fix, scratch = argv[4], argv[5]
	signal.signal(signal.SIGALRM, on_alarm)
	signal.signal(signal.SIGPROF, on_alarm)
	f = Fuzz(seed, scratch)
	logs = sorted(os.path.join(fix, n) for n in os.listdir(fix)
		      if n.endswith((".log", ".tap")))
	texts = [open(p, errors="replace").read() for p in logs]
	# a results.json to start from: zc-results over a fixture folder
	d = os.path.join(scratch, "seed_dir")
	os.makedirs(d)
	shutil.copy(os.path.join(fix, "base.log"),
		    os.path.join(d, "tap_copy_fallback.log"))
	shutil.copy(os.path.join(fix, "run_base.tap"), os.path.join(d, "run.tap"))
	rc = f.zr.main(["zc-results", d])
	if rc != 0:
		print("not ok 1 fuzz.seed_results_json # zc-results exit %s" % rc)
		print("1..1")
		return 1
	good = json.load(open(os.path.join(d, "results.json")))
	cmp_ok = (0, 1, 125)
	end = time.monotonic() + secs
	n_json = n_tap = n_dir = 0
	i = 0
	while i < count and time.monotonic() < end:
		i += 1
		kind = i % 3
		if kind == 0:
			p = f.write("m.json", dump(f.rnd, mutate_value(f.rnd, good)))
			other = f.rnd.choice([p, os.path.join(d, "results.json")])
			f.call("zc-compare json #%d" % i, f.zc.main,
			       ([other, p] if f.rnd.random() < 0.5 else [p, other]) +
			       f.rnd.choice([[], ["--min-runs", "1"],
					     ["--test", "rank", "--min-runs", "1"]]),
			       cmp_ok)
			n_json += 1
		elif kind == 1:
			t = mutate_tap(f.rnd, f.rnd.choice(texts))
			p = f.write("m.log", t)
			base = f.rnd.choice(logs)
			f.call("zc-compare tap #%d" % i, f.zc.main,
			       [base, p, "--min-runs", "1"], cmp_ok)
			n_tap += 1
		else:
			md = os.path.join(scratch, "mdir")
			shutil.rmtree(md, ignore_errors=True)
			os.makedirs(md)
			with open(os.path.join(md, "tap_copy_fallback.log"), "w",
				  errors="surrogateescape") as fh:
				fh.write(mutate_tap(f.rnd, texts[0]))
			with open(os.path.join(md, "run.tap"), "w",
				  errors="surrogateescape") as fh:
				fh.write(mutate_tap(f.rnd, f.rnd.choice(texts)))
			if f.rnd.random() < 0.3:
				with open(os.path.join(md, "results.json"), "w") as fh:
					fh.write(dump(f.rnd, mutate_value(f.rnd, good)))
			if f.call("zc-results dir #%d" % i, f.zr.main,
				  ["zc-results", md], (0, 125)):
				f.call("zc-compare dir #%d" % i, f.zc.main,
				       [d, md, "--min-runs", "1"], cmp_ok)
			n_dir += 1
	took = secs - max(0.0, end - time.monotonic())
	name = "fuzz.tools_no_crash_no_hang"
	detail = "seed %d: %d inputs (%d json, %d tap, %d dirs), %d calls in " \
		 "%.1f s" % (seed, i, n_json, n_tap, n_dir, f.calls, took)
	if f.failures:
		print("not ok 1 %s # %s" % (name, detail))
		for x in f.failures[:15]:
			print("# " + x)
		print("# %d failing inputs" % len(f.failures))
	else:
		print("ok 1 %s # %s" % (name, detail))
	print("1..1")
	return 1 if f.failures else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
