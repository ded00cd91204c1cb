#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xsk_bind --peer-exec and tools/zc-peer-bench --test xsk_bind: bad usage
# exits 128 with one line; the command runs in the socket's namespace
# with the device, queue, frame and XDP mode in its environment and its
# exit status comes back; an rx path's generator waits for the command's
# XDP program; and where xdpsock is built already (tools/zc-peer-build
# xdpsock; the check never downloads) one short round of native rx-drop
# gives a table row (~20 s).

. "$(dirname "$0")/../lib.sh"

BIN=$BUILD_DIR/xsk_bind
BENCH=$TOP/tools/zc-peer-bench

# --icount runs both sides on a guest's one vCPU: no CPU to choose.
for a in "--test xsk_bind --icount --cpu 1" "--test xsk_bind --icount --cpu-rx 1" \
	 "--test xsk_bind --icount --boots 0" \
	 "--test xsk_bind -m send_zc" "--test xsk_bind -s 59" "--test xsk_bind -s 1515"; do
	# shellcheck disable=SC2086
	out=$("$BENCH" $a 2>&1)
	expect "peer_bench.xsk_usage '$a'" test "$?" = 128 -a "$(wc -l <<<"$out")" = 1
done

[ -x "$BIN" ] || { skip "peer_exec.xsk" "xsk_bind not built in $BUILD_DIR"; t_done; }
for a in "--peer-exec true" "--peer-exec true --mode all" \
	 "--peer-exec /nonexistent --mode skb" "--peer-exec true --mode skb --iface lo" \
	 "--peer-path txonly" "--peer-exec true --mode skb --peer-path nosuch"; do
	# shellcheck disable=SC2086
	out=$("$BIN" $a 2>&1)
	expect "peer_exec.xsk_usage '$a'" test "$?" = 128 -a "$(wc -l <<<"$out")" = 1
done

[ "$(id -u)" = 0 ] || { skip "peer_exec.xsk_run" "needs root"; t_done; }
# tx-only: no generator, the command's environment and status come back.
# shellcheck disable=SC2016
out=$("$BIN" --mode native --peer-path txonly --peer-exec \
	'sh -c "ip -o link show dev $ZC_PEER_IFACE >/dev/null && echo q=$ZC_PEER_QUEUE f=$ZC_PEER_FRAME x=$ZC_PEER_XDP; exit 3"' 2>&1)
rc=$?
expect "peer_exec.xsk_env_and_status" test "$rc" = 3 -a -n "$(grep -x 'q=0 f=64 x=native' <<<"$out")"
expect "peer_exec.xsk_counter_line" grep -Eq "^# peer: \S+'s counter counted [0-9]+ frames" <<<"$out"
# rx-drop: a command that never attaches XDP gets no generator; its status stands.
out=$("$BIN" --mode skb --peer-exec 'sh -c "exit 5"' 2>&1)
rc=$?
expect "peer_exec.xsk_no_attach_no_generator" test "$rc" = 5 -a \
	-z "$(grep '^# peer: generator' <<<"$out")"

peer=${ZC_VMTEST_CACHE:-$HOME/.cache/zc-vmtest}/peers/xdpsock
[ -x "$peer" ] || { skip "peer_bench.xsk_run" "xdpsock not built (tools/zc-peer-build xdpsock)"; t_done; }
# make check holds the measuring lock already: the bench must not wait for it.
out=$("$BENCH" -b "$BUILD_DIR" --test xsk_bind -m rxdrop_native -r 1 -d 1 --lock '' 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
expect "peer_bench.xsk_run" test "$rc" = 0 -a -n "$(grep -E \
	'^\| rxdrop copy native \| samples/bpf xdpsock \(5\.10\) \| .* \| [0-9.]+ \| - \| [0-9.]+-[0-9.]+ \|$' <<<"$out")"
t_done
