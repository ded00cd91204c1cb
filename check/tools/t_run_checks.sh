#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_checks.sh -t: a check's name runs that check with or without the
# script's .sh; a name no check has, or -t without one, is a one-line
# usage error (exit 128) rather than a run of nothing that passes.

. "$(dirname "$0")/../lib.sh"

RC=$CHECK_DIR/run_checks.sh
err=$(mktemp /tmp/zc-check-runchecks.XXXXXX)
trap 'rm -f "$err"' EXIT

for name in t_lib_shape t_lib_shape.sh; do
	out=$("$RC" -b "$BUILD_DIR" -t "$name" 2>&1)
	expect "run_checks.t_selects_$name" \
		grep -qx '# check: t_lib_shape.sh' <<<"$out"
done

out=$("$RC" -b "$BUILD_DIR" -t t_no_such_check_zc 2>"$err")
rc=$?
if [ "$rc" = 128 ] && [ -z "$out" ] && [ "$(grep -c . "$err")" = 1 ] &&
	grep -q "t_no_such_check_zc" "$err"; then
	ok "run_checks.unknown_check_is_a_usage_error # $(cat "$err")"
else
	not_ok "run_checks.unknown_check_is_a_usage_error" "exit $rc" "$out" "$(cat "$err")"
fi

out=$("$RC" -b "$BUILD_DIR" -t 2>"$err")
rc=$?
expect "run_checks.t_without_a_name_is_a_usage_error # exit $rc" \
	test "$rc" = 128 -a -z "$out" -a "$(grep -c . "$err")" = 1
t_done
