#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build with AddressSanitizer and UndefinedBehaviorSanitizer and run the
# whole suite once in verify mode (every byte checked): no sanitizer
# report, no failure.

. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || { skip "sanitize" "needs root"; t_done; }
asan=${BUILD_DIR}-asan
log=$(mktemp -d /tmp/zc-check-asan.XXXXXX)
trap 'rm -rf "$log"' EXIT

if ! make -s -C "$TOP" O="$asan" SANITIZE=1 NO_DEPS=1 > "$log/build" 2>&1; then
	not_ok "sanitize.build" "$(tail -n 5 "$log/build")"
	t_done
fi
ok "sanitize.build"
if grep -qi 'warning:' "$log/build"; then
	not_ok "sanitize.build_warning_free" "$(grep -i 'warning:' "$log/build" | head -n 5)"
else
	ok "sanitize.build_warning_free"
fi
[ -n "$(sed -n 's/^zc://p' "$asan/kselftest-list.txt")" ] ||
	{ skip "sanitize.run" "no test built"; t_done; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
"$TOP/run_tests.sh" -b "$asan" -v --duration "${ZC_CHECK_DURATION:-0.1}" -r 1 --out "$log/run" \
	> "$log/out" 2>&1
rc=$?
reports=$(grep -hE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' \
	"$log"/run/*.log 2>/dev/null | head -n 10)
if [ -z "$reports" ]; then ok "sanitize.no_report"; else not_ok "sanitize.no_report" "$reports"; fi
if [ "$rc" -eq 0 ]; then
	ok "sanitize.verify_run_passes"
else
	not_ok "sanitize.verify_run_passes" "$(grep -E '^not ok|^# # not ok' "$log/out" | head -n 10)"
fi
t_done
