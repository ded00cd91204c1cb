#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/zc-peer-bench --test sockmap_splice --icount's report, from two
# real instruction-counted boots recorded in
# check/fixtures/peer_bench_sockmap (--from-guest reads them back
# instead of booting): the per-boot rates and ratios, the median and the
# spread are the ones computed by hand from the recorded figures; exit 0
# measured, 1 below --min-ratio, 1 and no table when a boot lost a side
# or ran unlike bench. No guest is booted here: a real --icount run
# takes ~4 minutes (2 boots of 2 modes). About 3 s.

. "$(dirname "$0")/../lib.sh"

recorded_boots peer_bench_sockmap

out=$("$BENCH" --test sockmap_splice --from-guest "$B1" --from-guest "$B2" 2>&1)
rc=$?
expect "peer_bench_sockmap_icount.measured_exit0 # exit $rc" test "$rc" = 0
# bench's MB/s is its Rcv Speed over its iterations 1-4 (0 is its
# warm-up): default rcvbuf (16.384 + 16.400 + 16.432 + 16.333) / 4 =
# 16.38725 and (16.335 + 16.433 + 16.400 + 16.318) / 4 = 16.3715; the
# suite's is its throughput metric, 11.0495 and 12.2289.
has_lines "peer_bench_sockmap_icount.boot_lines" "$out" \
	"boot 1 ingress_read  suite   276.09  peer    27.59  ratio 10.0065" \
	"boot 1 ingress_default_rcvbuf suite    11.05  peer    16.39  ratio 0.6743" \
	"boot 2 ingress_read  suite   276.72  peer    27.52  ratio 10.0536" \
	"boot 2 ingress_default_rcvbuf suite    12.23  peer    16.37  ratio 0.7470"
# median of 0.674274 and 0.746963; spread (0.746963 - 0.674274) / 0.710618
has_lines "peer_bench_sockmap_icount.table" "$out" \
	"| ingress read, rcvbuf set | kernel selftests bpf bench sockmap | 276.09 276.72 | 27.59 27.52 | 10.0065 10.0536 | 10.0300 | - | 0.469 % |" \
	"| ingress read, default rcvbuf | kernel selftests bpf bench sockmap | 11.05 12.23 | 16.39 16.37 | 0.6743 0.7470 | 0.7106 | - | 10.229 % |"
expect "peer_bench_sockmap_icount.footer_says_recorded" \
	grep -q '^2 boots of 6\.18\.15+deb13-amd64, recorded (--from-guest .*-smp 2, --mem 4096; suite -d 1 --repeat 3, bench -w 1 -d 3' <<<"$out"

# --min-ratio: the rcvbuf mode holds 0.97, the default-rcvbuf mode not.
"$BENCH" --test sockmap_splice -m ingress_read --from-guest "$B1" \
	--from-guest "$B2" --min-ratio 0.97 >/dev/null 2>&1
expect "peer_bench_sockmap_icount.min_ratio_held_exit0" test $? = 0
exits_saying peer_bench_sockmap_icount.min_ratio_below_exit1 1 \
	'median ratio below --min-ratio 0.97: ingress read, default rcvbuf 0.7106' \
	"$BENCH" --test sockmap_splice -m ingress_default_rcvbuf --from-guest "$B1" \
	--from-guest "$B2" --min-ratio 0.97

# A boot whose guest stopped before bench's default-rcvbuf run ended.
grep -v '^@peer ingress_default_rcvbuf rc=' "$B2" >"$tmp/cut.out"
out=$("$BENCH" --test sockmap_splice --from-guest "$B1" --from-guest "$tmp/cut.out" 2>&1)
rc=$?
expect "peer_bench_sockmap_icount.lost_side_exit1_no_table # exit $rc" test "$rc" = 1 -a \
	-n "$(grep -F 'boot 2: ingress_default_rcvbuf did not finish in the guest (no peer)' <<<"$out")" -a \
	-z "$(grep '^| ' <<<"$out")"

# A suite run unlike bench (another consumer CPU): exit 1, named.
sed 's/ cpu_rx=1 / cpu_rx=0 /' "$B1" >"$tmp/cpu.out"
exits_saying peer_bench_sockmap_icount.unlike_config_exit1 1 \
	'zc-peer-bench: boot 1: ingress_read is not like for like with bench: cpu_rx=0, not 1' \
	"$BENCH" --test sockmap_splice -m ingress_read --from-guest "$tmp/cpu.out"

# bench's run without an iteration after its warm-up is no rate.
grep -v '^@peer ingress_read Iter   [1-9]' "$B1" >"$tmp/noiter.out"
exits_saying peer_bench_sockmap_icount.no_iteration_exit1 1 \
	'zc-peer-bench: boot 1: peer bench sockmap: exit 0, 0 iterations' \
	"$BENCH" --test sockmap_splice -m ingress_read --from-guest "$tmp/noiter.out"

# xsk_bind's boots hold no sockmap_splice mode.
out=$("$BENCH" --test sockmap_splice --from-guest "$CHECK_DIR/fixtures/peer_bench_xsk/boot1.out" 2>&1)
rc=$?
expect "peer_bench_sockmap_icount.no_sockmap_mode_exit1_one_line # exit $rc" \
	test "$rc" = 1 -a "$(wc -l <<<"$out")" = 1
t_done
