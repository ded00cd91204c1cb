#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh's options against small fake tests (issue 25, items 5-7):
# bounds shared by options and environment, kselftest mode only when
# asked, and the kernel's run_kselftest.sh letters where they overlap.

. "$(dirname "$0")/../lib.sh"

fake=$(mktemp -d /tmp/zc-check-ropts.XXXXXX)
trap 'rm -rf "$fake"' EXIT
R=$TOP/run_tests.sh
export ZC_KMSG_FILE=$fake/kmsg
: >"$ZC_KMSG_FILE"

mkfake()
{
	printf '#!/bin/bash\n%s\n' "$2" >"$fake/$1"
	chmod +x "$fake/$1"
	echo "zc:$1" >>"$fake/kselftest-list.txt"
}
# args: prints what it was given and the environment the runner set
mkfake args 'echo "1..1"; echo "# argv=$* d=${ZC_DURATION:-} r=${ZC_REPEAT:-}"; echo "ok 1 x"'
mkfake b_fail 'echo "1..1"; echo "not ok 1 x"; exit 1'
printf 'timeout=45\n' >"$fake/settings"

# run ARGS...: the runner's stdout in $out, stderr in $err, exit in $rc
run()
{
	out=$("$R" -b "$fake" "$@" 2>"$fake/err")
	rc=$?
	err=$(cat "$fake/err")
}

# item 5: one rule for options and environment, with bounds
for v in 0 999999999 abc -1 1e9; do
	run --duration "$v" -t args
	r1=$rc
	ZC_DURATION=$v run -t args
	r2=$rc
	if [ "$r1" = 128 ] && [ "$r2" = 128 ] && [ "$(wc -l <<<"$err")" = 1 ]; then
		ok "item5.duration_${v}_refused # --duration and ZC_DURATION: exit 128"
	else
		not_ok "item5.duration_${v}_refused" "--duration $v: exit $r1, ZC_DURATION=$v: exit $r2" "$err"
	fi
done
for v in 0 999999999; do
	run -d "$v" -t args
	expect "item5.old_d_${v}_refused" test "$rc" = 128
done
for v in 0 -1 1e9; do
	ZC_REPEAT=$v run -t args
	expect "item5.env_repeat_${v}_refused" test "$rc" = 128
done
run --duration 0.2 -r 4 -t args
expect "item5.good_values_pass_through" grep -qx "# # argv= d=0.2 r=4" <<<"$out"
# the binaries apply the same rule to the environment (lib/core/opts.c)
bin=$BUILD_DIR/xsk_bind
if [ -x "$bin" ]; then
	for v in abc 0 -1 1e9; do
		ZC_DURATION=$v "$bin" --list >/dev/null 2>"$fake/err"
		r1=$?
		ZC_REPEAT=$v "$bin" --list >/dev/null 2>>"$fake/err"
		r2=$?
		if [ "$r1" = 128 ] && [ "$r2" = 128 ] && [ "$(wc -l <"$fake/err")" = 2 ]; then
			ok "item5.binary_env_${v}_refused"
		else
			not_ok "item5.binary_env_${v}_refused" "exit $r1 / $r2" "$(cat "$fake/err")"
		fi
	done
else
	skip "item5.binary_env" "xsk_bind not built"
fi

# item 6: the exit status does not depend on the folders around it
ksft=$fake/tree
mkdir -p "$ksft/kselftest" "$ksft/net/zc"
: >"$ksft/kselftest/runner.sh"
cp "$R" "$fake/b_fail" "$fake/settings" "$ksft/net/zc/"
echo "net/zc:b_fail" >"$ksft/net/zc/kselftest-list.txt"
out=$("$ksft/net/zc/run_tests.sh" 2>&1)
rc=$?
expect "item6.in_a_tree_failure_exits_1" test "$rc" = 1
expect "item6.in_a_tree_no_mode_line" test "$(head -n 1 <<<"$out")" = "TAP version 13"
out=$("$ksft/net/zc/run_tests.sh" --kselftest 2>&1)
rc=$?
if [ "$rc" = 0 ] && head -n 1 <<<"$out" | grep -q '^# run_tests.sh: kselftest mode'; then
	ok "item6.kselftest_switch_said_first # $(head -n 1 <<<"$out")"
else
	not_ok "item6.kselftest_switch_said_first" "exit $rc" "$(head -n 2 <<<"$out")"
fi
out=$(ZC_KSFT=1 "$R" -b "$fake" -t b_fail 2>&1)
expect "item6.zc_ksft_env_said_first" \
	bash -c "head -n 1 <<<'$(head -n 1 <<<"$out")' | grep -q 'kselftest mode'"

