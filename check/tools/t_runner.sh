#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh against small fake test binaries: exact TAP lines, totals,
# timeout of a hanging test with its whole process group, exit codes.

. "$(dirname "$0")/../lib.sh"

fake=$(mktemp -d /tmp/zc-check-fake.XXXXXX)
trap 'rm -rf "$fake"' EXIT

mkfake()
{
	printf '#!/bin/bash\n%s\n' "$2" > "$fake/$1"
	chmod +x "$fake/$1"
}

mkfake a_pass 'echo "TAP version 13"; echo "1..1"; echo "ok 1 x"; exit 0'
mkfake b_fail 'echo "not ok 1 x"; exit 1'
mkfake c_skip 'echo "# skip-class * environment"; echo "1..0 # SKIP needs CAP_NET_ADMIN"; exit 4'
mkfake d_xfail 'exit 2'
mkfake e_crash 'kill -SEGV $$'
# The hang leaves a grandchild behind that must die with the group.
mkfake f_hang 'sleep 300 & echo "$$ $!" > "$(dirname "$0")/hang.pids"; echo "started"; sleep 300'
mkfake g_silent 'exit 0'
printf 'timeout=45\n' > "$fake/settings"
for n in a_pass b_fail c_skip d_xfail e_crash f_hang g_silent; do
	echo "zc:$n"
done > "$fake/kselftest-list.txt"

# The kernel log the runner reads: a recorded one, never this host's.
export ZC_KMSG_FILE=$fake/kmsg
: > "$ZC_KMSG_FILE"
start=$(date +%s)
out=$(kselftest_override_timeout=2 "$TOP/run_tests.sh" -b "$fake" 2>&1)
rc=$?
elapsed=$(($(date +%s) - start))
header=$(grep '^# kernel ' <<<"$out")
out=$(grep -v -e '^# kernel ' -e '^# provenance ' <<<"$out")

# The kernel's kselftest/runner.sh prints the same verdict lines: an
# override of the timeout is announced as such, and a binary's exit 2
# (KSFT_XFAIL) is "not ok ... # exit=2".
want=$(cat <<'WANT'
TAP version 13
1..7
# overriding timeout to 2
# selftests: zc: a_pass
# TAP version 13
# 1..1
# ok 1 x
ok 1 selftests: zc: a_pass
# overriding timeout to 2
# selftests: zc: b_fail
# not ok 1 x
not ok 2 selftests: zc: b_fail # exit=1
# overriding timeout to 2
# selftests: zc: c_skip
# # skip-class * environment
# 1..0 # SKIP needs CAP_NET_ADMIN
# skip-class selftests: zc: c_skip environment
ok 3 selftests: zc: c_skip # SKIP
# overriding timeout to 2
# selftests: zc: d_xfail
not ok 4 selftests: zc: d_xfail # exit=2
# overriding timeout to 2
# selftests: zc: e_crash
not ok 5 selftests: zc: e_crash # exit=139
# overriding timeout to 2
# selftests: zc: f_hang
# started
#
not ok 6 selftests: zc: f_hang # TIMEOUT 2 seconds
# overriding timeout to 2
# selftests: zc: g_silent
ok 7 selftests: zc: g_silent
# Totals: pass:2 fail:4 xfail:0 xpass:0 skip:1 error:0
2 passed, 4 failed, 1 skipped
WANT
)
if [ "$out" = "$want" ]; then
	ok "runner.exact_tap"
else
	not_ok "runner.exact_tap" "$(diff <(echo "$want") <(echo "$out"))"
fi
expect "runner.exit_nonzero_on_fail" [ "$rc" -ne 0 ]
expect "runner.header_panic_on_warn_and_taint" grep -qE \
	"^# kernel $(uname -r): kernel.panic_on_warn=[0-9]+ tainted=[0-9]+" <<<"$header"
expect "runner.timeout_bounded" [ "$elapsed" -lt 30 ]
sleep 0.5
alive=$(alive_pids $(cat "$fake/hang.pids" 2>/dev/null))
expect "runner.hang_group_killed" test -s "$fake/hang.pids" -a -z "$alive"

