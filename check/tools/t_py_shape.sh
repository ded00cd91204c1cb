#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Python tools' shape (issue 45): no module of tools/py/zc over 1,000
# lines; no kernel report pattern written in them (the splats file's
# classes give vmtest its crash, stall and hung patterns); a TAP log read
# alone gets the status run_tests.sh gives the exit code
# lib/core/ktap.c's ktap_exit_code() returns for its cases. A second.

. "$(dirname "$0")/../lib.sh"

PY=$TOP/tools/py/zc
for f in "$PY"/*.py; do
	n=$(wc -l <"$f")
	expect "py_shape.at_most_1000_lines.${f##*/} # $n" [ "$n" -le 1000 ]
done

# the first lines of the kernel's reports, as vmtest once wrote them
hand=$(grep -nE '"[^"#]*(detected stall|soft lockup|Kernel panic|general protection fault|kernel BUG at|blocked for more than)' \
	"$PY"/*.py | head -n 3)
expect "py_shape.no_hand_written_splat_pattern${hand:+ # $hand}" test -z "$hand"

py=$(python3 - "$TOP" <<'PY' 2>&1
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(sys.argv[1], "tools", "py"))
from zc import results as zr, vmconsole
# every class the splats file names is read, every pattern in one
heads = [l.rstrip("\n") for l in open(os.path.join(sys.argv[1], "splats"))
	 if not l.startswith("#") and l.strip()]
got = [p for ps in vmconsole.SPLATS.values() for p in ps]
assert got == heads, (got, heads)
for c in ("crash", "panic", "stall", "hung"):
	assert vmconsole.SPLATS.get(c), "no %s class in splats" % c
assert vmconsole.PANIC_RE.match("[ 7.3] Oops: int3: 0000 [#1] SMP")
assert vmconsole.STALL_RE.search("[ 22.3] rcu: INFO: rcu_preempt self-detected stall on CPU")
assert vmconsole.STARVE_RE.match("INFO: task kworker/0:1:12 blocked for more than 120 seconds.")
assert not vmconsole.STARVE_RE.match("WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2")

def status(*cases):
	lines = ["TAP version 13", "1..%d" % len(cases)]
	for i, c in enumerate(cases, 1):
		ok, d = {"pass": ("ok", ""), "fail": ("not ok", ""),
			 "xfail": ("ok", " # XFAIL r"), "xpass": ("ok", " # XPASS r"),
			 "skip": ("ok", " # SKIP r")}[c]
		lines.append("%s %d c%d%s" % (ok, i, i, d))
	run, name = zr.parse_test_log("\n".join(lines) + "\n", "t")
	return run["tests"][name]["status"]
# (the cases' statuses, ktap_exit_code, what run_tests.sh makes of it)
for cases, rc, want in ((("pass", "xpass"), 0, "pass"),
			(("xfail",), 2, "fail"), (("xpass",), 3, "fail"),
			(("xfail", "skip"), 2, "fail"), (("skip",), 4, "skip"),
			(("pass", "fail"), 1, "fail"), (("pass", "skip"), 0, "pass")):
	assert zr.ktap_exit_code(cases) == rc, (cases, rc)
	assert status(*cases) == want, (cases, status(*cases), want)
PY
)
expect "py_shape.splats_classes_and_ktap_rule${py:+ # $(tail -n 1 <<<"$py")}" test -z "$py"
t_done
