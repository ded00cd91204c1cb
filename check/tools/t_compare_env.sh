#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zc-compare and a skip for the environment (reason "environment: ...",
# a foreign packet tap that copies on that kernel): cannot decide (125),
# never a regression; a real regression beside it still wins.

. "$(dirname "$0")/../lib.sh"

FIX=$(dirname "$0")/../fixtures/compare
CMP=$TOP/tools/zc-compare

out=$("$CMP" --min-runs 1 "$FIX/base.log" "$FIX/env_skip.log" 2>&1)
rc=$?
expect "compare_env.exit125" [ "$rc" -eq 125 ]
grep -q '^result: cannot decide: 1 case(s) skipped for the environment' <<<"$out" &&
	ok "compare_env.result_line" || not_ok "compare_env.result_line" "$(tail -n 3 <<<"$out")"
grep -qi 'regress' <<<"$(grep 'udp4.msgzc.notap' <<<"$out")" &&
	not_ok "compare_env.not_a_regression" "$(grep 'udp4.msgzc.notap' <<<"$out")" ||
	ok "compare_env.not_a_regression"
# A skip for another new reason still regresses.
sed 's/# SKIP environment: /# SKIP /' "$FIX/env_skip.log" > /tmp/zc-cmpenv.$$.log
"$CMP" --min-runs 1 "$FIX/base.log" /tmp/zc-cmpenv.$$.log >/dev/null 2>&1
rc=$?
rm -f /tmp/zc-cmpenv.$$.log
expect "compare_env.other_skip_regresses" [ "$rc" -eq 1 ]
t_done
