#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The known kernel bugs are one table (issue 45): the known_bugs file.
# make's known_bugs.h names each of its bugs and lists the ones that
# raise a report for lib/core/splat.c; kpatchcheck takes its XFAIL
# reasons from it; no bug's name is written in lib/ or tools/ besides.
# A second.

. "$(dirname "$0")/../lib.sh"

TABLE=$TOP/known_bugs
H=$BUILD_DIR/known_bugs.h
names=$(grep -v '^#' "$TABLE" | cut -f1 | grep .)
expect "known_bugs.header_built" test -s "$H"
for n in $names; do
	m=ZC_BUG_$(tr 'a-z-' 'A-Z_' <<<"$n")
	expect "known_bugs.$n.named_in_header" grep -q "^#define $m \"$n\"$" "$H"
	hand=$(grep -rlF -- "\"$n\"" "$TOP/lib" "$TOP/tools" 2>/dev/null |
	       head -n 3 | tr '\n' ' ')
	expect "known_bugs.$n.not_written_elsewhere${hand:+ # $hand}" test -z "$hand"
	# its cases exist: every TEST/CASE is a case the test lists
	for tc in $(grep "^$n	" "$TABLE" | cut -f4 | tr ',' ' '); do
		t=${tc%%/*}
		[ -x "$BUILD_DIR/$t" ] || continue
		expect "known_bugs.$n.case_exists.$tc" \
			grep -qx "${tc#*/}" <("$BUILD_DIR/$t" --list 2>/dev/null)
	done
done
splats=$(grep -v '^#' "$TABLE" | awk -F'\t' '$2 != "-"' | wc -l)
got=$(grep -c '{ .name = ' "$H")
expect "known_bugs.splat_table # $got of $splats" test "$got" = "$splats"
t_done
