#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One real run of the whole suite: no FAIL, every binary's output parses
# as TAP, results files written, and nothing left behind.

. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ]; then
	skip "suite.run" "needs root"
	t_done
fi

out=$(mktemp -d /tmp/zc-check-suite.XXXXXX)
trap 'rm -rf "$out"' EXIT
before=$(state)
# the results in a folder of their own: run_tests.sh refuses a folder
# that holds other files
"$TOP/run_tests.sh" -b "$BUILD_DIR" --out "$out/r" > "$out/stdout" 2>&1
rc=$?
sed 's/^/# /' "$out/stdout"

n=$(sed -n 's/^1\.\.\([0-9]\+\)$/\1/p' "$out/stdout" | head -n1)
expect "suite.ran_tests" test "${n:-0}" -gt 0
expect "suite.exit0" test "$rc" -eq 0
if grep -q '^not ok' "$out/stdout"; then
	not_ok "suite.no_fail" "$(grep '^not ok' "$out/stdout")"
else
	ok "suite.no_fail"
fi
expect "suite.closing_line" grep -qE '^[0-9]+ passed, 0 failed, [0-9]+ skipped$' "$out/stdout"
errs=$(perl "$CHECK_DIR/tap_parse.pl" "$out"/r/*.log "$out/r/run.tap" 2>&1)
if [ -z "$errs" ]; then ok "suite.tap_parses"; else not_ok "suite.tap_parses" "$errs"; fi
if [ -x "$TOP/tools/zc-results" ]; then
	expect "suite.results_json" test -s "$out/r/results.json"
	expect "suite.result_txt" test -s "$out/r/result.txt"
else
	skip "suite.results_json" "tools/zc-results not present"
fi
left=$(leaks "$before")
if [ -z "$left" ]; then ok "suite.nothing_left_behind"; else not_ok "suite.nothing_left_behind" "$left"; fi

t_done
