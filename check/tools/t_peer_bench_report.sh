#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/zc-peer-bench --icount's report, from two real instruction-counted
# boots recorded in check/fixtures/peer_bench (--from-guest reads them
# back instead of booting): the per-boot ratios, each side's
# instructions per byte, the suite - peer instructions per send and the
# spread across boots are the ones computed by hand from the recorded
# figures; exit 0 measured, 1 below --min-ratio, 1 when a side failed or
# was copied, 1 and no table when a boot lost a side (no result). About
# 10 s (twenty calls of the tool).

. "$(dirname "$0")/../lib.sh"

recorded_boots peer_bench

out=$("$BENCH" --from-guest "$B1" --from-guest "$B2" 2>&1)
rc=$?
expect "peer_bench_report.measured_exit0 # exit $rc" test "$rc" = 0
# Peer MB/s = tx * 65435 B / 1.2 s (-t 1 runs 1.2 s): 11184 -> 609.85,
# 11176 -> 609.43; 81223 -> 4428.86, 81212 -> 4428.42. Ratios suite/peer.
has_lines "peer_bench_report.boot_lines" "$out" \
	"boot 1 uring_send    suite   609.10  peer   609.85  ratio 0.9988" \
	"boot 1 msg_zerocopy  suite  4985.01  peer  4428.86  ratio 1.1256" \
	"boot 2 uring_send    suite   609.12  peer   609.42  ratio 0.9995" \
	"boot 2 msg_zerocopy  suite  4983.24  peer  4428.42  ratio 1.1253"
# ns/B = 1000 / median MB/s (instructions per byte at shift 0); per send
# (suite - peer) * 65435; spread (max - min) / median of the ratios.
has_lines "peer_bench_report.table" "$out" \
	"| io_uring send | liburing examples/send-zerocopy.c | 0.9988 0.9995 | 0.075 % | 1.64174 | 1.64032 | +92 |" \
	"| MSG_ZEROCOPY | kernel selftests net/msg_zerocopy.c | 1.1256 1.1253 | 0.026 % | 0.20064 | 0.22580 | -1647 |"
expect "peer_bench_report.footer_says_recorded" \
	grep -q '^2 boots of 6\.18\.15+deb13-amd64, recorded (--from-guest ' <<<"$out"
n=$(grep -cE '^\| .* \| [0-9.]+ % \|' <<<"$out")
expect "peer_bench_report.modes_the_file_holds # $n rows" test "$n" = 2

has_lines "peer_bench_report.like_for_like" "$out" \
	"like for like (the suite's config lines checked): 65435 B a datagram, 8 in flight, one payload buffer a side, one vCPU, the suite's topology and tc sink for both (--peer-exec), 1 s a side (the suite after its warm-up, the peer its -t + 0.2 s)" \
	"not matched: the suite's ring single_issuer,defer_taskrun against the example's coop_taskrun"
# A suite run from eight buffers is not the peer's loop: an error naming it.
sed 's/one_buffer=yes/one_buffer=no/' "$B1" >"$tmp/eight.out"
out=$("$BENCH" --from-guest "$tmp/eight.out" 2>&1)
rc=$?
expect "peer_bench_report.unlike_config_exit1 # exit $rc" \
	test "$rc" = 1 -a -n "$(grep 'not like for like with its peer: one_buffer=no' <<<"$out")"

out=$("$BENCH" --from-guest "$B1" -m uring_send 2>&1)
has_lines "peer_bench_report.one_boot_one_mode" "$out" \
	"| io_uring send | liburing examples/send-zerocopy.c | 0.9988 | 0.000 % | 1.64177 | 1.63974 | +133 |"

# --min-ratio: io_uring send's median 0.9991 is below 1.0, above 0.999.
out=$("$BENCH" --from-guest "$B1" --from-guest "$B2" --min-ratio 1.0 2>&1)
rc=$?
expect "peer_bench_report.below_min_ratio_exit1 # exit $rc" \
	test "$rc" = 1 -a -n "$(grep -F '| io_uring send |' <<<"$out")" -a \
	"$(tail -n 1 <<<"$out")" = "median ratio below --min-ratio 1: io_uring send 0.9991"
"$BENCH" --from-guest "$B1" --from-guest "$B2" --min-ratio 0.999 >/dev/null 2>&1
rc=$?
expect "peer_bench_report.at_min_ratio_exit0 # exit $rc" test "$rc" = 0

