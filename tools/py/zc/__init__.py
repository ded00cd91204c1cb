# SPDX-License-Identifier: GPL-2.0
"""The suite's Python code that more than one program uses, as one
package: results (the TAP and metric parser, results.json), compare
(two runs' verdict), kconfig (merging config fragments), vmtest (the
suite on other kernels in qemu), lava (the suite as a LAVA job).

A tool in tools/ finds it with one line relative to its own real path,
so a source tree and an installed tree (make install copies tools/py)
work alike (it sets sys.dont_write_bytecode first: a checkout stays as
git has it, and an installed tree may be read-only):

	sys.path.insert(0, os.path.join(os.path.dirname(
		os.path.realpath(__file__)), "py"))
"""

import os

# The suite's top folder: the source tree, or the installed tree (its
# run_tests.sh, config, splats and tools/ beside each other).
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))
