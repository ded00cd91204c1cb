# SPDX-License-Identifier: GPL-2.0
"""The suite's Python code that more than one program uses, as one
package: results (the TAP and metric parser, results.json), compare
(two runs' verdict; over cmprun, cmpjudge, cmpreport), kconfig (merging
config fragments), vmtest (the suite on other kernels in qemu; over
vmbase, vmdebian, vmtree, vmconsole, vmguest, vmmatrix), lava (the
suite as a LAVA job). No module is over 1,000 lines.

A tool in tools/ finds it with one line relative to its own real path,
so a source tree and an installed tree (make install copies tools/py)
work alike (it sets sys.dont_write_bytecode first: a checkout stays as
git has it, and an installed tree may be read-only):

	sys.path.insert(0, os.path.join(os.path.dirname(
		os.path.realpath(__file__)), "py"))
"""

import os
import sys
import tempfile
import traceback

# The suite's top folder: the source tree, or the installed tree (its
# run_tests.sh, config, splats and tools/ beside each other).
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))

# A tool's own failure is no verdict on a kernel: git bisect run reads
# 1-127 but 125 as "bad", so an exception a tool did not expect, a
# missing Python module or a host program that cannot run is 125.
EXIT_UNDECIDED = 125
# The run's folder, once a tool has one: its traceback goes there.
trace_dir = None


def keep_traceback(prog, exc):
	"""The traceback of exc in the run's folder, else in a new temp
	file; its path, or None when neither could be written."""
	text = "".join(traceback.format_exception(type(exc), exc,
						  exc.__traceback__))
	try:
		if trace_dir and os.path.isdir(trace_dir):
			path = os.path.join(trace_dir, prog + ".traceback")
			with open(path, "w") as f:
				f.write(text)
			return path
		fd, path = tempfile.mkstemp(prefix="zc-%s.traceback." % prog)
		with os.fdopen(fd, "w") as f:
			f.write(text)
		return path
	except OSError:
		return None


def crashed(prog, exc):
	"""One line naming an exception a tool did not expect, exit 125."""
	path = keep_traceback(prog, exc)
	what = str(exc).splitlines()[0][:200] if str(exc) else ""
	sys.stderr.write("%s: cannot decide: %s%s (a failure of the tool, "
			 "not a verdict; traceback %s)\n" % (
				 prog, type(exc).__name__,
				 ": " + what if what else "",
				 "in " + path if path else "not saved"))
	sys.exit(EXIT_UNDECIDED)


def missing_module(prog, exc):
	"""A Python module this machine lacks (ImportError at start)."""
	sys.stderr.write("%s: cannot decide: this Python lacks a module the "
			 "tool needs (%s)\n" % (prog, exc))
	sys.exit(EXIT_UNDECIDED)


def run_cli(prog, cli):
	"""A tool's cli() under the suite's exit contract: its own exits
	stand; anything it did not expect is crashed()."""
	try:
		cli()
	except (SystemExit, KeyboardInterrupt):
		raise
	except Exception as e:	# noqa: BLE001 - the contract's net
		crashed(prog, e)
