#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The regression signal, live: two clean runs of tap_copy compare as no
# regression; a run with ZC_INJECT_TAP=1 (a packet tap in every sender
# namespace: real kernel-side copies) compares as a regression, through
# run_tests.sh --baseline and its git-bisect exit codes. One run a side
# is too few to judge a metric (zc-compare wants 3): --allow-short lets
# the statuses and zcmode verdicts decide.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "regress_live" "needs root"; t_done; }
[ -x "$BUILD_DIR/tap_copy" ] || { skip "regress_live" "tap_copy not built"; t_done; }

d=$(mktemp -d /tmp/zc-check-regress.XXXXXX)
trap 'rm -rf "$d"' EXIT
args=(-b "$BUILD_DIR" -t tap_copy --duration "${ZC_CHECK_DURATION:-0.2}" -r 3)

"$TOP/run_tests.sh" "${args[@]}" --out "$d/clean" > "$d/clean.out" 2>&1
expect "regress_live.clean_run_passes" grep -qx "1 passed, 0 failed, 0 skipped" "$d/clean.out"

"$TOP/run_tests.sh" "${args[@]}" --allow-short --baseline "$d/clean" --out "$d/again" > "$d/again.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	ok "regress_live.clean_vs_clean_no_regression"
else
	not_ok "regress_live.clean_vs_clean_no_regression" "exit $rc" \
		"$(grep -E 'REGRESSED|regressed|result:' "$d/again.out" | head -n 8)"
fi

ZC_INJECT_TAP=1 "$TOP/run_tests.sh" "${args[@]}" --allow-short --baseline "$d/clean" --out "$d/inject" \
	> "$d/inject.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "zerocopy -> copied" "$d/inject.out"; then
	ok "regress_live.injected_tap_is_regression"
else
	not_ok "regress_live.injected_tap_is_regression" "exit $rc" "$(tail -n 5 "$d/inject.out")"
fi
"$TOP/tools/zc-compare" "$d/clean" /nonexistent > /dev/null 2>&1
expect "regress_live.missing_input_125" test $? -eq 125
t_done
