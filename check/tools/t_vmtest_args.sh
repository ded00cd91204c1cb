#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vmtest checks before it acts: -t and --case against the built
# binaries' --list, --kernel, --modules and -o, all before apt, a
# download, a build or a folder (128, one line naming the nearest case);
# --help has one exit table. No qemu, no network: every call here ends
# in its argument checks (a timeout says it did not).

. "$(dirname "$0")/../lib.sh"

VMTEST=$TOP/tools/vmtest
TMP=$(mktemp -d /tmp/zc-t_vmtest_args.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
OUT=$TMP/out

# refused NAME WANT-RE ARGS...: exit 128 in seconds, one line matching
# WANT-RE, and nothing created (-o, --cache and --build stay absent).
refused()
{
	local name=$1 re=$2 rc t0

	shift 2
	t0=$SECONDS
	timeout 60 "$VMTEST" -o "$TMP/o" --cache "$TMP/cache" "$@" >"$OUT" 2>&1
	rc=$?
	if [ "$rc" -eq 128 ] && [ "$(wc -l <"$OUT")" -eq 1 ] &&
	   grep -qE -- "$re" "$OUT" && [ ! -e "$TMP/o" ] &&
	   [ ! -e "$TMP/cache" ] && [ $((SECONDS - t0)) -lt 30 ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc after $((SECONDS - t0)) s" "$(cat "$OUT")" \
			"$(ls -d "$TMP/o" "$TMP/cache" 2>/dev/null)"
	fi
}

# The binaries --case is checked against: the ones this check runs on.
B=(--build "$BUILD_DIR")
if [ ! -x "$BUILD_DIR/sendzc_notif" ]; then
	skip "vmtest_args.case" "no $BUILD_DIR/sendzc_notif: build the suite first"
else
	refused "vmtest_args.case_nomatch" \
		"--case 'nomatch_zz\*' selects no case of sendzc_notif \(nearest: " \
		"${B[@]}" --debian 6.12 -t sendzc_notif --case 'nomatch_zz*'
	refused "vmtest_args.case_nomatch_all_tests" \
		"selects no case of sendzc_notif, sockmap_splice, tap_copy, xsk_bind \(nearest: udp4\.send_zc\.pairing" \
		"${B[@]}" --debian 6.12 --case 'udp4.send_zc.pairng'
	# A case of another test than the -t given: refused, the nearest
	# case of that test named.
	refused "vmtest_args.case_other_test" \
		"selects no case of -t xsk_bind \(nearest there: " \
		"${B[@]}" --debian 6.12 -t tap_copy -t xsk_bind --case udp4.send_zc.notap
	refused "vmtest_args.case_baseline" "selects no case" \
		"${B[@]}" --debian 6.12 --case 'nomatch*' --baseline "$TOP/check/fixtures/compare/base.log"
	# A --case that matches: the arguments pass, and without -t only
	# the tests holding a matching case run (seen in the log line; the
	# run itself is cut short by an unknown --kernel file later).
	timeout 60 "$VMTEST" -o "$TMP/o" --cache "$TMP/cache" "${B[@]}" \
		--kernel "$TMP/none" --case 'udp4.send_zc.not*' >"$OUT" 2>&1
	grep -q "no such file" "$OUT" && ok "vmtest_args.case_match_passes" ||
		not_ok "vmtest_args.case_match_passes" "$(cat "$OUT")"
	python3 - "$TOP" "$BUILD_DIR" "$TMP/host" >"$OUT" 2>&1 <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1] + "/tools/py")
from zc import vmtest as v
a = v.parse_args(["--debian", "6.12", "--build", sys.argv[2],
		  "--case", "udp4.send_zc.not*"])
assert a.test == ["tap_copy"], a.test
a = v.parse_args(["--debian", "6.12", "--build", sys.argv[2],
		  "--case", "notap"])