# A runner stopped by SIGTERM stops its running test's whole group too.
rm -f "$fake/hang.pids"
kselftest_override_timeout=60 "$TOP/run_tests.sh" -b "$fake" -t f_hang >/dev/null 2>&1 &
rpid=$!
for i in $(seq 1 50); do
	[ -s "$fake/hang.pids" ] && break
	sleep 0.1
done
kill -TERM "$rpid"
start=$(date +%s)
wait "$rpid"
rc=$?
sleep 0.5
alive=$(alive_pids $(cat "$fake/hang.pids" 2>/dev/null))
expect "runner.sigterm_stops_test" test -s "$fake/hang.pids" -a -z "$alive" \
	-a "$rc" -eq 143 -a $(($(date +%s) - start)) -lt 10

out=$("$TOP/run_tests.sh" -b "$fake" -t a_pass -t c_skip 2>&1)
rc=$?
expect "runner.select_exit0" [ "$rc" -eq 0 ]
expect "runner.select_line" grep -qx "1 passed, 0 failed, 1 skipped" <<<"$out"
expect "runner.select_plan" grep -qx "1..2" <<<"$out"
expect "runner.timeout_from_settings" \
	grep -qx "# timeout set to $(sed -n 's/^timeout=//p' "$TOP/settings")" <<<"$out"

out=$("$TOP/run_tests.sh" -b "$fake" -l)
expect "runner.list" [ "$(echo $out)" = "zc:a_pass zc:b_fail zc:c_skip zc:d_xfail zc:e_crash zc:f_hang zc:g_silent" ]

# Usage errors: 128, outside kselftest's codes and git bisect's.
"$TOP/run_tests.sh" -b "$fake" -t nosuch >/dev/null 2>&1
expect "runner.unknown_test_exit128" [ $? -eq 128 ]
"$TOP/run_tests.sh" -b "$fake" --bogus >/dev/null 2>&1
expect "runner.unknown_option_exit128" [ $? -eq 128 ]
"$TOP/run_tests.sh" -b "$fake" -r 0 >/dev/null 2>&1
expect "runner.bad_repeat_exit128" [ $? -eq 128 ]

logs=$(mktemp -d /tmp/zc-check-logs.XXXXXX)
kselftest_override_timeout=5 "$TOP/run_tests.sh" -b "$fake" -t a_pass -t b_fail --out "$logs" >/dev/null 2>&1
expect "runner.keeps_logs" grep -qx "ok 1 x" "$logs/a_pass.log"
expect "runner.keeps_run_tap" grep -q "^not ok 2 selftests: zc: b_fail # exit=1" "$logs/run.tap"
rm -rf "$logs"

logs=$(mktemp -d /tmp/zc-check-logs.XXXXXX)
"$TOP/run_tests.sh" -b "$fake" -t a_pass --runs 3 --out "$logs" >/dev/null 2>&1
expect "runner.n_runs_each_kept" test -s "$logs/1/a_pass.log" -a -s "$logs/2/a_pass.log" \
	-a -s "$logs/3/a_pass.log" -a ! -e "$logs/4"
rm -rf "$logs"

mkfake env_dump 'echo "# d=${ZC_DURATION:-} r=${ZC_REPEAT:-}"'
echo "zc:env_dump" >> "$fake/kselftest-list.txt"
out=$("$TOP/run_tests.sh" -b "$fake" -t env_dump --duration 0.2 -r 4 2>&1)
expect "runner.passes_duration_repeat" grep -qx "# # d=0.2 r=4" <<<"$out"

