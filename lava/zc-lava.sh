#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run an installed zc-selftests tree under LAVA and report every test,
# case and metric with lava-test-case (lava/zc-selftests.yaml calls it).
# Needs sh, awk and the tree's own needs (bash); no python3.
#
#   zc-lava.sh [-i DIR] [-o OUT] [-c FILE] [-- RUN_TESTS_ARGS...]
#       run DIR/run_tests.sh --out OUT, then report OUT/run.tap;
#       -c also writes run.tap to FILE (a second serial port, say)
#       between @@ZC-LAVA-RUN-TAP-BEGIN@@ and @@ZC-LAVA-RUN-TAP-END@@
#   zc-lava.sh --parse RUN.TAP
#       print the results of a recorded run.tap, one line each, in
#       result.txt's grammar (what tools/zc-results writes), no LAVA
#
# Exit: 0 the run was reported (its verdicts are in the results), 125
# the tree could not run or left no run.tap, 128 usage error.

set -u
ME=zc-lava.sh

usage()
{
	sed -n 's/^#   //p; s/^#       /    /p' "$0"
}

# run.tap -> "zc/TEST STATUS", "zc/TEST/CASE STATUS", "zc/METRIC pass V UNIT"
# (LKFT's result.txt lines, as tools/zc-results derives them): a case's
# XFAIL passes, XPASS fails, SKIP skips; a test a signal cut short is
# unknown, and a run cut short adds zc/run.incomplete unknown.
parse()
{
	awk '
	function status(ok, rest,    d) {
		d = ""
		if (match(rest, / # /))
			d = toupper(substr(rest, RSTART + 3))
		else if (match(rest, /^#/))
			d = toupper(substr(rest, 2))
		sub(/^ +/, "", d)
		if (d ~ /^SKIP/)
			return "skip"
		if (d ~ /^XFAIL/)
			return "pass"
		if (d ~ /^XPASS/)
			return "fail"
		if (d ~ /^TODO/)
			return ok ? "fail" : "pass"
		return ok ? "pass" : "fail"
	}
	function name_of(rest) {
		sub(/ #.*$/, "", rest)
		sub(/^- /, "", rest)
		return rest
	}
	/^1\.\.[0-9]+/ && !plan { plan = substr($1, 4) + 0 }
	/^# selftests: [^ ]+: [^ ]+$/ {
		coll = $3; sub(/:$/, "", coll)
		test = (coll == "zc" || coll ~ /\/zc$/) ? $4 : ""
		next
	}
	test != "" && /^# (not )?ok [0-9]+ / {
		ok = ($2 == "ok")
		rest = $0
		sub(/^# (not )?ok [0-9]+ /, "", rest)
		cases[test "/" name_of(rest)] = status(ok, rest)
		next
	}
	test != "" && /^# # metric [^ ]+ [^ ]+ [^ ]+/ {
		m = $4
		if (index(m, test ".") != 1)
			m = test "/" m
		metric[m] = sprintf("pass %.6g %s", $5 + 0, $6)
		next
	}
	/^(not )?ok [0-9]+ selftests: [^ ]+: [^ ]+/ {
		ok = ($1 == "ok")
		c = ($1 == "ok") ? $4 : $5
		sub(/:$/, "", c)
		test = ""
		# another collection'"'"'s line (a kernel run.tap) is not ours
		if (c != "zc" && c !~ /\/zc$/)
			next
		rest = $0
		sub(/^(not )?ok [0-9]+ selftests: [^ ]+: /, "", rest)
		t = name_of(rest)
		st = status(ok, rest)
		if (rest ~ /# SKIP interrupted by/)
			st = "unknown"
		tests[t] = st
		seen++
		test = ""
		next
	}
	/^Bail out!/ { bail = 1 }
	END {
		if (bail || seen < plan)
			print "zc/run.incomplete unknown"
		for (t in tests)
			print "zc/" t " " tests[t]
		for (c in cases)
			print "zc/" c " " cases[c]
		for (m in metric)
			print "zc/" m " " metric[m]
	}' "$1" | sort
}

# One result line to LAVA: the suite is the definition's, so "zc/" goes
# and "/" becomes "." (LAVA names: letters, digits, ".", "-", "_").
report()
{
	while read -r name res value unit; do
		name=$(printf '%s' "${name#zc/}" | tr '/' '.' | tr -c 'A-Za-z0-9._-' '_')
		if [ -n "$value" ]; then
			lava-test-case "$name" --result "$res" --measurement "$value" --units "$unit"
		else
			lava-test-case "$name" --result "$res"
		fi
	done
}

dir=/opt/zc
copy=
out=${TMPDIR:-/tmp}/zc-lava-results
case "${1:-}" in
--parse)
	[ $# -eq 2 ] && [ -r "$2" ] || { echo "$ME: --parse wants one readable run.tap" >&2; exit 128; }
	parse "$2"
	exit 0 ;;
-h|--help)
	usage
	exit 0 ;;
esac
while [ $# -gt 0 ]; do
	case "$1" in
	-i) [ $# -ge 2 ] || { echo "$ME: -i needs a directory" >&2; exit 128; }
		dir=$2; shift ;;
	-o) [ $# -ge 2 ] || { echo "$ME: -o needs a directory" >&2; exit 128; }
		out=$2; shift ;;
	-c) [ $# -ge 2 ] || { echo "$ME: -c needs a file" >&2; exit 128; }
		copy=$2; shift ;;
	--) shift; break ;;
	*) echo "$ME: unknown option '$1' (try --help)" >&2; exit 128 ;;
	esac
	shift
done
[ -x "$dir/run_tests.sh" ] || { echo "$ME: no installed tree in $dir (run_tests.sh missing)" >&2; exit 125; }
# the verdicts go to LAVA case by case: the runner's own exit is not one
"$dir/run_tests.sh" --out "$out" "$@"
echo "$ME: run_tests.sh exited $?"
[ -r "$out/run.tap" ] || { echo "$ME: $out/run.tap missing: nothing to report" >&2; exit 125; }
# A copy outside LAVA's record, for a check of that record (lavacheck);
# the markers show a copy cut short.
if [ -n "$copy" ]; then
	{ echo "@@ZC-LAVA-RUN-TAP-BEGIN@@"; cat "$out/run.tap"; echo "@@ZC-LAVA-RUN-TAP-END@@"; } >"$copy" ||
		echo "$ME: cannot write run.tap to $copy" >&2
fi
if command -v lava-test-case >/dev/null 2>&1; then
	parse "$out/run.tap" | report
else
	parse "$out/run.tap"
fi
exit 0