# refused NAME SAYS ARG...: the bench given ARGs exits 1 with no table
# (no result), and a line of its output matches the regex SAYS.
refused()
{
	local name=$1 says=$2 out rc

	shift 2
	out=$("$BENCH" "$@" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && grep -qE -- "$says" <<<"$out" &&
		! grep -q '^|' <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, want 1, a line matching '$says' and no table" "$out"
	fi
}

# A side that failed in the guest: exit 1, the side named.
sed 's/^@peer uring_send rc=0$/@peer uring_send rc=1/' "$B2" >"$tmp/peer_failed"
refused "peer_bench_report.peer_failed_exit1" \
	'^zc-peer-bench: boot 2: peer send-zerocopy .*exit 1' \
	--from-guest "$B1" --from-guest "$tmp/peer_failed"
sed '/^@suite msg_zerocopy ok /d' "$B1" >"$tmp/suite_failed"
refused "peer_bench_report.suite_case_not_ok_exit1" \
	"^zc-peer-bench: boot 1: suite udp4.rate.msg_zerocopy: no 'ok' line$" \
	--from-guest "$tmp/suite_failed"
# msg_zerocopy.c's completions said copied: not the path measured.
sed 's/ zc=y$/ zc=n/' "$B1" >"$tmp/copied"
refused "peer_bench_report.peer_copied_exit1" 'sends were copied' \
	--from-guest "$tmp/copied"
# Fewer datagrams at the sink than the peer counted.
sed 's/^\(@peer uring_send # peer: tc sink counted\) 11184 /\1 11183 /' "$B1" >"$tmp/lost"
refused "peer_bench_report.sink_short_exit1" 'sent 11184, sink counted 11183$' \
	--from-guest "$tmp/lost"

# A boot whose side never finished (the guest stopped mid-run) is no
# result: exit 1, what is missing named, no table from the other boot.
sed '/^@peer uring_send rc=/d' "$B2" >"$tmp/peer_missing"
refused "peer_bench_report.peer_missing_exit1" \
	'^zc-peer-bench: boot 2: uring_send did not finish in the guest \(no peer\)$' \
	--from-guest "$B1" --from-guest "$tmp/peer_missing"
grep -v '^@suite msg_zerocopy ' "$B1" >"$tmp/suite_missing"
refused "peer_bench_report.suite_missing_exit1" \
	'^zc-peer-bench: boot 1: msg_zerocopy did not finish in the guest \(no suite\)$' \
	--from-guest "$tmp/suite_missing" -m uring_send -m msg_zerocopy

# The console carries the same lines among the kernel's, with CRLF.
{
	echo "zc-vm: kernel 6.18.15+deb13-amd64, 1 CPUs"
	echo "[   12.345678] random: crng init done"
	cat "$B1"
	echo "zc-vm: done"
} | sed 's/$/\r/' >"$tmp/console.log"
a=$("$BENCH" --from-guest "$tmp/console.log" 2>&1 | grep '^|')
b=$("$BENCH" --from-guest "$B1" 2>&1 | grep '^|')
expect "peer_bench_report.console_reads_as_exec_out" test -n "$a" -a "$a" = "$b"

# The recorded run's size, duration and repeats are the call's, or the
# peers' rates would be wrong: exit 1 naming the options to give.
refused "peer_bench_report.other_duration_exit1" 'give -s 65435 -d 1 --repeat 3$' \
	--from-guest "$B1" -d 2
# Hostile or absent input: one line, exit 1, never a traceback.
sed 's/throughput 609\.1[0-9]* MB/throughput nan MB/' "$B1" >"$tmp/nan"
printf '\x00\xff@suite\n' >"$tmp/binary"
refused "peer_bench_report.bad_input.nan" '^zc-peer-bench: boot 1: suite udp4.rate.uring_send: no throughput metric$' \
	--from-guest "$tmp/nan"
refused "peer_bench_report.bad_input.binary" "^zc-peer-bench: .*: no mode's output" \
	--from-guest "$tmp/binary"
refused "peer_bench_report.bad_input.absent" '^zc-peer-bench: /nonexistent/exec.out: No such file' \
	--from-guest /nonexistent/exec.out
"$BENCH" --from-guest "$B1" --boots 2 >/dev/null 2>&1
expect "peer_bench_report.boots_with_from_guest_exit128" test "$?" = 128
t_done
