#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sockmap_splice's splice_user rate (splice into the pipe, the pipe read
# into the user buffer) and tools/zc-peer-bench --test sockmap_splice
# beside bench_sockmap (tools/zc-peer-build): usage errors exit 128 with
# one line; plain TCP's splice_user rate runs paired with read and says
# so; without ingress splice its ingress twin skips with the reason; and
# where bench_sockmap is built already (tools/zc-peer-build bench_sockmap;
# the check never downloads) one short round of the default-rcvbuf mode
# gives a table row and --min-ratio judges it (~15 s). --per-repeat
# prints a line for each timed run of both arms, and says that each
# arm's producer wrote (next to) nothing outside its own windows.

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/sockmap_splice
BENCH=$TOP/tools/zc-peer-bench
PB=$TOP/tools/zc-peer-build

# usage: exit 128, one line, nothing built
for a in "" "nosuchpeer" "--bogus xdpsock"; do
	# shellcheck disable=SC2086
	out=$("$PB" $a 2>&1)
	expect "peer_build.usage '$a'" test "$?" = 128 -a "$(wc -l <<<"$out")" = 1
done
out=$("$BENCH" --test sockmap_splice --icount --boots 0 2>&1)
expect "peer_bench.sockmap_icount_usage" test "$?" = 128 -a "$(wc -l <<<"$out")" = 1
out=$("$BENCH" --test sockmap_splice -m send_zc 2>&1)
expect "peer_bench.sockmap_foreign_mode_usage" test "$?" = 128 -a \
	-n "$(grep "modes are ingress_read" <<<"$out")"

[ -x "$BIN" ] || { skip "splice_user" "sockmap_splice not built in $BUILD_DIR"; t_done; }
cases=$("$BIN" --list)
expect "splice_user.listed" test -n "$(grep -x rate_plain_splice_user <<<"$cases")" \
	-a -n "$(grep -x rate_ingress_splice_user <<<"$cases")"

[ "$(id -u)" = 0 ] || { skip "splice_user.run" "needs root"; t_done; }
out=$("$BIN" -t rate_plain_splice_user --duration 0.1 --repeat 2 --per-repeat 2>&1)
rc=$?
expect "splice_user.plain_paired" test "$rc" = 0 \
	-a -n "$(grep '^# config: sockmap_splice.plain.splice_user rx=splice_user ' <<<"$out")" \
	-a -n "$(grep -E '^# metric sockmap_splice.plain.splice_user_read_ratio [0-9.e+-]+ ratio n=2 ' <<<"$out")"
# --per-repeat: a line per timed run of each arm (warm-up and 2 repeats)
runs='run=[0-9]+ MB/s=[0-9.]+ call_bytes=[0-9]+ waits/MB=[0-9.]+ vcsw/MB=[0-9.]+ ivcsw/MB=[0-9.]+ pgalloc/MB=([0-9.]+|-) cpu=[0-9.]+ idle=[0-9.]+ held_sent=[0-9]+$'
expect "splice_user.per_repeat" test \
	"$(grep -Ec "^# repeat sockmap_splice.plain.splice_user $runs" <<<"$out")" -ge 3 \
	-a "$(grep -Ec "^# repeat sockmap_splice.plain.read $runs" <<<"$out")" -ge 3
# Each arm's producer is held outside its windows: between two of them it
# finishes at most the one write (64 KiB, --size) it was in.
held=$(sed -n 's/^# repeat .* run=[1-9][0-9]* .* held_sent=\([0-9]*\)$/\1/p' <<<"$out" | sort -n | tail -n 1)
expect "splice_user.producer_held # most written while held: ${held:-none} B" \
	test -n "$held" -a "${held:-0}" -le 65536
out=$("$BIN" -t rate_ingress_splice_user --duration 0.1 --repeat 2 2>&1)
if grep -q '^ok 1 rate_ingress_splice_user # SKIP kernel lacks splice_read' <<<"$out"; then
	ok "splice_user.ingress_skips_without_splice_read"
else
	expect "splice_user.ingress_runs" grep -Eq \
		'^# metric sockmap_splice.ingress.splice_user_read_ratio [0-9.e+-]+ ratio n=2 ' <<<"$out"
fi

peer=${ZC_VMTEST_CACHE:-$HOME/.cache/zc-vmtest}/peers/bench
[ -x "$peer" ] || { skip "peer_bench.sockmap_run" "bench_sockmap not built (tools/zc-peer-build bench_sockmap)"; t_done; }
# make check holds the measuring lock already: the bench must not wait for it.
# --min-ratio holds this test to it too: no ratio reaches 1000, so the
# round measured (its row) and exits 1 naming the mode.
out=$("$BENCH" -b "$BUILD_DIR" --test sockmap_splice -m ingress_default_rcvbuf \
	-r 1 -d 1 --lock '' --min-ratio 1000 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
expect "peer_bench.sockmap_run" test -n "$(grep -E \
	'^\| ingress read, default rcvbuf \| kernel selftests bpf bench sockmap \| .* \| [0-9.]+ \| - \| [0-9.]+-[0-9.]+ \|$' <<<"$out")"
expect "peer_bench.sockmap_min_ratio" test "$rc" = 1 -a -n "$(grep -E \
	'^median ratio below --min-ratio 1000: ingress read, default rcvbuf [0-9.]+$' <<<"$out")"
t_done