# A kernel report logged after a binary's last case (its exit closed a
# socket whose teardown warned) fails that binary's line; one from
# before the binary started does not.
fix=$CHECK_DIR/fixtures/kmsg/host-6.18.44-psock-warn.kmsg
cp "$fix" "$ZC_KMSG_FILE"
mkfake late_warn "echo '1..1'; echo 'ok 1 x'; echo '# kmsg: watched to seq 999'; \
sed 's/^\\([0-9]*\\),\\([0-9]*\\),/\\1,100\\2,/' '$fix' >> '$ZC_KMSG_FILE'"
echo "zc:late_warn" >> "$fake/kselftest-list.txt"
out=$("$TOP/run_tests.sh" -b "$fake" -t a_pass -t late_warn 2>&1)
rc=$?
expect "runner.kmsg_old_report_ignored" grep -qx "ok 1 selftests: zc: a_pass" <<<"$out"
expect "runner.kmsg_report_after_exit_fails_line" grep -qx \
	"not ok 2 selftests: zc: late_warn # kernel report after its cases (exit=0)" <<<"$out"
expect "runner.kmsg_report_named" grep -qx \
	"# kmsg: after late_warn's last case: WARNING: CPU: 1 PID: 41 at net/ipv4/af_inet.c:157 inet_sock_destruct+0x174/0x1a0" <<<"$out"
expect "runner.kmsg_exit1" [ "$rc" -eq 1 ]
: > "$ZC_KMSG_FILE"
sed -i '/^zc:late_warn$/d' "$fake/kselftest-list.txt"
rm -f "$fake/late_warn"

# A stall report after the last case measures the host under wall-clock
# TCG (tools/vmtest's ZC_CLOCK): a skip naming it, decided here and in
# lib/core, never rewritten later; on any other clock it fails the line.
mkfake late_stall "echo '1..1'; echo 'ok 1 x'; echo '# kmsg: watched to seq 999'; \
echo '4,100001,1000,-;rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' >> '$ZC_KMSG_FILE'"
echo "zc:late_stall" >> "$fake/kselftest-list.txt"
out=$(ZC_CLOCK="wall qemu=7.2.22 accel=tcg cpu=max smp=2" "$TOP/run_tests.sh" -b "$fake" -t late_stall 2>&1)
expect "runner.kmsg_late_stall_tcg_skips" grep -qx \
	"ok 1 selftests: zc: late_stall # SKIP its only failures were stall reports under wall-clock TCG (after its last case: rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:)" <<<"$out"
: > "$ZC_KMSG_FILE"
out=$(ZC_CLOCK="icount shift=0 qemu=7.2.22 accel=tcg cpu=max smp=1" "$TOP/run_tests.sh" -b "$fake" -t late_stall 2>&1)
expect "runner.kmsg_late_stall_icount_fails" grep -qx \
	"not ok 1 selftests: zc: late_stall # kernel report after its cases (exit=0)" <<<"$out"
: > "$ZC_KMSG_FILE"
mkfake late_stall "echo '1..1'; echo 'ok 1 x'; echo '# kmsg: watched to seq 999'; \
{ echo '4,100001,1000,-;rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'; \
  echo '4,100002,1000,-;WARNING: CPU: 0 PID: 9 at net/core/dev.c:1 x+0x1/0x2'; } >> '$ZC_KMSG_FILE'"
out=$(ZC_CLOCK="wall qemu=7.2.22 accel=tcg cpu=max smp=2" "$TOP/run_tests.sh" -b "$fake" -t late_stall 2>&1)
expect "runner.kmsg_late_stall_and_warning_fails" grep -qx \
	"not ok 1 selftests: zc: late_stall # kernel report after its cases (exit=0)" <<<"$out"
: > "$ZC_KMSG_FILE"
sed -i '/^zc:late_stall$/d' "$fake/kselftest-list.txt"
rm -f "$fake/late_stall"

