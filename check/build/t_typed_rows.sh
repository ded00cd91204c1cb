#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A case row of the wrong type does not compile: check/typed_rows.c with
# each planted mistake fails to build with the project's flags, and the
# same file without one builds. A few seconds (cc -fsyntax-only).

. "$(dirname "$0")/../lib.sh"

CC=${CC:-cc}
flags=(-Wall -Werror=incompatible-pointer-types -D_GNU_SOURCE
       -I"$TOP/lib" -I"$TOP" -I"$BUILD_DIR" -fsyntax-only)
src=$TOP/check/typed_rows.c

out=$("$CC" "${flags[@]}" -DWRONG=0 "$src" 2>&1)
expect "typed_rows.right_row_compiles" [ $? -eq 0 ] ||
	printf '%s\n' "$out" | sed 's/^/# /'

for wrong in 1:body_of_another_row 2:base_of_another_type \
	     3:axis_not_an_enum 4:rule_of_another_row; do
	n=${wrong%%:*}
	if "$CC" "${flags[@]}" -DWRONG="$n" "$src" >/dev/null 2>&1; then
		not_ok "typed_rows.${wrong#*:}_does_not_compile" "compiled"
	else
		ok "typed_rows.${wrong#*:}_does_not_compile"
	fi
done
t_done
