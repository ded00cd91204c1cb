#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two run_tests.sh at once end with the same per-case verdicts as one
# run alone: names and addresses never collide between runs.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "concurrent" "needs root"; t_done; }
[ -n "$(suite_tests)" ] || { skip "concurrent" "no test built"; t_done; }

d=$(mktemp -d /tmp/zc-check-conc.XXXXXX)
trap 'rm -rf "$d"' EXIT
before=$(state)
args=(-b "$BUILD_DIR" --duration "${ZC_CHECK_DURATION:-0.1}" -r 1)

"$TOP/run_tests.sh" "${args[@]}" --out "$d/alone" > "$d/alone.out" 2>&1
"$TOP/run_tests.sh" "${args[@]}" --out "$d/one" > "$d/one.out" 2>&1 &
p1=$!
"$TOP/run_tests.sh" "${args[@]}" --out "$d/two" > "$d/two.out" 2>&1 &
p2=$!
wait $p1
rc1=$?
wait $p2
rc2=$?

case_verdicts "$d/alone.out" > "$d/alone.v"
case_verdicts "$d/one.out" > "$d/one.v"
case_verdicts "$d/two.out" > "$d/two.v"
expect "concurrent.cases_seen" test -s "$d/alone.v"
expect "concurrent.both_exit0" test "$rc1" -eq 0 -a "$rc2" -eq 0
for r in one two; do
	if cmp -s "$d/alone.v" "$d/$r.v"; then
		ok "concurrent.run_$r.same_verdicts"
	else
		not_ok "concurrent.run_$r.same_verdicts" "$(diff "$d/alone.v" "$d/$r.v")"
	fi
done
left=$(leaks "$before")
if [ -z "$left" ]; then ok "concurrent.nothing_left_behind"; else not_ok "concurrent.nothing_left_behind" "$left"; fi
t_done