# item 7: the kernel's letters where they overlap, long options for ours
run -l
expect "item7.l_prints_collection_test" test "$(echo $out)" = "zc:args zc:b_fail"
run -t zc:args
expect "item7.t_takes_collection_test" grep -qx "ok 1 selftests: zc: args" <<<"$out"
run -c zc -l
expect "item7.c_collection" test "$(echo $out)" = "zc:args zc:b_fail"
run -c net -l
expect "item7.c_other_collection_refused" test "$rc" = 128
run -o 7 -t args
expect "item7.o_number_is_timeout" grep -qx "# overriding timeout to 7" <<<"$out"
run -o "$fake/res" -t args
if [ "$rc" = 0 ] && [ -s "$fake/res/run.tap" ] && grep -q "deprecated, use --out" <<<"$err"; then
	ok "item7.o_dir_deprecated_still_works"
else
	not_ok "item7.o_dir_deprecated_still_works" "exit $rc" "$err"
fi
run --out "$fake/res2" -t args
expect "item7.out_no_warning" test "$rc" = 0 -a -s "$fake/res2/run.tap" -a -z "$err"
run -d -t args
if [ "$rc" = 0 ] && ! grep -q "^ok 1" <<<"$out" && grep -q "zc:args" <<<"$out"; then
	ok "item7.d_is_dry_run"
else
	not_ok "item7.d_is_dry_run" "exit $rc" "$out"
fi
run -d 0.3 -t args
expect "item7.d_seconds_deprecated" test "$rc" = 0 -a -n "$(grep 'deprecated, use --duration' <<<"$err")"
run -s -t args
expect "item7.s_summary_no_nested_output" test "$rc" = 0 -a -z "$(grep '^# # argv' <<<"$out")" \
	-a -n "$(grep -x 'ok 1 selftests: zc: args' <<<"$out")"
run -p -t args
d=$(sed -n 's/^# per-test logs in //p' <<<"$out")
expect "item7.p_per_test_log" test -n "$d" -a -s "$d/args.log" -a -z "$(grep '^# # argv' <<<"$out")"
[ -n "$d" ] && rm -rf "$d"
run --runs 2 --out "$fake/runs" -t args
expect "item7.runs" test -s "$fake/runs/1/run.tap" -a -s "$fake/runs/2/run.tap"
run -n 2 --out "$fake/runs_old" -t args
expect "item7.n_number_deprecated" test -s "$fake/runs_old/2/run.tap" \
	-a -n "$(grep 'deprecated, use --runs' <<<"$err")"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	# /proc/net/dev is per network namespace (sysfs is per mount)
	mkfake netns 'echo "1..1"; echo "# links=$(sed -n "s/^ *\([^ :]*\):.*/\1/p" /proc/net/dev | tr "\n" " ")"; echo "ok 1 x"'
	run -n -t netns
	expect "item7.n_is_per_test_netns" grep -qx "# # links=lo " <<<"$out"
else
	skip "item7.n_is_per_test_netns" "needs root and unshare"
fi
KSELFTEST_ARGS_ARGS="-t one.case" run -t args
expect "item7.kselftest_name_args_standalone" grep -qx "# # argv=-t one.case d= r=" <<<"$out"
run --case "args/udp4.*" --case "args/tcp4.x"
expect "item7.case_selects_cases" grep -qx "# # argv=-t udp4.\* -t tcp4.x d= r=" <<<"$out"
expect "item7.case_selects_its_test" test -z "$(grep 'selftests: zc: b_fail' <<<"$out")"
# A --case pattern that selects none of the test's cases is a usage
# error before anything runs, not a failed test line (issue 34, item 7).
mkdir "$fake/sel"
printf '#!/bin/bash\nif [ "$1" = --list ]; then [ "${3:-}" = nomatch ] || echo udp4.one; exit 0; fi\necho ran >>"$(dirname "$0")/ran"; echo "1..1"; echo "ok 1 udp4.one"\n' >"$fake/sel/few"
chmod +x "$fake/sel/few"
echo "zc:few" >"$fake/sel/kselftest-list.txt"
printf 'timeout=45\n' >"$fake/sel/settings"
out=$("$R" -b "$fake/sel" --case few/nomatch 2>"$fake/err")
rc=$?
expect "item34.case_matching_nothing_refused # $(head -c 120 "$fake/err")" \
	[ "$rc" -eq 128 -a "$(grep -c . "$fake/err")" -eq 1 -a -z "$out" -a ! -e "$fake/sel/ran" ]
out=$("$R" -b "$fake/sel" --case few/udp4 2>&1)
expect "item34.case_matching_runs" [ $? -eq 0 -a -e "$fake/sel/ran" ]
run --bogus
expect "item7.help_documents_case" bash -c "'$R' --help | grep -q -- '--case TEST/PATTERN'"
t_done
