#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/zc-peer-bench --test xsk_bind --icount's report, from two real
# instruction-counted boots recorded in check/fixtures/peer_bench_xsk
# (--from-guest reads them back instead of booting): the per-boot rates
# and ratios, each side's instructions per frame and the spread across
# boots are the ones computed by hand from the recorded figures; exit 0
# measured, 1 below --min-ratio, 1 and no table when a boot lost a
# side. The zero-copy modes likewise from two boots over the guest's
# virtio-net pair (zc_boot1.out, zc_boot2.out: --zerocopy), and a side
# bound in copy mode is not like for like. No guest is booted here: a real --icount run takes ~5 minutes
# (2 boots of the 6 modes), too long for a check. About 5 s.

. "$(dirname "$0")/../lib.sh"

recorded_boots peer_bench_xsk

out=$("$BENCH" --test xsk_bind --from-guest "$B1" --from-guest "$B2" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.measured_exit0 # exit $rc" test "$rc" = 0
# xdpsock's Mpps = (last whole block's rx or tx total - the first's) /
# the seconds of the blocks after the first: rx-drop native
# (490061 - 111696) / 3.01 = 0.125702 and (488237 - 109917) / 3.00 =
# 0.126107; tx-only skb (808544 - 202624) / 3.00 = 0.201973 in both.
# The suite's is its pps metric: 0.114173, 0.113593; 0.201023, 0.201023.
has_lines "peer_bench_xsk_icount.boot_lines" "$out" \
	"boot 1 rxdrop_native suite   0.1142  peer   0.1257  ratio 0.9083" \
	"boot 1 txonly_skb    suite   0.2010  peer   0.2020  ratio 0.9953" \
	"boot 2 rxdrop_native suite   0.1136  peer   0.1261  ratio 0.9008" \
	"boot 2 txonly_skb    suite   0.2010  peer   0.2020  ratio 0.9953"
# instructions/frame = 1000 / median Mpps: 1000 / 0.113883 = 8781,
# 1000 / 0.1259045 = 7943; spread (0.908285 - 0.900766) / 0.904525.
has_lines "peer_bench_xsk_icount.table" "$out" \
	"| rxdrop copy native | samples/bpf xdpsock (5.10) | 0.9083 0.9008 | 0.9045 | 0.830 % | 8781 | 7943 | +838 |" \
	"| txonly copy skb | samples/bpf xdpsock (5.10) | 0.9953 0.9953 | 0.9953 | 0.000 % | 4975 | 4951 | +23 |"
ROW='^\| .* \| [0-9.]+ % \| [0-9]+ \| [0-9]+ \| [-+][0-9]+ \|$'
n=$(grep -cE "$ROW" <<<"$out")
expect "peer_bench_xsk_icount.modes_the_file_holds # $n rows" test "$n" = 6
expect "peer_bench_xsk_icount.footer_says_recorded" \
	grep -q '^2 boots of 6\.18\.15+deb13-amd64, recorded (--from-guest .*-smp 1: generator, kernel and receiver on the one vCPU; 64 B frames' <<<"$out"

out=$("$BENCH" --test xsk_bind -m txonly_skb --from-guest "$B1" --from-guest "$B2" 2>&1)
n=$(grep -cE "$ROW" <<<"$out")
expect "peer_bench_xsk_icount.mode_picks_one_row # $n rows" test "$n" = 1 -a \
	-n "$(grep '^| txonly copy skb |' <<<"$out")"

# --min-ratio: tx-only holds 0.97 in both boots, native rx-drop does not.
"$BENCH" --test xsk_bind -m txonly_skb --from-guest "$B1" --from-guest "$B2" \
	--min-ratio 0.97 >/dev/null 2>&1
expect "peer_bench_xsk_icount.min_ratio_held_exit0" test $? = 0
exits_saying peer_bench_xsk_icount.min_ratio_below_exit1 1 \
	'median ratio below --min-ratio 0.97: rxdrop copy native 0.9045' \
	"$BENCH" --test xsk_bind -m rxdrop_native --from-guest "$B1" --from-guest "$B2" \
	--min-ratio 0.97

# A boot whose guest stopped before xdpsock's l2fwd finished: no result.
grep -v '^@peer l2fwd_native rc=' "$B2" >"$tmp/cut.out"
out=$("$BENCH" --test xsk_bind --from-guest "$B1" --from-guest "$tmp/cut.out" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.lost_side_exit1_no_table # exit $rc" test "$rc" = 1 -a \
	-n "$(grep -F 'boot 2: l2fwd_native did not finish in the guest (no peer)' <<<"$out")" -a \
	-z "$(grep '^| ' <<<"$out")"

# A side the suite did not run like xdpsock (another batch): exit 1, named.
sed 's/ batch=64 / batch=32 /' "$B1" >"$tmp/batch.out"
exits_saying peer_bench_xsk_icount.unlike_config_exit1 1 \
	'zc-peer-bench: boot 1: rxdrop_skb is not like for like with xdpsock: batch=32, not 64' \
	"$BENCH" --test xsk_bind -m rxdrop_skb --from-guest "$tmp/batch.out"

# sendzc_notif's boots hold no xsk_bind mode.
out=$("$BENCH" --test xsk_bind --from-guest "$CHECK_DIR/fixtures/peer_bench/boot1.out" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.no_xsk_mode_exit1_one_line # exit $rc" \
	test "$rc" = 1 -a "$(wc -l <<<"$out")" = 1

# Zero-copy, two boots over the guest's virtio-net pair (--zerocopy).
# xdpsock: rx-drop (130479 - 33771) / 3.00 = 0.032236 Mpps and
# (133003 - 33476) / 3.00 = 0.033176; tx-only (412992 - 101184) / 3.03 =
# 0.102907 and (403264 - 98432) / 3.00 = 0.101611. The suite's pps
# metrics: 0.0692766, 0.0725748; 0.0556391, 0.0510969.
Z1=$FIX/zc_boot1.out
Z2=$FIX/zc_boot2.out
out=$("$BENCH" --test xsk_bind --from-guest "$Z1" --from-guest "$Z2" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.zc_measured_exit0 # exit $rc" test "$rc" = 0
has_lines "peer_bench_xsk_icount.zc_boot_lines" "$out" \
	"boot 1 rxdrop_zc_native suite   0.0693  peer   0.0322  ratio 2.1490" \
	"boot 1 txonly_zc_native suite   0.0556  peer   0.1029  ratio 0.5407" \
	"boot 2 rxdrop_zc_native suite   0.0726  peer   0.0332  ratio 2.1876" \
	"boot 2 txonly_zc_native suite   0.0511  peer   0.1016  ratio 0.5029"
# 1000 / median(0.0692766, 0.0725748) = 14099; 1000 / 0.032706 = 30576.
has_lines "peer_bench_xsk_icount.zc_table" "$out" \
	"| rxdrop zero-copy native | samples/bpf xdpsock (5.10) | 2.1490 2.1876 | 2.1683 | 1.778 % | 14099 | 30576 | -16476 |" \
	"| txonly zero-copy native | samples/bpf xdpsock (5.10) | 0.5407 0.5029 | 0.5218 | 7.245 % | 18738 | 9779 | +8959 |"
n=$(grep -cE "$ROW" <<<"$out")
expect "peer_bench_xsk_icount.zc_three_modes # $n rows" test "$n" = 3
expect "peer_bench_xsk_icount.zc_says_the_pair" \
	grep -q "^zero-copy modes, in place of .*virtio-net pair" <<<"$out"
exits_saying peer_bench_xsk_icount.zc_min_ratio_exit1 1 \
	'median ratio below --min-ratio 0.97: txonly zero-copy native 0.5218' \
	"$BENCH" --test xsk_bind --from-guest "$Z1" --from-guest "$Z2" --min-ratio 0.97
# A zero-copy mode whose suite side was bound in copy mode: exit 1, named.
sed 's/ bind=zerocopy+need_wakeup / bind=copy+need_wakeup /' "$Z1" >"$tmp/zcbind.out"
exits_saying peer_bench_xsk_icount.zc_copy_bound_exit1 1 \
	'zc-peer-bench: boot 1: rxdrop_zc_native is not like for like with xdpsock: bind=copy+need_wakeup, not zerocopy+need_wakeup' \
	"$BENCH" --test xsk_bind -m rxdrop_zc_native --from-guest "$tmp/zcbind.out"
t_done
