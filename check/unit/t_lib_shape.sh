#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib/'s shape (doc/layout.md, "lib/'s rules"): folders in order, a
# module is X.c + X.h with no include cycle, at most 600 lines, exports
# only its prefixes and each one used outside its module, no two files
# calling each other both ways, what one path needs in its folder, no
# status (SKIP/XFAIL/XPASS) decided in lib/ outside core nor in tests/
# (bodies report facts), no names array beside an enum in tests/; then the example test (doc/adding-a-test.md)
# built and listing its cases.
#
# ZC_SHAPE_LIB, ZC_SHAPE_OBJ, ZC_SHAPE_DOC and ZC_SHAPE_TESTS point the
# rules at another lib/, its objects, its layout page and tests/
# (t_lib_shape_plant.sh does).

. "$(dirname "$0")/../lib.sh"

LIB=${ZC_SHAPE_LIB:-$TOP/lib}
OBJ=${ZC_SHAPE_OBJ:-$BUILD_DIR/lib}
DOC=${ZC_SHAPE_DOC:-$TOP/doc/layout.md}

# Violations another piece of work removes, each "RULE lib/MODULE" and
# why: reported as a SKIP while they last, checked like any other once
# they are gone (a pending line that no longer matches costs nothing).
PENDING=(
)

out=$(python3 "$(dirname "$0")/lib_shape.py" "$LIB" "$OBJ" "$DOC" "$TOP") ||
	{ not_ok "lib.shape_check_ran" "$out"; t_done; }

for rule in folders include_cycle module size exports unused calls_both_ways one_path one_test status names; do
	bad=$(awk -F'\t' -v r="$rule" '$1 == r { print $2 }' <<<"$out")
	pend=""
	for p in "${PENDING[@]}"; do
		[ "${p%% *}" = "$rule" ] || continue
		what=${p#* }
		what=${what%%:*}
		re="^${what//./\\.}[: ]"
		if grep -qE -- "$re" <<<"$bad"; then
			pend+="${pend:+; }$what (${p#*: })"
			bad=$(grep -vE -- "$re" <<<"$bad")
		fi
	done
	if [ -n "$bad" ]; then
		not_ok "lib.$rule" "$bad"
	elif [ -n "$pend" ]; then
		skip "lib.$rule" "pending: $pend"
	else
		ok "lib.$rule"
	fi
done

[ -n "${ZC_SHAPE_LIB:-}" ] && t_done

# A new test is cheap: the example's scaffolding (code lines before its
# first case body, the #includes aside) is at most 40 lines.
src=$TOP/check/example_test.c
n=$(awk '/^static void case_[a-z_]*\(.*[^;]$/ { getline nx; if (nx !~ /;$/) exit }
	 /^[ \t]*$|^[ \t]*\/?\*|^#include/ { next } { n++ } END { print n + 0 }' "$src")
expect "lib.example_scaffolding_at_most_40_lines # $n" [ "$n" -le 40 ]

ex=$BUILD_DIR/check/example_test
if [ -x "$ex" ]; then
	got=$("$ex" --list 2>&1 | tr '\n' ' ')
	expect "lib.example_lists_its_cases" \
		[ "$got" = "send msg_zerocopy " ]
	if [ "$(id -u)" = 0 ]; then
		got=$("$ex" 2>&1)
		expect "lib.example_runs_its_cases" \
			grep -q '^# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0' <<<"$got"
	else
		skip "lib.example_runs_its_cases" "needs root (a network namespace)"
	fi
else
	not_ok "lib.example_lists_its_cases" "$ex not built (make check builds it)"
fi
t_done