# Inside a kselftest tree: the collection name from kselftest-list.txt,
# or from the path where kselftest/runner.sh is two levels up, as in
# tools/testing/selftests/net/zc or an installed tree. The exit status
# stays the standalone one there: kselftest mode only when asked.
ksft=$fake/ksft
mkdir -p "$ksft/kselftest" "$ksft/net/zc"
: > "$ksft/kselftest/runner.sh"
cp "$TOP/run_tests.sh" "$fake/a_pass" "$fake/b_fail" "$fake/settings" "$ksft/net/zc/"
printf 'net/zc:a_pass\nnet/zc:b_fail\n' > "$ksft/net/zc/kselftest-list.txt"
out=$("$ksft/net/zc/run_tests.sh" 2>&1)
rc=$?
expect "runner.ksft_tree_exit_is_standalone" [ "$rc" -eq 1 ]
expect "runner.ksft_collection" grep -qx "not ok 2 selftests: net/zc: b_fail # exit=1" <<<"$out"
out=$("$ksft/net/zc/run_tests.sh" --kselftest 2>&1)
rc=$?
expect "runner.ksft_asked_exit0_on_fail" [ "$rc" -eq 0 ]
expect "runner.ksft_count_is_diag" grep -qx "# 1 passed, 1 failed, 0 skipped" <<<"$out"
expect "runner.ksft_list" [ "$("$ksft/net/zc/run_tests.sh" -l | tr '\n' ' ')" = "net/zc:a_pass net/zc:b_fail " ]
rm "$ksft/net/zc/kselftest-list.txt"
out=$("$ksft/net/zc/run_tests.sh" -b "$ksft/net/zc" -t b_fail 2>&1)
expect "runner.ksft_collection_from_path" \
	grep -qx "not ok 1 selftests: net/zc: b_fail # exit=1" <<<"$out"
out=$(ZC_KSFT=1 "$TOP/run_tests.sh" -b "$fake" -t b_fail 2>&1)
expect "runner.zc_ksft_env" test $? -eq 0 -a "$(tail -n 1 <<<"$out")" = "# 0 passed, 1 failed, 0 skipped"

# The target contract: bash, and busybox's sed, tail, awk, sleep, setsid,
# date, mktemp... first in PATH give the same TAP as the GNU tools.
bb=$(command -v busybox)
if [ -n "$bb" ] && "$bb" setsid true 2>/dev/null; then
	bbdir=$fake/busybox-bin
	mkdir "$bbdir"
	for a in $("$bb" --list); do
		ln -s "$bb" "$bbdir/$a"
	done
	# The runner as make install puts it beside the binaries.
	install -m 0755 "$TOP/run_tests.sh" "$fake/"
	run_both()
	{
		gnu=$(kselftest_override_timeout=2 "$fake/run_tests.sh" "$@" 2>&1)
		gnu_rc=$?
		bbo=$(PATH=$bbdir:$PATH kselftest_override_timeout=2 "$fake/run_tests.sh" "$@" 2>&1)
		bb_rc=$?
		# The start time may differ, and so may the kernel's taint
		# flags: another job on the machine can taint it in between.
		gnu=$(grep -v -e '^# provenance date ' -e '^# kernel .*tainted=' <<<"$gnu")
		bbo=$(grep -v -e '^# provenance date ' -e '^# kernel .*tainted=' <<<"$bbo")
	}
	run_both
	if [ -n "$gnu" ] && [ "$bbo" = "$gnu" ] && [ "$bb_rc" = "$gnu_rc" ]; then
		ok "runner.busybox_same_tap"
	else
		not_ok "runner.busybox_same_tap" "exit $gnu_rc vs $bb_rc" \
			"$(diff <(echo "$gnu") <(echo "$bbo"))"
	fi
	expect "runner.busybox_is_used" test "$(PATH=$bbdir:$PATH command -v sed)" = "$bbdir/sed"
	run_both -l
	expect "runner.busybox_list" test "$bbo" = "$gnu" -a -n "$gnu"
	rm "$fake/kselftest-list.txt"
	run_both -b "$fake" -l
	expect "runner.busybox_list_without_txt" test "$bbo" = "$gnu" -a -n "$gnu"
else
	skip "runner.busybox_same_tap" "busybox with setsid not installed (make deps)"
fi
unset ZC_KMSG_FILE

t_done
