#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/zc-peer-bench --test xsk_bind --icount's report, from two real
# instruction-counted boots recorded in check/fixtures/peer_bench_xsk
# (--from-guest reads them back instead of booting): the per-boot rates
# and ratios, each side's instructions per frame and the spread across
# boots are the ones computed by hand from the recorded figures; exit 0
# measured, 1 below --min-ratio, 1 and no table when a boot lost a
# side. No guest is booted here: a real --icount run takes ~5 minutes
# (2 boots of the 6 modes), too long for a check. About 5 s.

. "$(dirname "$0")/../lib.sh"

FIX=$CHECK_DIR/fixtures/peer_bench_xsk
BENCH=$TOP/tools/zc-peer-bench
B1=$FIX/boot1.out
B2=$FIX/boot2.out

tmp=$(mktemp -d /tmp/zc-check-peer-bench-xsk.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

out=$("$BENCH" --test xsk_bind --from-guest "$B1" --from-guest "$B2" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.measured_exit0 # exit $rc" test "$rc" = 0
# xdpsock's Mpps = (last whole block's rx or tx total - the first's) / 3
# whole seconds: rx-drop native (485921 - 110377) / 3 = 0.12518 and
# (485991 - 108980) / 3 = 0.12567; tx-only skb (807840 - 202400) / 3 =
# 0.20181 and (808768 - 202656) / 3 = 0.20204. The suite's is its pps
# metric: 0.113741, 0.113248; 0.200843, 0.201083.
has_lines "peer_bench_xsk_icount.boot_lines" "$out" \
	"boot 1 rxdrop_native suite   0.1137  peer   0.1252  ratio 0.9086" \
	"boot 1 txonly_skb    suite   0.2008  peer   0.2018  ratio 0.9952" \
	"boot 2 rxdrop_native suite   0.1132  peer   0.1257  ratio 0.9012" \
	"boot 2 txonly_skb    suite   0.2011  peer   0.2020  ratio 0.9953"
# instructions/frame = 1000 / median Mpps: 1000 / 0.1134945 = 8811,
# 1000 / 0.1254258 = 7973; spread (0.908611 - 0.901152) / 0.904882.
has_lines "peer_bench_xsk_icount.table" "$out" \
	"| rxdrop copy native | samples/bpf xdpsock (5.10) | 0.9086 0.9012 | 0.9049 | 0.824 % | 8811 | 7973 | +838 |" \
	"| txonly copy skb | samples/bpf xdpsock (5.10) | 0.9952 0.9953 | 0.9952 | 0.008 % | 4976 | 4952 | +24 |"
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
out=$("$BENCH" --test xsk_bind -m rxdrop_native --from-guest "$B1" --from-guest "$B2" \
	--min-ratio 0.97 2>&1)
rc=$?
expect "peer_bench_xsk_icount.min_ratio_below_exit1 # exit $rc" test "$rc" = 1 -a \
	-n "$(grep -x 'median ratio below --min-ratio 0.97: rxdrop copy native 0.9049' <<<"$out")"

# A boot whose guest stopped before xdpsock's l2fwd finished: no result.
grep -v '^@peer l2fwd_native rc=' "$B2" >"$tmp/cut.out"
out=$("$BENCH" --test xsk_bind --from-guest "$B1" --from-guest "$tmp/cut.out" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.lost_side_exit1_no_table # exit $rc" test "$rc" = 1 -a \
	-n "$(grep -F 'boot 2: l2fwd_native did not finish in the guest (no peer)' <<<"$out")" -a \
	-z "$(grep '^| ' <<<"$out")"

# A side the suite did not run like xdpsock (another batch): exit 1, named.
sed 's/ batch=64 / batch=32 /' "$B1" >"$tmp/batch.out"
out=$("$BENCH" --test xsk_bind -m rxdrop_skb --from-guest "$tmp/batch.out" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.unlike_config_exit1 # exit $rc" test "$rc" = 1 -a \
	-n "$(grep -F 'batch=32, not 64' <<<"$out")"

# sendzc_notif's boots hold no xsk_bind mode.
out=$("$BENCH" --test xsk_bind --from-guest "$CHECK_DIR/fixtures/peer_bench/boot1.out" 2>&1)
rc=$?
expect "peer_bench_xsk_icount.no_xsk_mode_exit1_one_line # exit $rc" \
	test "$rc" = 1 -a "$(wc -l <<<"$out")" = 1
t_done