assert "tap_copy" in a.test and "xsk_bind" not in a.test, a.test
# the host column runs the same cases (run_tests.sh --case TEST/PAT)
seen = []
v.run = lambda cmd, **kw: seen.append(cmd) or type("R", (), {"returncode": 0})
a = v.parse_args(["--debian", "6.12", "--build", sys.argv[2],
		  "--case", "udp4.send_zc.not*"])
v.run_host(a, "/nonexistent", sys.argv[3])
assert seen and seen[0][-4:] == ["-t", "tap_copy", "--case",
				 "tap_copy/udp4.send_zc.not*"], seen
# No binary to ask before the build: asked of the suite just built,
# before any guest boots; the folder this run made is removed.
import os
a = v.parse_args(["--debian", "6.12", "--build", sys.argv[2]])
a.case = "nomatch_zz*"
out = sys.argv[3] + ".out"
os.makedirs(out)
try:
	v.check_case_built(a, sys.argv[2], out, True)
	raise AssertionError("check_case_built let 'nomatch_zz*' through")
except SystemExit as e:
	assert e.code == 128 and not os.path.exists(out), (e.code, out)
assert v.case_matches("udp4.*.notap", "udp4.send_zc.notap")
assert v.case_matches("send_zc", "udp4.send_zc.notap")
assert not v.case_matches("send_zc*", "udp4.send_zc.notap")
PY
	[ $? -eq 0 ] && ok "vmtest_args.case_narrows_tests_and_host" ||
		not_ok "vmtest_args.case_narrows_tests_and_host" "$(tail -n 3 "$OUT")"
fi
refused "vmtest_args.test_nearest" "no test named 'sendzc_notf' \(nearest: sendzc_notif" \
	--debian 6.12 -t sendzc_notf
refused "vmtest_args.kernel_missing" "--kernel $TMP/none: no such file" \
	--kernel "$TMP/none"
refused "vmtest_args.modules_missing" "--modules $TMP/none: no such directory" \
	--debian 6.12 --modules "$TMP/none"
touch "$TMP/file"
timeout 60 "$VMTEST" -o "$TMP/file" --cache "$TMP/cache" --debian 6.12 >"$OUT" 2>&1
rc=$?
[ "$rc" -eq 128 ] && grep -q "not a directory" "$OUT" && ok "vmtest_args.out_not_dir" ||
	not_ok "vmtest_args.out_not_dir" "exit $rc" "$(cat "$OUT")"

# --kernel /nonexistent with no -o: no /tmp/zc-vmtest.* of this call
# (the one folder vmtest would make; made by mkdtemp, named at random,
# so the check counts the folders of its own owner before and after).
n0=$(find /tmp -maxdepth 1 -name 'zc-vmtest.*' -newer "$TMP/file" 2>/dev/null | wc -l)
"$VMTEST" --cache "$TMP/cache" --kernel /nonexistent >"$OUT" 2>&1
rc=$?
n1=$(find /tmp -maxdepth 1 -name 'zc-vmtest.*' -newer "$TMP/file" 2>/dev/null | wc -l)
[ "$rc" -eq 128 ] && [ "$n1" -eq "$n0" ] && ok "vmtest_args.no_tmp_folder" ||
	not_ok "vmtest_args.no_tmp_folder" "exit $rc, /tmp/zc-vmtest.* $n0 -> $n1"

# One exit table in --help, and it holds 125 and 128.
"$VMTEST" --help >"$OUT" 2>&1
n=$(grep -ciE '^exit( status)?:' "$OUT")
[ "$n" -eq 1 ] && grep -A12 -E '^Exit:' "$OUT" | grep -q "125" &&
	grep -A12 -E '^Exit:' "$OUT" | grep -q "128 usage error" &&
	ok "vmtest_args.one_exit_table" ||
	not_ok "vmtest_args.one_exit_table" "$n exit tables" "$(grep -iE -A3 '^exit' "$OUT")"
t_done
