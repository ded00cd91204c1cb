#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One usage contract for every command (issue 25, item 8): an unknown
# option is one line on stderr naming it and --help, nothing on stdout,
# exit 128; --help prints to stdout, exits 0 and lists the exit codes.

. "$(dirname "$0")/../lib.sh"

err=$(mktemp /tmp/zc-check-usage.XXXXXX)
trap 'rm -f "$err"' EXIT

cmds=("$TOP/run_tests.sh" "$TOP/tools/zc-compare" "$TOP/tools/zc-results"
      "$TOP/tools/zc-power" "$TOP/tools/vmtest" "$TOP/tools/zc-peer-bench"
      "$TOP/tools/zc-peer-outside" "$TOP/tools/kpatchcheck" "$TOP/tools/lavacheck"
      "$TOP/tools/deps.sh" "$CHECK_DIR/run_checks.sh" "$BUILD_DIR/zc-doctor")
for t in $(suite_tests); do
	cmds+=("$BUILD_DIR/$t")
done

for c in "${cmds[@]}"; do
	name=$(basename "$c")
	if [ ! -x "$c" ]; then
		skip "item8.$name" "not built"
		continue
	fi
	out=$(timeout 60 "$c" --bogus-zctl 2>"$err" </dev/null)
	rc=$?
	lines=$(grep -c . "$err")
	if [ "$rc" = 128 ] && [ "$lines" = 1 ] && [ -z "$out" ] &&
		grep -q -- "--bogus-zctl.*--help" "$err"; then
		ok "item8.$name.unknown_option # $(cat "$err")"
	else
		not_ok "item8.$name.unknown_option" "exit $rc, $lines line(s) on stderr" \
			"$(head -n 3 "$err")"
	fi
	out=$(timeout 60 "$c" --help 2>"$err" </dev/null)
	rc=$?
	# the exit codes, 128 among them, on a line saying Exit
	if [ "$rc" = 0 ] && [ -n "$out" ] &&
		tr '\n' ' ' <<<"$out" | grep -qiE 'exit[^.]*: .*128 usage'; then
		ok "item8.$name.help_lists_exit_codes"
	else
		not_ok "item8.$name.help_lists_exit_codes" "exit $rc" "$(tail -n 4 <<<"$out")"
	fi
done
# a bad value is the same usage error as an unknown option
"$TOP/run_tests.sh" --runs 0 >/dev/null 2>"$err"
expect "item8.run_tests.bad_value_one_line" test $? = 128 -a "$(grep -c . "$err")" = 1
"$TOP/tools/zc-compare" --threshold -1 a b >/dev/null 2>"$err"
expect "item8.zc-compare.bad_value_exit128" test $? = 128 -a "$(grep -c . "$err")" = 1
t_done
