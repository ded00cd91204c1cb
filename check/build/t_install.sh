#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install into a scratch directory; the installed tree runs from
# elsewhere without the source tree.

. "$(dirname "$0")/../lib.sh"

dest=$(mktemp -d /tmp/zc-check-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT

make -s -C "$TOP" O="$BUILD_DIR" NO_DEPS=1 install INSTALL_PATH="$dest" >/dev/null 2>&1
expect "install.make_install" test -x "$dest/run_tests.sh" -a -f "$dest/settings" \
	-a -f "$dest/config" -a -f "$dest/kselftest-list.txt"
# -l prints COLLECTION:TEST, as run_kselftest.sh -l and emit_tests do
want=$(make -s -C "$TOP" O="$BUILD_DIR" NO_DEPS=1 emit_tests)
got=$(cd / && "$dest/run_tests.sh" -l)
expect "install.lists_tests" test -n "$got" -a "$got" = "$want"
got=$(sed 's/^.*://' <<<"$got")
missing=""
for t in $got; do
	[ -x "$dest/$t" ] || missing="$missing $t"
done
expect "install.binaries" test -z "$missing"
# The C tools come built, the sources stay behind.
expect "install.doctor" test -x "$dest/tools/zc-doctor" -a ! -e "$dest/tools/zc-doctor.c"
# The Python tools run from the installed tree with its own package
# (tools/py), not the source tree's, and compile nothing into it.
expect "install.python_tools" bash -c "cd / && for t in zc-compare zc-results zc-power zc-peer-bench zc-peer-outside zc-kconfig; do '$dest/tools/'\$t --help >/dev/null || exit 1; done; test -f '$dest/tools/py/zc/results.py' && ! find '$dest' -name __pycache__ | grep -q ."
expect "install.emit_tests_format" bash -c "make -s -C '$TOP' O='$BUILD_DIR' NO_DEPS=1 emit_tests | grep -qvx 'zc:[a-z0-9_]*' && exit 1 || exit 0"

if [ "$(id -u)" = 0 ] && [ -n "$got" ]; then
	first=$(head -n1 <<<"$got")
	# A short run of one installed test from another directory.
	res=$(cd / && ZC_DURATION=0.05 ZC_REPEAT=1 "$dest/run_tests.sh" -t "$first" 2>&1)
	if grep -qE '^1 passed, 0 failed|^0 passed, 0 failed, 1 skipped' <<<"$res"; then
		ok "install.runs_elsewhere"
	else
		not_ok "install.runs_elsewhere" "$(tail -n 5 <<<"$res")"
	fi
else
	skip "install.runs_elsewhere" "needs root and a built test"
fi
t_done
