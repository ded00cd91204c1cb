# SPDX-License-Identifier: GPL-2.0
"""A run's provenance: the suite's version, the kernel, the machine and
the date, from the "# provenance" lines of the logs and this host, as
zc-results writes them into results.json and zc-compare reads them.
"""

import datetime
import json
import os
import platform
import re
import subprocess


RE_KERNEL = re.compile(r"\bkernel[= :]+([0-9][\w.+~-]*)")


def suite_version(top):
	if os.path.exists(os.path.join(top, ".git")):
		try:
			out = subprocess.run(["git", "-C", top, "describe",
					      "--always", "--dirty"],
					     capture_output=True, text=True,
					     timeout=10)
			if out.returncode == 0 and out.stdout.strip():
				return out.stdout.strip()
		except (OSError, subprocess.SubprocessError):
			pass
	try:
		with open(os.path.join(top, "VERSION")) as f:
			return f.readline().strip() or "unknown"
	except OSError:
		return "unknown"


def kernel_from_config(run):
	for t in run["tests"].values():
		for c in t.get("config", []):
			m = RE_KERNEL.search(c)
			if m:
				return m.group(1)
	return None


# What run_tests.sh records about the run, as "# provenance KEY VALUE"
# lines of run.tap, and where each lands in results.json.
PROVENANCE = {"suite_version": ("suite_version",), "date": ("date",),
	      "kernel_release": ("kernel", "release"),
	      "kernel_version": ("kernel", "version"),
	      "arch": ("kernel", "machine"),
	      "nproc": ("machine", "nproc"),
	      "cpu_model": ("machine", "cpu_model"),
	      "hostname": ("machine", "hostname"),
	      "cmdline": ("comparability", "cmdline"),
	      "config_sha256": ("comparability", "config_sha256"),
	      "config_source": ("comparability", "config_source"),
	      "governor": ("comparability", "governor"),
	      "clock": ("comparability", "clock"),
	      "taint_before": ("comparability", "taint_before"),
	      "taint_after": ("comparability", "taint_after")}

PROVENANCE_KEYS = ("suite_version", "date", "kernel", "machine",
		   "comparability")

INT_FIELDS = ("nproc", "taint_before", "taint_after")


def provenance_from_lines(lines):
	"""results.json's provenance fields from run.tap's provenance lines."""
	out = {"suite_version": None, "date": None, "kernel": {},
	       "machine": {}, "comparability": {}}
	for key, val in lines.items():
		where = PROVENANCE.get(key)
		if not where:
			continue
		if key in INT_FIELDS:
			val = int(val) if val.isdigit() else None
		elif val == "":
			val = None
		if len(where) == 1:
			out[where[0]] = val
		else:
			out[where[0]][where[1]] = val
	# two runs compare only on the same CPU model
	out["comparability"]["cpu_model"] = out["machine"].get("cpu_model")
	return out


def apply_provenance(run, old=None):
	"""Provenance is what the run recorded (run.tap), else what an
	earlier results.json kept, else unknown: never this machine's."""
	lines = run.pop("provenance_lines", None)
	if lines:
		prov, origin = provenance_from_lines(lines), "run.tap"
	elif old and old.get("provenance") != "unknown" and \
	     any(old.get(k) for k in PROVENANCE_KEYS):
		prov = {k: old.get(k) for k in PROVENANCE_KEYS}
		origin = old.get("provenance") or "results.json"
	else:
		prov = {"suite_version": None, "date": None, "kernel": {},
			"machine": {}, "comparability": None}
		origin = "unknown"
	run.update(prov)
	run["provenance"] = origin
	k = run.get("kernel")
	logged = kernel_from_config(run)
	if isinstance(k, dict) and logged and logged != k.get("release"):
		k["logged_release"] = logged


def add_metadata(run, top, old=None):
	apply_provenance(run, old)
	# What this analysis adds: never mistaken for the run's provenance.
	u = platform.uname()
	run["analysis"] = {"tool": "zc-results", "suite_version":
			   suite_version(top), "hostname": u.node,
			   "date": datetime.datetime.now(
				   datetime.timezone.utc).strftime(
				   "%Y-%m-%dT%H:%M:%SZ")}
